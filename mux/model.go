package mux

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"wr/screen"
)

// maxModelLag bounds the output the model may fall behind by: past it the
// PTY reader waits for the feeder (catchUp).
const maxModelLag = 16 << 20

// model is a session's screen model, fed off the PTY reader's critical
// path: the reader only appends each chunk (and each resize) to pending,
// in the order it fans them out, and a feeder goroutine applies them; a
// little output after quiet (an echo) the fan-out draws itself once the
// clients have it (feedInline).
// Whoever needs the screen as the clients have it (a restore, a redraw, a
// capture) calls lockCaughtUp, which applies what is pending and returns
// holding mu and the session's mu with nothing pending, so the snapshot is
// exactly at the fan-out position.
//
// Lock order: model.mu before session.mu, never the other way round (the
// whole order is at the top of session.go).
// Neither lock that another session, wr ls or input needs is held while a
// backlog is drawn: the feeder and lockCaughtUp take the session's mu only
// to take a batch of ops off pending (a slice header, not the drawing),
// and draw it with model.mu alone. The session's mu is what wr ls (info),
// fan-out, input and the size rules take; none of them ever waits for
// model.mu (feedInline only tries it).
type model struct {
	mu       sync.Mutex     // held while feeding, and by lockCaughtUp's caller
	scr      *screen.Screen // guarded by mu
	batch    [][]byte       // applyLocked's, kept between calls; guarded by mu
	yielding bool           // the feeder is applying: let others run now and then; guarded by mu
	catching bool           // lockCaughtUp is applying: let others run even while someone waits; guarded by mu
	yielded  time.Time      // when the feeder last let others run; guarded by mu

	sessionMu *sync.Mutex // the session's mu, which guards the fields below

	// Guarded by the session's mu.
	pending  []modelOp
	timer    feedTimer // kicks the feeder feedDelay after an op
	timerSet bool      // the timer is running
	inline   bool      // pending is the fan-out's to draw (feedInline)
	pushed   int64     // bytes ever pushed
	tickMark int64     // pushed when the timer was armed or last ticked
	stopped  bool      // the session has ended: feed no more

	// lag is the bytes pushed and not yet drawn or discarded: added by
	// pushLocked, taken off by applyLocked and discard. Read without a lock
	// by the PTY reader (maxModelLag) and the memory release.
	lag atomic.Int64

	// The feeder is a goroutine started on demand and gone once nothing is
	// pending, so an idle session costs no goroutine for its model.
	feeding atomic.Bool  // a feeder is running
	kicked  atomic.Bool  // there may be ops the running feeder has not taken
	passes  atomic.Int64 // batches the feeder has applied, for tests

	// hold, while lockCaughtUp draws a backlog, is a channel the PTY reader
	// waits on before it fans out its next chunk, closed when the model has
	// caught up: the backlog then only shrinks, so the catch-up ends and
	// finishes with nothing left to draw under the session's mu. Only the
	// session being caught up waits (as it does on a full terminal). The
	// channel is made, stored, and closed (once) by lockCaughtUp, under
	// both locks; the reader waits on it (awaitCatchUp) holding none.
	hold atomic.Pointer[chan struct{}]

	// dropped reports that the session is being killed: what is pending is
	// discarded, never drawn, and no more is queued. nil: never.
	dropped func() bool

	answer    func(p []byte) // writes the model's answers to the PTY; called by the feeder with no lock held
	replies   []byte         // guarded by mu
	answering bool           // guarded by mu: the op being drawn is one the model answers (modelOp.answers)

	// typing and self, when set, put a flood's drawing on a short lead
	// while a person types in another session (typing.go): while the
	// session's reader is in a burst (flooding, set by the reader) or the
	// model is feedBurst or more behind (what a reader read before it
	// went quiet: a cat that is done, a stream read faster than drawn).
	// pace is the lead's (guarded by mu); waiters counts lockCaughtUp
	// callers, whom the lead never holds up.
	typing   *typist
	self     *session
	flooding atomic.Bool
	pace     floodPace
	waiters  atomic.Int32

	clock feedClock // the pacing's time; tests drive it by hand
}

