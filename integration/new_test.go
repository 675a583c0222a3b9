//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Item 4: wr new -d creates a detached session and refuses an existing
// name; wr attach NAME -- CMD creates with a command.
func TestNewDetached(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "bg", "--", "sh", "-c", "echo started > marker; exec sleep 100")
	s, ok := e.session("bg")
	if !ok || s.Clients != 0 || strings.Join(s.Command, " ") != "sh -c echo started > marker; exec sleep 100" {
		t.Fatalf("session %+v present=%v", s, ok)
	}
	r := e.wr("new", "-d", "bg")
	if r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("second wr new: exit %d stderr %q, want 1 and 'already exists'", r.code, r.stderr)
	}
	if len(e.ls()) != 1 {
		t.Fatalf("a refused wr new changed the session list: %+v", e.ls())
	}
}

func TestNewAttachedRefusesExisting(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x")
	tm := e.term(80, 24, "new", "x")
	if code := tm.wait(); code != 1 {
		t.Fatalf("wr new on an existing name exited %d, want 1", code)
	}
	tm.expect("already exists")
}

func TestAttachCreatesWithCommand(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "c", "--", "sh", "-c", "echo ran-$((1+1)); exit 5")
	if code := tm.wait(); code != 5 {
		t.Fatalf("exit %d, want 5", code)
	}
	tm.expect("ran-2")
}

// An existing session ignores the command: attach joins it.
func TestAttachExistingIgnoresCommand(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x")
	tm := e.term(80, 24, "attach", "x", "--", "sh", "-c", "exit 5")
	tm.send("\r")
	tm.expect(prompt)
	tm.send("exit 6\r")
	if code := tm.wait(); code != 6 {
		t.Fatalf("exit %d, want 6", code)
	}
}

// wr send types into a session without taking its size.
func TestSend(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "s")
	tm.expect(prompt)
	e.mustWr("send", "s", "--enter", "echo", "SENT-$((2+3))")
	tm.expect("SENT-5")
	e.mustWr("send", "s", "echo AGAIN-$((3+3))")
	e.mustWr("send", "--enter", "s")
	tm.expect("AGAIN-6")
	e.mustWr("send", "s", "--", "--enter")
	e.mustWr("send", "s", "--enter")
	tm.expect("--enter: not found")
	if r := e.wr("send", "ghost", "x"); r.code != 1 || !strings.Contains(r.stderr, "no session named ghost") {
		t.Fatalf("send to a missing session = %+v", r)
	}
	if r := e.wr("send", "s"); r.code != 2 {
		t.Fatalf("send with no text = %+v, want 2", r)
	}
	// An empty TEXT (a "$VAR" with nothing in it) sends nothing, and
	// succeeds if the session is there.
	if r := e.wr("send", "s", ""); r.code != 0 || r.stderr != "" {
		t.Fatalf("send of empty text = %+v, want 0", r)
	}
	if r := e.wr("send", "ghost", ""); r.code != 1 || !strings.Contains(r.stderr, "no session named ghost") {
		t.Fatalf("send of empty text to a missing session = %+v", r)
	}
}

// wr wait blocks until the session ends and exits with its code.
func TestWait(t *testing.T) {
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	e.mustWr("new", "-d", "w", "--", "sh", "-c", "while [ ! -e "+gate+" ]; do sleep 0.01; done; exit 6")
	done := make(chan result, 1)
	go func() { done <- e.wr("wait", "w") }()
	select {
	case r := <-done:
		t.Fatalf("wr wait returned %+v before the session ended", r)
	case <-time.After(200 * time.Millisecond): // it must still be waiting
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.code != 6 {
		t.Fatalf("wr wait = %+v, want exit 6", r)
	}
	if r := e.wr("wait", "w"); r.code != 1 || !strings.Contains(r.stderr, "no session named w") {
		t.Fatalf("wr wait on an ended session = %+v", r)
	}
}
