package mux

import (
	"runtime"
	"testing"
	"time"

	"wr/wire"
)

// resetProcs makes busyProcs read the process's Ps again, as at start-up.
func resetProcs() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lower != nil {
		b.lower.Stop()
	}
	b.checked, b.enabled, b.raised, b.wanted, b.knockless = false, false, false, false, false
	b.bursts, b.typeable, b.lower = nil, nil, nil
	b.onTwo.Store(false)
}

func procs() int { return runtime.GOMAXPROCS(0) }

// onOneP runs a test as the server runs: on one P, with busyProcs fresh.
func onOneP(t *testing.T) {
	t.Helper()
	before := runtime.GOMAXPROCS(1)
	resetProcs()
	t.Cleanup(func() {
		resetProcs()
		runtime.GOMAXPROCS(before)
	})
}

// waitOneP waits for the linger to give the second P back.
func waitOneP(t *testing.T, why string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); procs() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("GOMAXPROCS never went back to 1 %s", why)
		}
	}
}

// A burst takes a second P only while someone could type into another
// session: that is whose echo would wait for a busy P to poll the network.
func TestBurstTakesASecondPForOthers(t *testing.T) {
	tests := []struct {
		name  string
		steps func(flood, other *model)
		want  int
	}{
		{"a burst with nobody attached anywhere", func(flood, other *model) {
			burstBegins(flood)
		}, 1},
		{"a burst watched only by its own clients", func(flood, other *model) {
			typedInto(flood, true)
			burstBegins(flood)
		}, 1},
		{"a burst with a client on another session", func(flood, other *model) {
			typedInto(other, true)
			burstBegins(flood)
		}, 2},
		{"a client attaching elsewhere during a burst", func(flood, other *model) {
			burstBegins(flood)
			typedInto(other, true)
		}, 2},
		{"a feeder's backlog and a reader's burst in one session", func(flood, other *model) {
			typedInto(other, true)
			burstBegins(flood)
			burstBegins(flood)
			burstEnds(flood)
		}, 2},
		{"both sessions in a burst, each with its client", func(flood, other *model) {
			typedInto(flood, true)
			typedInto(other, true)
			burstBegins(flood)
			burstBegins(other)
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onOneP(t)
			tt.steps(&model{}, &model{})
			if n := procs(); n != tt.want {
				t.Fatalf("GOMAXPROCS = %d, want %d", n, tt.want)
			}
		})
	}
}

// The second P goes back busyLinger after it stops being wanted, and not
// while it still is.
func TestSecondPGoesBack(t *testing.T) {
	t.Run("after the last burst", func(t *testing.T) {
		onOneP(t)
		flood, flood2, other := &model{}, &model{}, &model{}
		typedInto(other, true)
		burstBegins(flood)
		burstBegins(flood2)
		burstEnds(flood)
		lowerProcs() // as the linger's timer would, while another burst goes on
		if n := procs(); n != 2 {
			t.Fatalf("with one burst still going GOMAXPROCS = %d, want 2", n)
		}
		burstEnds(flood2)
		waitOneP(t, "after the last burst")
	})
	t.Run("when the other session's client leaves", func(t *testing.T) {
		onOneP(t)
		flood, other := &model{}, &model{}
		typedInto(other, true)
		burstBegins(flood)
		if n := procs(); n != 2 {
			t.Fatalf("GOMAXPROCS = %d, want 2", n)
		}
		typedInto(other, false)
		waitOneP(t, "once nobody could type elsewhere")
	})
	t.Run("not kept by bursts nobody else waits on", func(t *testing.T) {
		onOneP(t)
		flood, other := &model{}, &model{}
		typedInto(other, true)
		burstBegins(flood)
		typedInto(other, false)
		// Bursts that come and go with nobody to type elsewhere do not
		// restart the linger.
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				burstEnds(flood)
				burstBegins(flood)
				time.Sleep(time.Millisecond)
			}
		}()
		defer func() { close(stop); <-done }()
		waitOneP(t, "while one session's bursts came and went")
	})
}

// A process that does not run on one P (a test binary) is left alone.
func TestBurstLeavesManyPsAlone(t *testing.T) {
	before := runtime.GOMAXPROCS(2)
	resetProcs()
	t.Cleanup(func() {
		resetProcs()
		runtime.GOMAXPROCS(before)
	})
	flood, other := &model{}, &model{}
	typedInto(other, true)
	burstBegins(flood)
	burstEnds(flood)
	lowerProcs()
	if n := procs(); n != 2 {
		t.Fatalf("a process on 2 Ps was changed to %d", n)
	}
}

// A session that ends with a client that can type attached leaves the
// sessions someone could type into: left there, it kept every later burst
// on two Ps and its model alive (the review found its client's detach
// finding it already gone and counting nothing).
func TestEndedSessionIsNotTypedInto(t *testing.T) {
	onOneP(t)
	s := exitedServer(t)
	ss, _ := startScript(t, s, "t", "read x; exit 0", true)
	a, _ := socketPair(t)
	c := newClient(1, a, false, 80, 24)
	if res := ss.attach(c, wire.Attached{Name: "t", ClientID: 1}, false); res != attachLive {
		t.Fatalf("attach: %v", res)
	}
	typeable := func() bool {
		busyProcs.mu.Lock()
		defer busyProcs.mu.Unlock()
		return busyProcs.typeable[ss.model]
	}
	if !typeable() {
		t.Fatal("a session with a client attached is not typed into")
	}
	_ = ss.writePTY([]byte("\n"))
	waitDone(t, ss)
	ss.detach(c) // as serveAttach does once the connection goes
	if typeable() {
		t.Fatal("the ended session is still typed into")
	}
	flood := &model{}
	burstBegins(flood)
	defer burstEnds(flood)
	if n := procs(); n != 1 {
		t.Fatalf("a burst with nobody attached anywhere took GOMAXPROCS = %d", n)
	}
}

// A knock takes the second P at once, and gives it back busyLinger later,
// unless a burst still wants it.
func TestKnockTakesTheSecondPForAMoment(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		onOneP(t)
		knocked()
		if n := procs(); n != 2 || !onTwoPs() {
			t.Fatalf("after a knock GOMAXPROCS = %d (onTwoPs %v), want 2", n, onTwoPs())
		}
		waitOneP(t, "after a knock")
		if onTwoPs() {
			t.Fatal("onTwoPs still true on one P")
		}
	})
	t.Run("during a burst that wants two", func(t *testing.T) {
		onOneP(t)
		flood, other := &model{}, &model{}
		typedInto(other, true)
		burstBegins(flood)
		knocked()
		lowerProcs() // as the knock's linger would
		if n := procs(); n != 2 {
			t.Fatalf("a knock's linger lowered the Ps under a burst that wants two: %d", n)
		}
		burstEnds(flood)
		waitOneP(t, "after the burst")
	})
}

// A server with no knockSet (not Linux) takes the second P for every burst:
// its pouring session's own clients would otherwise wait for the poll.
func TestKnocklessBurstTakesTwo(t *testing.T) {
	onOneP(t)
	knockless()
	flood := &model{}
	burstBegins(flood)
	if n := procs(); n != 2 {
		t.Fatalf("a lone burst without knocks: GOMAXPROCS = %d, want 2", n)
	}
	burstEnds(flood)
	waitOneP(t, "after the burst")
}
