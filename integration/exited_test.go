//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 16: a session whose command ends while nobody is attached is kept,
// exited, with its code and its last screen, until someone has seen them.

// exitedInfo is the part of wr ls --json an exited session adds.
type exitedInfo struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	ExitCode *int   `json:"exit_code"`
	Ended    string `json:"ended"`
}

func (e *env) lsStates() map[string]exitedInfo {
	e.t.Helper()
	out := e.mustWr("ls", "--json")
	var all []exitedInfo
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		e.t.Fatalf("wr ls --json printed %q: %v", out, err)
	}
	m := map[string]exitedInfo{}
	for _, s := range all {
		m[s.Name] = s
	}
	return m
}

// waitExited waits until wr ls shows name as exited.
func (e *env) waitExited(name string) exitedInfo {
	e.t.Helper()
	var got exitedInfo
	e.eventually(name+" to be listed as exited", func() bool {
		got = e.lsStates()[name]
		return got.State == "exited"
	})
	return got
}

// The README's quick start, as a script runs it: the command may end
// before wr wait asks, and wr wait must still give its code, every time.
func TestWaitAfterADetachedSessionEnded(t *testing.T) {
	e := newEnv(t)
	// A long-lived session keeps one server for the whole loop, as a
	// person's would be.
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")
	for i := 0; i < 100; i++ {
		name := fmt.Sprintf("x%d", i)
		e.mustWr("new", "-d", name, "--", "sh", "-c", "exit 3")
		if r := e.wr("wait", name); r.code != 3 {
			t.Fatalf("try %d: wr wait %s exited %d (stderr %q), want 3", i, name, r.code, r.stderr)
		}
		// wait collected it.
		if _, ok := e.lsStates()[name]; ok {
			t.Fatalf("try %d: %s is still listed after wr wait collected it", i, name)
		}
	}
}

// What an exited session shows, and who collects it.
func TestExitedSessionKeepsCodeAndScreen(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")
	e.mustWr("new", "-d", "t", "--", "sh", "-c", "echo boom >&2; exit 2")
	info := e.waitExited("t")
	if info.ExitCode == nil || *info.ExitCode != 2 {
		t.Fatalf("wr ls --json: exit_code %v, want 2", info.ExitCode)
	}
	if _, err := time.Parse(time.RFC3339, info.Ended); err != nil {
		t.Errorf("wr ls --json: ended %q is not RFC 3339: %v", info.Ended, err)
	}
	if running := e.lsStates()["keep"]; running.State != "running" {
		t.Errorf("a live session's state is %q, want running", running.State)
	}

	table := e.mustWr("ls")
	if !strings.Contains(table, "STATUS") || !strings.Contains(table, "exited 2") || !strings.Contains(table, "running") {
		t.Errorf("wr ls shows no STATUS column with \"exited 2\" and \"running\":\n%s", table)
	}

	// capture and ls do not collect.
	for i := 0; i < 2; i++ {
		if out := e.mustWr("capture", "t"); !strings.Contains(out, "boom") {
			t.Fatalf("wr capture t of the exited session: %q, want boom", out)
		}
	}
	if _, ok := e.lsStates()["t"]; !ok {
		t.Fatal("wr capture collected the exited session")
	}

	// An exited session is not a running one for send.
	if r := e.wr("send", "t", "hello"); r.code != 1 || !strings.Contains(r.stderr, "exited") {
		t.Errorf("wr send to an exited session: exit %d, stderr %q; want 1 and a message that it has exited", r.code, r.stderr)
	}

	// attach draws the last screen, says how it ended, exits with the code,
	// and collects.
	tm := e.term(80, 24, "attach", "t")
	tm.expect("boom")
	tm.expect("[t exited with 2]")
	if code := tm.wait(); code != 2 {
		t.Fatalf("wr attach to the exited session exited %d, want 2", code)
	}
	if _, ok := e.lsStates()["t"]; ok {
		t.Fatal("the exited session is still listed after wr attach collected it")
	}
	if r := e.wr("wait", "t"); r.code != 1 {
		t.Errorf("wr wait after the session was collected: exit %d, want 1 (no such session)", r.code)
	}
}

// A session ended by wr kill, and one that ends with a client attached,
// are not kept: their end was seen.
func TestSeenEndsAreNotKept(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")

	e.mustWr("new", "-d", "k", "--", "sh", "-c", "exec sleep 600")
	e.mustWr("kill", "k")
	if _, ok := e.lsStates()["k"]; ok {
		t.Error("a killed session is kept")
	}

	tm := e.term(80, 24, "attach", "a", "--", "sh", "-c", "read x; exit 4")
	e.eventually("a to run", func() bool { return e.lsStates()["a"].State == "running" })
	tm.send("go\r")
	if code := tm.wait(); code != 4 {
		t.Fatalf("the attached client exited %d, want 4", code)
	}
	e.eventually("a to be gone", func() bool { _, ok := e.lsStates()["a"]; return !ok })
}

// wr new over an exited name replaces it; wr kill removes an exited
// session, and wr kill --exited all of them.
func TestExitedSessionsReplacedAndRemoved(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")
	for _, n := range []string{"r", "k1", "k2", "k3"} {
		e.mustWr("new", "-d", n, "--", "sh", "-c", "exit 5")
	}
	for _, n := range []string{"r", "k1", "k2", "k3"} {
		e.waitExited(n)
	}

	e.mustWr("new", "-d", "r", "--", "sh", "-c", "read x; exit 6")
	if st := e.lsStates()["r"]; st.State != "running" {
		t.Fatalf("after wr new over the exited r: state %q, want running", st.State)
	}
	e.mustWr("send", "r", "--enter", "go")
	if r := e.wr("wait", "r"); r.code != 6 {
		t.Fatalf("wr wait on the new r: exit %d, want 6 (the new session's code, not the old 5)", r.code)
	}

	e.mustWr("kill", "k1")
	if _, ok := e.lsStates()["k1"]; ok {
		t.Error("wr kill k1 left the exited session listed")
	}
	e.mustWr("kill", "--exited")
	st := e.lsStates()
	for _, n := range []string{"k2", "k3"} {
		if _, ok := st[n]; ok {
			t.Errorf("wr kill --exited left %s listed", n)
		}
	}
	if st["keep"].State != "running" {
		t.Error("wr kill --exited ended a running session")
	}
}

// An exited session expires after --keep, and a server holding nothing
// else then exits.
func TestExitedSessionExpires(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "--keep", "1s", "short", "--", "sh", "-c", "exit 7")
	e.waitExited("short")
	pid := e.serverPID()
	e.eventually("the exited session to expire", func() bool {
		_, ok := e.lsStates()["short"]
		return !ok
	})
	e.eventually("the server to exit once nothing is left", func() bool {
		return syscall.Kill(pid, 0) != nil
	})

	// --keep 0 keeps nothing: the code goes with the session.
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")
	e.mustWr("new", "-d", "--keep", "0", "none", "--", "sh", "-c", "exit 8")
	e.eventually("none to be gone", func() bool { _, ok := e.lsStates()["none"]; return !ok })
}
