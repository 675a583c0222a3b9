//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A process that answers the hang-up by starting another must not escape
// wr kill: the sweep looks again before and after its SIGKILL.
func TestKillReachesWhatHangupStarts(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "k", "--", "sh", "-c",
		`setsid sh -c 'trap "sleep 1041 &" HUP; echo > `+filepath.Join(e.dir, "armed")+`; while :; do sleep 0.05; done' & exec sleep 1000`)
	e.eventually("the trap to be armed", func() bool { _, err := os.Stat(filepath.Join(e.dir, "armed")); return err == nil })
	e.mustWr("kill", "k")
	if left := e.sleepers("1041"); len(left) != 0 {
		t.Fatalf("a process started in answer to SIGHUP survived wr kill: %v", left)
	}
}

// Once a session's command has exited and the server has drained what a
// background job still holds open, the session is exited and wr new takes
// its name (issue 16: while it drains it is still running for everyone, so
// the test waits for the exited state, not only for the command's exit).
func TestNameFreeWhileDraining(t *testing.T) {
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	e.mustWr("new", "-d", "x", "--", "sh", "-c",
		`setsid sh -c 'trap "" HUP; exec sleep 1051' & while [ ! -e `+gate+` ]; do sleep 0.01; done; exit 5`)
	var pids map[string]int
	e.eventually("the background job", func() bool { pids = e.sleepers("1051"); return len(pids) == 1 })
	t.Cleanup(func() { _ = syscall.Kill(pids["1051"], syscall.SIGKILL) })
	shell := 0
	if s, ok := e.session("x"); ok {
		shell = s.PID
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.eventually("the command to exit", func() bool { return !running(shell) })
	e.waitExited("x")
	e.mustWr("new", "-d", "x", "--", "sleep", "1052")
	if s, ok := e.session("x"); !ok || strings.Join(s.Command, " ") != "sleep 1052" {
		t.Fatalf("after the first x exited, x is %+v", s)
	}
}

// A client that detaches right after a lone ESC never becomes the owner:
// the pending ESC timer dies with it.
func TestDetachedClientNeverOwns(t *testing.T) {
	e, _, b := twoClients(t)
	owner := func() *int { s, _ := e.session("s"); return s.Owner }
	before := owner()
	b.send("\x1b\x1c") // ESC, then the detach key
	if code := b.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
	// Watch past the 25 ms the ESC would have waited.
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		if o := owner(); o == nil || before == nil || *o != *before {
			t.Fatalf("owner changed to %v after a client detached", o)
		}
	}
	e.requireSize("s", 80, 24, "a detached client's ESC")
}

// With only a read-only client attached, no terminal can answer, so the
// server answers the program's queries itself.
func TestQueriesAnsweredForReadOnlyWatchers(t *testing.T) {
	e := newEnv(t)
	out := filepath.Join(e.dir, "answers")
	app := fmt.Sprintf(`stty raw -echo min 0 time 10; read go; printf '\033[c'; cat > %s.tmp; mv %s.tmp %s; exec sleep 1000`, out, out, out)
	e.mustWr("new", "-d", "q", "--", "sh", "-c", app)
	e.term(80, 24, "attach", "-r", "q")
	e.waitClients("q", 1)
	e.mustWr("send", "q", "--enter")
	var got []byte
	e.eventually("the program's answer", func() bool { b, err := os.ReadFile(out); got = b; return err == nil })
	if !strings.HasPrefix(string(got), "\x1b[?") {
		t.Fatalf("with only a read-only client the program got %q, want a DA1 answer", got)
	}
}

// The last session ending and a new one starting at once: the new one
// always gets a server (the old one lets go of the socket as it decides to
// exit, and a client racing it retries).
func TestRestartRightAfterLastSession(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 15; i++ {
		e.mustWr("new", "-d", "a", "--", "sleep", "100")
		e.mustWr("kill", "a")
	}
	e.mustWr("new", "-d", "a", "--", "sleep", "100")
	if s, ok := e.session("a"); !ok || s.Clients != 0 {
		t.Fatalf("session a = %+v, %v", s, ok)
	}
}

// A server started from inside a session does not carry that session's
// identity, so killing the session leaves the other server alone.
func TestServerStartedInsideSessionSurvivesItsKill(t *testing.T) {
	outer := newEnv(t)
	inner := newEnv(t)
	tm := outer.term(80, 24, "attach", "a")
	tm.expect(prompt)
	tm.send(fmt.Sprintf("%s --socket %s new -d inner -- sleep 1061; echo STARTED-$((1+1))\r", wrBin, inner.socket))
	tm.expect("STARTED-2")
	outer.mustWr("kill", "a")
	if s, ok := inner.session("inner"); !ok || s.PID == 0 {
		t.Fatalf("killing session a took down the server it started (inner: %+v, %v)", s, ok)
	}
}
