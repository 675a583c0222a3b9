package mux

import (
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
// session in a burst of output runs on a short lead: its reader and its
// feeder each work floodSlice and then sleep floodPause, a twelfth of a
// core, and what they no longer take from the program slows the program
// itself (it waits on a full terminal, as on a slow one), so a core stays
// free for the echo. A session's own output is never slowed by typing into
// it, and output that is not a burst (a build printing lines, a prompt) is
// never slowed at all. After typingWindow without a keystroke everything
// runs at full speed again.
const (
	typingWindow = 200 * time.Millisecond
	floodSlice   = 250 * time.Microsecond
	floodPause   = 3 * time.Millisecond
)

// typist is the server's last sign of a person typing: when, and in which
// session. Read without a lock by every reader in a burst.
type typist struct {
	at     atomic.Int64 // monoNow of the last act; 0: none yet
	in     atomic.Pointer[session]
	pauses atomic.Int64 // floodPauses taken, for wr server status
}

// monoEpoch makes a monotonic clock fit in an atomic integer.
var monoEpoch = time.Now()

func monoNow() int64 { return int64(time.Since(monoEpoch)) + 1 }

// acted records a person acting in ss.
func (t *typist) acted(ss *session) {
	t.in.Store(ss)
	t.at.Store(monoNow())
}

// elsewhere reports whether a person acted in a session other than ss
// within typingWindow.
func (t *typist) elsewhere(ss *session) bool {
	at := t.at.Load()
	return at != 0 && monoNow()-at < int64(typingWindow) && t.in.Load() != ss
}

// floodPace is one worker's lead (a reader's or a feeder's) while a person
// types elsewhere.
type floodPace struct {
	resumed time.Time // when the current slice began; zero: none running
}

// step is called between two pieces of a burst's work. While someone
// types in another session it sleeps floodPause each time the worker has
// run floodSlice, and reports true: the lead governs the worker's pauses.
func (p *floodPace) step(t *typist, ss *session, now func() time.Time, sleep func(time.Duration)) (led bool) {
	if t == nil || !t.elsewhere(ss) {
		p.resumed = time.Time{}
		return false
	}
	switch {
	case p.resumed.IsZero():
		p.resumed = now()
	case now().Sub(p.resumed) >= floodSlice:
		t.pauses.Add(1)
		sleep(floodPause)
		p.resumed = now()
	}
	return true
}
