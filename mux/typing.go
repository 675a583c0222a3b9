package mux

import (
	"sync"
	"sync/atomic"
	"time"
)

// A person typing comes before output pouring into another session. On
// these 2-core machines a flood keeps both cores busy: the PTY reader and
// the model's feeder in the server, and outside it the program, the
// kernel's terminal work and the flood's own client. A keystroke's echo
// (five processes handing over in turn) then waits for a core at every
// hand-over, and its p99 was 7 to 20 times the idle one under a truecolour
// image or a 32 MiB cat (issues 14 and 18), however fast the drawing. So
// for typingWindow after a person acts in a session (a key, a click, a
// paste: classify's acted, the owner's input included), every other
// session's reader in a burst and every feeder drawing a backlog run on a
// short lead: floodSlice of work, then floodPause of sleep. The slices are
// taken one at a time across the server (takeSlot), so the floods' server
// work never holds more than one core, and about a thirteenth of it; what
// the reader no longer takes, the program waits to write (as on a slow
// terminal), so the rest of the flood slows with it and a core stays free
// for the echo. The session typed into is never slowed, nor is output that
// is not a burst (a build printing lines, a prompt), and typingWindow
// after the last keystroke everything runs at full speed again.
//
// Short slices matter more than a small share: at 250 µs of work and 3 ms
// of sleep a hand-over that found the flood's slice running waited out the
// rest of it, and the echo p99 under a hostile stream stayed at 2 to 2.4
// times idle; at 50 µs and 600 µs, the same share, it is 1.1 to 1.4.
const (
	typingWindow = 200 * time.Millisecond
	floodSlice   = 50 * time.Microsecond
	floodPause   = 600 * time.Microsecond
)

// typist is the server's last sign of a person typing: when, and in which
// session. Read without a lock by every reader in a burst.
type typist struct {
	at     atomic.Int64 // monoNow of the last act; 0: none yet
	in     atomic.Pointer[session]
	pauses atomic.Int64 // floodPauses taken, for wr server status

	// slotMu guards slotEnd: the end of the slice some flood worker is
	// running. Slices are taken one at a time, server-wide, so the floods
	// never hold more than one core between them while a person types.
	slotMu  sync.Mutex
	slotEnd time.Time

	// clock, when set, stands in for monoNow: a test that keeps someone
	// typing must not find the typing over because the machine stalled
	// for a typingWindow between two of its steps.
	clock func() int64
}

func (t *typist) now() int64 {
	if t.clock != nil {
		return t.clock()
	}
	return monoNow()
}

// monoEpoch makes a monotonic clock fit in an atomic integer.
var monoEpoch = time.Now()

func monoNow() int64 { return int64(time.Since(monoEpoch)) + 1 }

// acted records a person acting in ss.
func (t *typist) acted(ss *session) {
	t.in.Store(ss)
	t.at.Store(t.now())
}

// forget drops ss, a session that has ended, if it was the last typed
// into, so that the typist does not keep its screen alive.
func (t *typist) forget(ss *session) { t.in.CompareAndSwap(ss, nil) }

// elsewhere reports whether a person acted in a session other than ss
// within typingWindow.
func (t *typist) elsewhere(ss *session) bool {
	at := t.at.Load()
	return at != 0 && t.now()-at < int64(typingWindow) && t.in.Load() != ss
}

// floodPace is one worker's lead (a reader's or a feeder's) while a person
// types elsewhere.
type floodPace struct {
	resumed time.Time // when the current slice began; zero: none running
}

// led reports whether the worker is on the lead now.
func (p *floodPace) led() bool { return !p.resumed.IsZero() }

// step is called between two pieces of a burst's work. While someone
// types in another session it sleeps floodPause each time the worker has
// run floodSlice, and reports true: the lead governs the worker's pauses.
func (p *floodPace) step(t *typist, ss *session, now func() time.Time, sleep func(time.Duration)) (led bool) {
	if t == nil || !t.elsewhere(ss) {
		p.resumed = time.Time{}
		return false
	}
	if !p.resumed.IsZero() {
		if now().Sub(p.resumed) < floodSlice {
			return true
		}
		t.pauses.Add(1)
		sleep(floodPause)
	}
	p.resumed = t.takeSlot(now, sleep)
	return true
}

// takeSlot waits until no other flood worker's slice is running, starts
// one, and returns when it began.
func (t *typist) takeSlot(now func() time.Time, sleep func(time.Duration)) time.Time {
	for {
		t.slotMu.Lock()
		n := now()
		wait := t.slotEnd.Sub(n)
		if wait <= 0 {
			t.slotEnd = n.Add(floodSlice)
			t.slotMu.Unlock()
			return n
		}
		t.slotMu.Unlock()
		sleep(wait)
	}
}
