package mux

import (
	"sync"
	"testing"
	"time"
)

// Each session start is followed by a release of its garbage; starts that
// come while one runs share the next one, so a burst costs two releases,
// not one per start, and a start after the burst gets its own again.
func TestStartsShareReleases(t *testing.T) {
	s := &server{}
	calls := 0
	s.release.freeOS = func() {
		calls++
		if calls == 1 {
			// A burst of starts, from many goroutines, during the first
			// release: none of them starts a release of its own.
			var wg sync.WaitGroup
			for range 100 {
				wg.Go(s.sessionStarted)
			}
			wg.Wait()
		}
	}
	s.release.starts.Add(1) // the first start, its release run here
	s.releaseStarts()
	if calls != 2 {
		t.Errorf("%d releases for a start and a burst of 100 during its release, want 2", calls)
	}
	if n := s.release.starts.Load(); n != 0 {
		t.Errorf("%d starts still owed a release", n)
	}

	released := make(chan struct{})
	s.release.freeOS = func() { close(released) }
	s.sessionStarted()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("a start after the burst got no release")
	}
}

// A session's input and send turns are made on first use, once, whoever
// asks first.
func TestTurnsMadeOnce(t *testing.T) {
	ss := &session{}
	if ss.turnsP.Load() != nil {
		t.Fatal("a new session has turns")
	}
	got := make([]*sessionTurns, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = ss.turns() })
	}
	wg.Wait()
	for _, tu := range got {
		if tu != got[0] || tu.input == nil || tu.send == nil || tu.input == tu.send {
			t.Fatalf("turns differ between callers, or are missing: %v", got)
		}
	}
	if !ss.inputTurn().lockBy(time.Now()) {
		t.Fatal("a new input turn is taken")
	}
	if ss.inputTurn().lockBy(time.Now()) {
		t.Fatal("the input turn was taken twice")
	}
	if !ss.sendTurn().lockBy(time.Now()) {
		t.Fatal("the send turn is held by the input turn")
	}
}