// feedClock is the time the feeder is paced by: when to let others run,
// and when to look at a burst again. Tests replace it so that pacing is
// checked by counting what the feeder did, not by timing it.
type feedClock struct {
	now       func() time.Time
	sleep     func(time.Duration)
	afterFunc func(time.Duration, func()) feedTimer
}

// feedTimer is the part of *time.Timer the feeder uses.
type feedTimer interface {
	Reset(time.Duration) bool
	Stop() bool
}

var realClock = feedClock{
	now:       time.Now,
	sleep:     time.Sleep,
	afterFunc: func(d time.Duration, f func()) feedTimer { return time.AfterFunc(d, f) },
}

// modelOp is output to feed, or (chunk nil) a resize.
type modelOp struct {
	chunk      []byte
	cols, rows int
	// answers marks a chunk whose queries the model answers: no terminal
	// that answers for the session was sent it (fanOut).
	answers bool
}

func newModel(cols, rows, scrollback int, sessionMu *sync.Mutex, answer func([]byte)) *model {
	m := &model{
		scr:       screen.New(cols, rows, scrollback),
		sessionMu: sessionMu,
		answer:    answer,
		clock:     realClock,
	}
	// With no terminal that answers for the session sent a chunk (nobody
	// attached, or fanOut says why), nobody answers its DA1, DA2 and
	// cursor-position queries, and a program started detached would hang
	// waiting; the model answers instead (modelOp.answers).
	// The server runs on one P (see main; a second only while a reader is
	// in a burst, procs.go), so a feeder drawing a megabyte of output that
	// cannot be skipped (coloured text) would hold every other session's
	// reader and writers off for milliseconds: Go polls the network only
	// when a P has nothing else to run, or every 10 ms. So
	// after feedSlice of drawing it sleeps for feedPause, which parks it
	// and lets the scheduler poll. (runtime.Gosched would not: the feeder
	// goes back on the run queue, which is served before the poll; nor
	// would a sleep too short to outlast the scheduler's way to the poll,
	// as expired timers are run first.) With nothing else to run the sleep
	// can last a millisecond; only the model's catching up waits for it.
	// The feeder yields even while a lockCaughtUp caller waits for it to
	// finish: a batch of hostile output (a megabyte of REP, a truecolour
	// image) can take a second to draw, and drawing it without a pause
	// stalled every other session's echo and wr ls for that second (issue
	// 14); the attach waiting for that one session waits a little longer.
	// lockCaughtUp's own drawing of a backlog yields too (it holds no lock
	// the other sessions need, and its own session's reader is held back
	// anyway).
	m.scr.SetYield(yieldEvery, func() {
		if m.isDropped() {
			// Killed: the rest of the batch is never drawn (applyLocked).
			panic(errDropped)
		}
		if !m.catching && !m.yielding {
			return
		}
		// Only the feeder of a flood takes the lead (typing.go): a
		// session printing a little is drawn at once, and a restore or
		// capture waiting for the screen (waiters) must not wait seven
		// times longer because someone types elsewhere.
		led := m.yielding && m.waiters.Load() == 0 && (m.flooding.Load() || m.lag.Load() >= feedBurst) &&
			m.pace.step(m.typing, m.self, m.clock.now, m.clock.sleep)
		if led {
			m.scr.SetYieldEvery(ledYieldEvery)
			m.yielded = m.clock.now() // its own pauses are the lead's
			return
		}
		m.scr.SetYieldEvery(yieldEvery)
		if m.clock.now().Sub(m.yielded) >= feedSlice {
			m.clock.sleep(feedPause)
			m.yielded = m.clock.now()
		}
	})
	m.scr.SetReply(func(p []byte) {
		if m.answering {
			m.replies = append(m.replies, p...)
		}
	})
	return m
}

