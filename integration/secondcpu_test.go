//go:build linux

package integration

import (
	"testing"
)

// The server takes a second CPU for a burst only when a client is attached
// to another session: that client's keystrokes are what would wait for a
// busy server to look at the network. A flood watched only by its own
// client, or by nobody, stays on one, where it makes half the context
// switches (BenchmarkThroughput reports them).
func TestSecondCPUOnlyForOtherSessions(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "flood", "--", "yes")
	flood := startSink(t, e.vars, 80, 24, wrBin, "attach", "flood")

	// The flood pours to its own client, with nobody attached elsewhere:
	// bursts, and no second CPU.
	e.eventually("the flood to be seen as a burst", func() bool { return e.status("bursts") > 0 })
	n := flood.n.Load()
	e.eventually("the flood's output", func() bool { return flood.n.Load() > n+1<<20 })
	if c := e.status("second-cpu"); c != 0 {
		t.Fatalf("a flood with no client on another session took a second CPU %d times", c)
	}

	// A client on another session: the next burst takes one (the flood
	// goes on, and its reader's arenas start small after each lull).
	e.mustWr("new", "-d", "quiet", "--", "sh", "-c", "stty raw -echo; echo READY-$((6*7)); exec cat")
	_, ready := startSinkWatching(t, "READY-42", e.vars, 80, 24, wrBin, "attach", "quiet")
	waitFor(t, ready, "the quiet session")
	e.eventually("a second CPU for the flood beside the quiet session's client", func() bool {
		return e.status("second-cpu") > 0
	})
}
