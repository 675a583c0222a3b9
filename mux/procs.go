package mux

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The server runs on one P (see main): a goroutine that wakes another hands
// over on the same thread, which keeps an idle server's memory and an idle
// echo's context switches down. But Go polls the network only when a P has
// nothing else to run (or every 10 ms), and a session in a burst (its
// reader and its client's writer handing over to each other) always has
// something: a keystroke's echo in another session then waited for that
// poll, p99 50 ms under a cat of 32 MiB. So while a session is in a burst
// (a PTY reader's, or a feeder drawing a backlog of a megabyte or more)
// and a client that can type is attached to another session, the server
// runs on two Ps, and the second one's idle thread sits in the poller; it
// goes back to one once that has not been so for busyLinger. Changing the
// number of Ps stops the world for some microseconds, once at each end.
//
// A burst with nobody to type elsewhere (one session flooding its own
// clients, or a detached build) stays on one P. A second P there bought
// nothing and cost a lot: about twice the server's and the client's
// context switches per MiB and half as much again of their CPU, which on
// a 2-core machine the program and the client's terminal were waiting for
// (throughput 49 against 40 MiB/s, docs/benchmarks.md). A key typed into
// the flooding session itself waits for the poll, as it did before any
// burst took a second P: it is typed into a flood, and its echo is lost in
// it anyway.
const busyLinger = 200 * time.Millisecond

// busyProcs knows the sessions in a burst and the sessions someone could
// type into, each by its model (which the reader, the feeder and the
// session all hold). It changes GOMAXPROCS only in a process that runs on
// one P when it is first called (the server, not a test binary).
var busyProcs struct {
	mu       sync.Mutex
	checked  bool // base was read
	enabled  bool // the process ran on one P: the server
	bursts   map[*model]int
	typeable map[*model]bool
	raised   bool // running on two Ps
	wanted   bool // what reviewProcsLocked last found
	lower    *time.Timer

	// For wr server status: how many times a session's burst began, and
	// how many times the server took a second P.
	begun, raises atomic.Int64
}

// burstBegins is called by a PTY reader entering a burst, or a feeder
// starting on a backlog.
func burstBegins(m *model) {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !enabledLocked() {
		return
	}
	if b.bursts[m]++; b.bursts[m] == 1 {
		b.begun.Add(1)
	}
	reviewProcsLocked()
}

// burstEnds is called by whoever called burstBegins, when its burst ends.
func burstEnds(m *model) {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !enabledLocked() || b.bursts[m] == 0 {
		return
	}
	if b.bursts[m]--; b.bursts[m] == 0 {
		delete(b.bursts, m)
	}
	reviewProcsLocked()
}

// typedInto records whether m's session has a client attached that can
// type (countAnswerersLocked).
func typedInto(m *model, yes bool) {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !enabledLocked() || b.typeable[m] == yes {
		return
	}
	if yes {
		b.typeable[m] = true
	} else {
		delete(b.typeable, m)
	}
	reviewProcsLocked()
}

func enabledLocked() bool {
	b := &busyProcs
	if !b.checked {
		b.checked, b.enabled = true, runtime.GOMAXPROCS(0) == 1
		b.bursts, b.typeable = map[*model]int{}, map[*model]bool{}
	}
	return b.enabled
}

// wantTwoLocked reports whether some session in a burst has someone who
// could type in another session.
func wantTwoLocked() bool {
	b := &busyProcs
	for t := range b.typeable {
		for m := range b.bursts {
			if m != t {
				return true
			}
		}
	}
	return false
}

// reviewProcsLocked takes the second P at once when it becomes wanted, and
// gives it back busyLinger after it stops being wanted. The linger starts
// when the want ends, not at every burst's end: a session whose bursts come
// and go with nobody to type elsewhere must not keep the second P.
func reviewProcsLocked() {
	b := &busyProcs
	want := wantTwoLocked()
	switch {
	case want:
		if b.lower != nil {
			b.lower.Stop()
		}
		if !b.raised {
			b.raised = true
			b.raises.Add(1)
			runtime.GOMAXPROCS(2)
		}
	case b.wanted && b.lower == nil:
		b.lower = time.AfterFunc(busyLinger, lowerProcs)
	case b.wanted:
		b.lower.Reset(busyLinger)
	}
	b.wanted = want
}

// lowerProcs goes back to one P if the second is still not wanted.
func lowerProcs() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.raised && !wantTwoLocked() {
		b.raised = false
		runtime.GOMAXPROCS(1)
	}
}