// yieldEvery is how many bytes of output the model draws between two looks
// at the clock; ledYieldEvery the same on a lead (typing.go), where a
// slice is 50 µs: 128 bytes are a few microseconds of most output and
// under 60 of the dearest (REP of 3,000 cells a sequence), against 1.3 ms
// for 4 KiB of REP. Not 128 all the time: drawn in pieces that small, 6 MB
// of REP took 11 s to draw instead of 4.7.
const (
	yieldEvery    = 4 << 10
	ledYieldEvery = 128
)

// feedBurst, feedBatch and feedDelay pace the feeder. It never runs once
// per PTY read: waking it for every keystroke's echo would put a third
// goroutine on the echo's critical path. Output after quiet of up to
// inlineFeedMax (an echo, a prompt) is drawn by the fan-out (feedInline);
// more (a query the model may have to answer among it) is applied
// feedDelay after it came, unless
// more than feedBurst came in that time: a burst (a cat) is left to build
// up to feedBatch, or until it slows, because the model skips most of a
// large batch of plain text that scrolls away (screen.WriteBatch). What has
// not been applied yet is applied on demand by whoever needs the screen
// (lockModel).
const (
	feedSlice = 500 * time.Microsecond
	feedPause = 50 * time.Microsecond
	feedBurst = 16 << 10
	feedBatch = 1 << 20
	feedDelay = 2 * time.Millisecond
)

// isDropped reports whether the session's output is no longer drawn.
func (m *model) isDropped() bool { return m.dropped != nil && m.dropped() }

// pushLocked queues an op. Called with the session's mu held. When it
// reports drawInline, the caller calls feedInline once it has let go of
// the mu, or a little output after quiet is not drawn until someone needs
// the screen.
func (m *model) pushLocked(op modelOp) (drawInline bool) {
	if m.stopped || m.isDropped() {
		return false
	}
	m.pending = append(m.pending, op)
	m.pushed += int64(len(op.chunk))
	lag := m.lag.Add(int64(len(op.chunk)))
	switch {
	case lag >= feedBatch:
		m.kick()
	case lag == int64(len(op.chunk)) && len(op.chunk) > 0 && len(op.chunk) <= inlineFeedMax && !m.timerSet:
		// A little output after quiet (an echo, a prompt): the fan-out
		// draws it itself once the clients have it (feedInline).
		m.inline = true
		return true
	case !m.timerSet:
		m.timerSet = true
		m.tickMark = m.pushed
		if m.timer == nil {
			m.timer = m.clock.afterFunc(feedDelay, m.tick)
		} else {
			m.timer.Reset(feedDelay)
		}
	}
	return false
}

// inlineFeedMax is the most output, after quiet, that the goroutine
// fanning it out draws itself (feedInline) rather than leaving it to the
// feeder feedDelay later. Arming that timer for each keystroke's echo cost
// the server a wake-up of another thread (Go's timers wake the poller)
// and, 2 ms on, a timer goroutine and a feeder goroutine: a third of its
// CPU per echo, taken from the CPU the shell and the client echo on.
// Drawing a few hundred bytes costs microseconds.
const inlineFeedMax = 512

// feedInline draws what pushLocked left for the fan-out (inline), after
// the clients were sent it, so it is off the echo's critical path. It
// never waits for the model: if a feeder or a catch-up holds it, the
// feeder is kicked instead. Answers to queries go out through the feeder,
// never from here: writing the PTY from the reader could wait on a program
// that waits on its output being read.
func (m *model) feedInline() {
	m.sessionMu.Lock()
	if !m.inline {
		m.sessionMu.Unlock()
		return
	}
	m.inline = false
	if !m.mu.TryLock() {
		m.sessionMu.Unlock()
		m.kick()
		return
	}
	ops := m.pending
	m.pending = nil
	stopped := m.stopped || m.isDropped()
	m.sessionMu.Unlock()
	if stopped {
		m.discard(ops)
	} else {
		m.applyLocked(ops)
	}
	answer := len(m.replies) > 0
	m.mu.Unlock()
	if answer && !stopped {
		m.kick()
	}
}

