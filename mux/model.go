package mux

import (
	"sync"
	"sync/atomic"
	"time"

	"wr/screen"
)

// maxModelLag bounds the output the model may fall behind by before the PTY
// reader feeds it itself: the model must keep up, but not on every read.
const maxModelLag = 16 << 20

// model is a session's screen model, fed off the PTY reader's critical
// path: the reader only appends each chunk (and each resize) to pending,
// in the order it fans them out, and a feeder goroutine applies them.
// Whoever needs the screen as the clients have it (a restore, a redraw, a
// capture) takes mu, then the session's mu, and applies what is pending
// first, so the snapshot is exactly at the fan-out position.
//
// Lock order: model.mu before session.mu, never the other way round.
type model struct {
	mu  sync.Mutex // held while feeding
	scr *screen.Screen

	// Guarded by the session's mu.
	pending  []modelOp
	timer    *time.Timer  // wakes the feeder feedDelay after an op
	timerSet bool         // the timer is running
	lag      atomic.Int64 // bytes in pending

	wake    chan struct{}
	stop    chan struct{}
	nobody  func() bool    // no client attached: the model answers queries
	answer  func(p []byte) // writes the model's answers to the PTY
	replies []byte         // guarded by mu
}

// modelOp is output to feed, or (chunk nil) a resize.
type modelOp struct {
	chunk      []byte
	cols, rows int
}

func newModel(cols, rows, scrollback int, nobody func() bool, answer func([]byte)) *model {
	m := &model{
		scr:  screen.New(cols, rows, scrollback),
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
		nobody: nobody, answer: answer,
	}
	// With nobody attached no terminal answers the application's DA1, DA2
	// and cursor-position queries, and a program started detached would
	// hang waiting; the model answers instead.
	m.scr.SetReply(func(p []byte) {
		if m.nobody() {
			m.replies = append(m.replies, p...)
		}
	})
	return m
}

// feedBatch and feedDelay pace the feeder: it wakes once a batch has
// built up, or a moment after the first op, never once per PTY read.
// Waking it for every keystroke's echo would put a third goroutine on the
// echo's critical path; what it has not applied yet is applied on demand by
// whoever needs the screen (lockModel).
const (
	feedBatch = 64 << 10
	feedDelay = 2 * time.Millisecond
)

// push queues an op. Called with the session's mu held.
func (m *model) push(op modelOp) {
	m.pending = append(m.pending, op)
	lag := m.lag.Add(int64(len(op.chunk)))
	switch {
	case lag >= feedBatch:
		m.kick()
	case !m.timerSet:
		m.timerSet = true
		if m.timer == nil {
			m.timer = time.AfterFunc(feedDelay, m.kick)
		} else {
			m.timer.Reset(feedDelay)
		}
	}
}

func (m *model) kick() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// sync applies everything pending. Called with mu and the session's mu held.
func (m *model) sync() {
	ops := m.pending
	m.pending = nil
	m.apply(ops)
}

// apply feeds ops to the screen. Called with mu held.
func (m *model) apply(ops []modelOp) {
	var n int64
	for _, op := range ops {
		if op.chunk == nil {
			m.scr.Resize(op.cols, op.rows)
			continue
		}
		_, _ = m.scr.Write(op.chunk)
		n += int64(len(op.chunk))
	}
	m.lag.Add(-n)
	clear(ops)
}

// run is the feeder. sessionMu is the session's lock, which guards pending.
func (m *model) run(sessionMu *sync.Mutex) {
	for {
		select {
		case <-m.stop:
			return
		case <-m.wake:
		}
		m.mu.Lock()
		sessionMu.Lock()
		ops := m.pending
		m.pending = nil
		m.timerSet = false
		sessionMu.Unlock()
		m.apply(ops)
		replies := m.replies
		m.replies = nil
		m.mu.Unlock()
		if len(replies) > 0 {
			m.answer(replies)
		}
	}
}
