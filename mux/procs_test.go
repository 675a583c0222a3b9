package mux

import (
	"runtime"
	"testing"
	"time"
)

// A server on one P takes a second while a PTY reader is in a burst, keeps
// it while any is, and goes back to one after the last burst ends. A
// process that does not run on one P (a test binary) is left alone.
func TestBurstTakesASecondP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	reset := func() {
		busyProcs.mu.Lock()
		busyProcs.checked, busyProcs.enabled, busyProcs.bursts, busyProcs.raised = false, false, 0, false
		busyProcs.mu.Unlock()
	}
	t.Cleanup(func() { reset() })
	reset()
	procs := func() int { return runtime.GOMAXPROCS(0) }

	burstBegins()
	burstBegins()
	if n := procs(); n != 2 {
		t.Fatalf("during a burst GOMAXPROCS = %d, want 2", n)
	}
	burstEnds()
	lowerProcs() // as the linger's timer would, while another burst goes on
	if n := procs(); n != 2 {
		t.Fatalf("with one burst still going GOMAXPROCS = %d, want 2", n)
	}
	burstEnds()
	for deadline := time.Now().Add(time.Minute); procs() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("GOMAXPROCS never went back to 1 after the last burst")
		}
	}

	reset()
	runtime.GOMAXPROCS(2)
	burstBegins()
	burstEnds()
	lowerProcs()
	if n := procs(); n != 2 {
		t.Fatalf("a process on 2 Ps was changed to %d", n)
	}
}