// tick is the timer's: it kicks the feeder unless output is still coming
// fast (more than feedBurst since the last tick) and the batch is not full
// yet, in which case it looks again in another feedDelay.
func (m *model) tick() {
	m.sessionMu.Lock()
	since := m.pushed - m.tickMark
	m.tickMark = m.pushed
	if since < feedBurst || m.lag.Load() >= feedBatch || m.stopped {
		m.sessionMu.Unlock()
		m.kick()
		return
	}
	m.timer.Reset(feedDelay)
	m.sessionMu.Unlock()
}

// kick makes sure a feeder will take what is pending: it starts one, or
// tells the running one to look again before it goes.
func (m *model) kick() {
	m.kicked.Store(true)
	if m.feeding.CompareAndSwap(false, true) {
		go m.feed()
	}
}

// stopLocked ends feeding for a session that has ended, discarding whatever is
// still pending. Called with the session's mu held.
func (m *model) stopLocked() {
	m.stopped = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.discard(m.pending)
	m.pending = nil
}

// discard drops ops without drawing them.
func (m *model) discard(ops []modelOp) {
	var n int64
	for _, op := range ops {
		n += int64(len(op.chunk))
	}
	m.lag.Add(-n)
	clear(ops)
}

// syncLocked applies everything pending. Called with mu and the session's mu
// held, only where nothing but ops the caller itself just pushed (a
// resize) can be pending: the backlog is lockCaughtUp's.
func (m *model) syncLocked() {
	ops := m.pending
	m.pending = nil
	m.applyLocked(ops)
}

// lockCaughtUp takes mu and then the session's mu, and returns holding both
// with nothing pending: the screen exactly as every client has it. The
// backlog is drawn in batches (splitBatch) with mu alone: the session's mu
// is held only to take each batch off pending. While a backlog is drawn,
// the session's PTY reader holds its next chunk back (hold), so the
// backlog shrinks to nothing and the catch-up ends, however slow the
// drawing; the one chunk a reader may have been fanning out as the hold
// began is taken by the next batch. A session being killed draws nothing
// more: its backlog is discarded. A backlog of feedBatch or more is told to
// begin (with its size, outside the session's mu) before it is drawn.
func (m *model) lockCaughtUp(begin func(backlog int64)) {
	m.waiters.Add(1)
	defer m.waiters.Add(-1)
	m.mu.Lock()
	var held chan struct{}
	for {
		m.sessionMu.Lock()
		if len(m.pending) == 0 {
			break
		}
		if m.isDropped() {
			m.discard(m.pending)
			m.pending = nil
			break
		}
		first := held == nil
		if first {
			held = make(chan struct{})
			m.hold.Store(&held)
		}
		ops, rest := splitBatch(m.pending)
		m.pending = rest
		m.sessionMu.Unlock()
		if lag := m.lag.Load(); first && lag >= feedBatch && begin != nil {
			begin(lag)
		}
		m.catching, m.yielded = true, m.clock.now()
		m.applyLocked(ops)
		m.catching = false
	}
	if held != nil {
		// Under the session's mu: the reader's held chunk is fanned out
		// after the caller's critical section (a restore) or before it,
		// never into the middle of it.
		m.hold.Store(nil)
		close(held)
	}
}

// unlock releases what lockCaughtUp took. Answers to queries the catch-up
// drew (with nobody attached) go out through the feeder, as the feeder's
// own do.
func (m *model) unlock() {
	answer := len(m.replies) > 0
	m.sessionMu.Unlock()
	m.mu.Unlock()
	if answer {
		m.kick()
	}
}

// awaitCatchUp is the PTY reader's: it waits while a lockCaughtUp caller
// draws the backlog.
func (m *model) awaitCatchUp() {
	if h := m.hold.Load(); h != nil {
		<-*h
	}
}

