//go:build linux

package integration

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// Quiet sessions hand their PTY to the server's watcher (ptyproc.Watcher)
// and hold no goroutine, and no stack, of their own; these tests check
// that they still get everything the program prints afterwards, and its
// exit.

// idleGoroutines waits until the server runs fewer than limit goroutines
// and returns how many it runs.
func (e *env) idleGoroutines(limit int) int {
	e.t.Helper()
	n := 0
	e.eventually(fmt.Sprintf("fewer than %d goroutines in the server", limit), func() bool {
		n = e.status("goroutines")
		return n < limit
	})
	return n
}

// Twenty idle sessions: a handful of goroutines in all, not one or two per
// session (42 before readers parked and exits were watched in one place).
func TestIdleSessionsHoldNoGoroutine(t *testing.T) {
	e := newEnv(t)
	const n = 20
	for i := range n {
		e.mustWr("new", "-d", fmt.Sprint("idle", i))
	}
	for i := range n {
		name := fmt.Sprint("idle", i)
		e.eventually(name+"'s prompt", func() bool {
			return strings.Contains(e.mustWr("capture", name), strings.TrimSpace(prompt))
		})
	}
	got := e.idleGoroutines(n)
	t.Logf("%d idle sessions: %d goroutines in the server", n, got)
}

// A parked session wakes for its output: input through wr send, and a
// client that attaches and types, see the program's answers and its exit.
func TestParkedSessionWakes(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "p")
	e.eventually("the prompt", func() bool { return strings.Contains(e.mustWr("capture", "p"), strings.TrimSpace(prompt)) })
	e.idleGoroutines(8)
	e.mustWr("send", "p", "--enter", "echo sent-$((6*7))")
	e.eventually("the answer to wr send", func() bool { return strings.Contains(e.mustWr("capture", "p"), "sent-42") })
	e.idleGoroutines(8)
	tm := e.term(80, 24, "attach", "p")
	tm.expect("sent-42") // the restore
	tm.send("echo typed-$((6*7))\r")
	tm.expect("typed-42")
	tm.send("exit 5\r")
	if code := tm.wait(); code != 5 {
		t.Fatalf("attach exited %d, want 5", code)
	}
}

// A child that exits while its PTY is parked, and that left a background
// job holding the terminal (so no hang-up wakes the watcher), still ends
// its session, while the job (which ignores the hang-up) still runs.
func TestExitWhileParked(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() {
		for _, pid := range pidsMentioning(e.dir, "sleep") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	e.mustWr("new", "-d", "x", "--", "sh", "-c", "stty -echo; (trap '' HUP; exec sleep 60) & printf 'waiting> '; read x; exit 4")
	e.eventually("the prompt", func() bool { return strings.Contains(e.mustWr("capture", "x"), "waiting>") })
	e.idleGoroutines(8)
	tm := e.term(80, 24, "attach", "x")
	tm.expect("waiting>")                  // the restore, which reads nothing from the PTY
	e.mustWr("send", "x", "--enter", "go") // not echoed: no output wakes the reader
	if code := tm.wait(); code != 4 {
		t.Fatalf("attach exited %d, want 4", code)
	}
	if len(pidsMentioning(e.dir, "sleep")) == 0 {
		t.Fatal("the background job has gone: nothing held the terminal")
	}
}

// A session someone is attached to from a terminal keeps its reader, so a
// keystroke's echo finds it waiting (mux/reader.go, setReadDeadline); once
// the last terminal has left, the reader parks again and the session holds
// no goroutine. The count is the server's own: a session's reader is one
// goroutine, an attached client two.
func TestReaderParksWhenTheLastTerminalLeaves(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "p")
	e.eventually("the prompt", func() bool { return strings.Contains(e.mustWr("capture", "p"), strings.TrimSpace(prompt)) })
	base := e.idleGoroutines(8)
	tm := e.term(80, 24, "attach", "p")
	tm.send("echo typed-$((6*7))\r")
	tm.expect("typed-42")
	tm.send("\x1c") // the detach key
	if code := tm.wait(); code != 0 {
		t.Fatalf("attach exited %d after the detach key, want 0", code)
	}
	e.eventually("the server back to its goroutines before the attach", func() bool { return e.status("goroutines") <= base })
}
