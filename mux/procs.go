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
// nothing else to run (or every 10 ms), and a PTY reader in a burst (a
// cat) always has something. Three things then wait for the poll:
//
//   - A keystroke's echo in another session: p99 50 ms under a cat of
//     32 MiB. So while a session is in a burst (a PTY reader's, or a feeder
//     drawing a backlog of a megabyte or more) and a client that can type
//     is attached to another session, the server runs on two Ps, and the
//     second one's idle thread sits in the poller; it goes back to one once
//     that has not been so for busyLinger. Changing the number of Ps stops
//     the world for some microseconds, once at each end.
//   - The pouring session's own clients' writers, waiting for room in
//     their sockets: their queues passed maxQueued, and clients that kept
//     up were sent a redraw in place of 40% of a cat. The reader writes
//     for them after each read (client.helpWriter, from fanOut).
//   - A request or a key for the pouring session (a wr ls, a Ctrl-C). The
//     reader looks at a knockSet after each read (knock_linux.go) and
//     takes the second P for a moment when a connection knocks (knocked).
//
// So a burst with nobody to type elsewhere (one session flooding its own
// clients, or a detached build) stays on one P. A second P there cost
// about twice the server's and the client's context switches per MiB and
// half as much again of their CPU, which on a 2-core machine the program
// and the client's terminal were waiting for (docs/benchmarks.md). Where
// there is no knockSet (not Linux), every burst takes the second P.
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
	// knockless: a server with no knockSet runs; its bursts take two Ps.
	knockless bool

	// onTwo mirrors raised, for readers that ask after every read
	// (onTwoPs).
	onTwo atomic.Bool

	// For wr server status: how many times a session's burst began, and
	// how many times the server took a second P.
	begun, raises atomic.Int64
	knocks        atomic.Int64 // times knocked took the second P
	helped        atomic.Int64 // bytes readers wrote for their clients' writers (client.helpWriter)
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
	b.bursts[m]++
	reviewProcsLocked()
	if b.bursts[m] == 1 {
		// After the review: whoever sees the burst counted sees what it
		// did to the Ps (TestSecondCPUOnlyForOtherSessions).
		b.begun.Add(1)
	}
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
	if len(b.bursts) == 0 {
		return false
	}
	if b.knockless {
		return true
	}
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
		if !b.wanted {
			b.raises.Add(1) // counted even if a knock holds the second P already
		}
		raiseLocked()
	case b.wanted:
		lowerLaterLocked()
	}
	b.wanted = want
}

// raiseLocked takes the second P, if the server is not on two already.
func raiseLocked() {
	b := &busyProcs
	if !b.raised {
		b.raised = true
		b.onTwo.Store(true)
		runtime.GOMAXPROCS(2)
	}
}

// lowerLaterLocked gives the second P back busyLinger from now, unless it
// is wanted again by then (lowerProcs looks).
func lowerLaterLocked() {
	b := &busyProcs
	if b.lower == nil {
		b.lower = time.AfterFunc(busyLinger, lowerProcs)
	} else {
		b.lower.Reset(busyLinger)
	}
}

// lowerProcs goes back to one P if the second is still not wanted.
func lowerProcs() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.raised && !wantTwoLocked() {
		b.raised = false
		b.onTwo.Store(false)
		runtime.GOMAXPROCS(1)
	}
}

// knocked is called by a reader pouring on one P that found a connection
// knocking (knock_linux.go): the server takes the second P, whose idle
// thread polls at once and reads the request or the key, and keeps it for
// busyLinger unless a burst wants it longer. Parking the reader instead,
// so that its own P would poll, did not always work: the scheduler runs
// what is runnable (a feeder) before it polls, and the reader's timer may
// fire first (an independent review measured a wr ls beside a cat at
// 12.8 ms at the median, against 8.2 with two Ps). A knock is a person's
// or a script's act, rare beside the reads of a burst.
func knocked() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !enabledLocked() {
		return
	}
	b.knocks.Add(1)
	raiseLocked()
	if !b.wanted { // else a burst holds the second P, and its end lowers it
		lowerLaterLocked()
	}
}

// onTwoPs reports whether the server runs on two Ps now: a reader there
// need neither write for its clients' writers nor look for knocks, as the
// second P polls.
func onTwoPs() bool { return busyProcs.onTwo.Load() }

// knockless records that a server runs without a knockSet (knock_other.go):
// its bursts then take the second P whoever is attached.
func knockless() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	b.knockless = true
}