// applyLocked feeds ops to the screen. Called with mu held. The chunks between
// two resizes go to the screen in one WriteBatch, which skips what a burst
// scrolls out of the scrollback anyway. For a session being killed it stops
// at the next yield (errDropped).
func (m *model) applyLocked(ops []modelOp) {
	var n int64
	for _, op := range ops {
		n += int64(len(op.chunk))
	}
	batch := m.batch[:0]
	defer func() {
		m.answering = false
		clear(batch)
		m.batch = batch[:0]
		m.lag.Add(-n)
		clear(ops)
		if r := recover(); r != nil && r != errDropped {
			panic(r)
		}
	}()
	for _, op := range ops {
		if op.chunk == nil || op.answers != m.answering {
			m.scr.WriteBatch(batch)
			batch = batch[:0]
			m.answering = op.answers
		}
		if op.chunk == nil {
			m.scr.Resize(op.cols, op.rows)
			continue
		}
		batch = append(batch, op.chunk)
	}
	m.scr.WriteBatch(batch)
}

// answerLastLocked marks the op pushed last as one whose queries the model
// answers (modelOp.answers). Called with the session's mu held, as
// pushLocked is, right after it.
func (m *model) answerLastLocked() {
	if n := len(m.pending); n > 0 && !m.stopped && !m.isDropped() {
		m.pending[n-1].answers = true
	}
}

// errDropped stops a batch being drawn for a session that is being killed:
// the screen's yield panics with it between two chunks (where the screen
// is as if the output had ended there, which nobody reads any more) and
// applyLocked recovers it. A batch of hostile output can take seconds to draw
// (minutes, for some streams, before the screen is made cheaper), and a
// killed session must not hold the server's one P, or its stop, for that.
var errDropped = errors.New("mux: the session is being killed")

// catchUp waits until the feeder has brought the lag down to half of
// maxModelLag. The PTY reader calls it: the reader is what must wait.
func (m *model) catchUp() {
	m.kick()
	for m.lag.Load() > maxModelLag/2 && !m.isDropped() {
		time.Sleep(time.Millisecond)
	}
}

// splitBatch takes the ops of one pass: about feedBatch bytes, so that a
// pass is one WriteBatch of a size that skips well and ends soon, however
// far the model has fallen behind.
func splitBatch(ops []modelOp) (batch, rest []modelOp) {
	n := 0
	for i, op := range ops {
		n += len(op.chunk)
		if n >= feedBatch {
			return ops[:i+1], ops[i+1:]
		}
	}
	return ops, nil
}

// feed is the feeder: it applies what is pending until a pass finds no kick
// it has not answered. Ordering: kicked is cleared before the ops are
// taken, so a kick that comes after the take is seen when the feeder
// checks before leaving, and one that finds it gone starts another; a
// kick is never lost, so no op waits for the next output to be applied
// (an unanswered query would hang a program started detached).
func (m *model) feed() {
	if m.lag.Load() >= feedBatch {
		// A backlog (hostile output drawn long after it was read) is a
		// burst, as a reader's is (procs.go).
		burstBegins(m)
		defer burstEnds(m)
	}
	m.mu.Lock()
	m.yielded = m.clock.now()
	m.mu.Unlock()
	for {
		m.kicked.Store(false)
		m.mu.Lock()
		m.sessionMu.Lock()
		ops, rest := splitBatch(m.pending)
		m.pending = rest
		if len(rest) > 0 {
			m.kicked.Store(true) // the next pass takes the rest
		}
		m.timerSet, m.inline = false, false
		stopped := m.stopped || m.isDropped()
		m.sessionMu.Unlock()
		if stopped {
			m.discard(ops)
		} else {
			m.pace = floodPace{}
			m.yielding = true
			m.applyLocked(ops)
			m.yielding = false
			m.passes.Add(1)
		}
		replies := m.replies
		m.replies = nil
		m.mu.Unlock()
		if len(replies) > 0 && !stopped {
			m.answer(replies)
		}
		m.feeding.Store(false)
		if !m.kicked.Load() || !m.feeding.CompareAndSwap(false, true) {
			return
		}
	}
}
