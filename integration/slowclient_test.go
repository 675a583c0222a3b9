//go:build linux

package integration

import (
	"syscall"
	"testing"
	"time"
)

// A stopped client costs the others nothing: with one client stopped
// (SIGSTOP), 32 MiB through the session reaches the other client whole, the
// session never blocks, and when the stopped client resumes it is redrawn
// from the screen model (the final screen) instead of being replayed
// everything it missed.
func TestStoppedClientSlowsNoOne(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "big", "--", "sh", "-c", catScript())
	a := startSink(t, e.vars, 80, 24, wrBin, "attach", "big")
	b := startSink(t, e.vars, 80, 24, wrBin, "attach", "big")
	e.waitClients("big", 2)
	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = b.cmd.Process.Signal(syscall.SIGCONT)
		}
	})

	done := a.watch(doneMarker)
	start := time.Now()
	a.send(t, "\r")
	waitFor(t, done, "the running client to show the last line")
	t.Logf("32 MiB reached the running client in %v with the other stopped", time.Since(start))

	before := b.n.Load()
	final := b.watch(doneMarker)
	resumedAt := time.Now()
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	waitFor(t, final, "the resumed client to show the final screen")
	t.Logf("the resumed client showed the final screen %v after SIGCONT, after %d bytes (%d before it resumed)",
		time.Since(resumedAt), b.n.Load(), before)
	if got := b.n.Load(); got > 16<<20 {
		t.Fatalf("the resumed client was sent %d bytes: a replay of what it missed, not a redraw", got)
	}
	if s, _ := e.session("big"); s.Clients != 2 {
		t.Fatalf("clients = %d, want both still attached", s.Clients)
	}
}
