package mux

import (
	"time"

	"wr/screen"
	"wr/wire"
)

// Clients of another size (design section 5): a client whose terminal is
// the session's size is sent the program's bytes as they come (fanOut); any
// other client with a terminal is drawn from the screen model. Such a
// client has a view (client.view, a shadow of what its terminal shows), and
// fanOut, instead of queueing the chunk for it, arms its frame timer: at
// most frameInterval later the timer brings the model up to the fan-out
// position (lockModel) and queues the difference. So while output flows a
// drawn client gets about 60 updates a second, and the last state within
// a frame of the output stopping.
//
// The switches happen at exact points. Raw to drawn: the size rules give
// the client a view under the session's mu, so it is sent the chunks
// fanned out before, none after, and its first frame (a full drawing) is
// the model after them. Drawn to raw: the size rules only arm the frame;
// the frame, holding the model caught up and the session's mu, sends the
// last difference and the state a restore would leave (AppendViewHandoff),
// and drops the view, so the next chunk fanOut sends is the first raw one.

// frameInterval is the least time between two updates of a drawn client.
const frameInterval = time.Second / 60

// reviewViewsLocked gives every client whose terminal is not the session's
// size a view, and arms the frame of each drawn client, which either
// updates it or, when its size is now the session's, hands it back to the
// program's bytes. Called with the session's mu held, after each change of
// the session's size or a client's.
func (ss *session) reviewViewsLocked() {
	for _, c := range ss.order {
		if c.cols <= 0 || c.rows <= 0 {
			continue // a relay wants the program's bytes
		}
		same := c.cols == ss.cols && c.rows == ss.rows
		switch {
		case c.view == nil && same:
			continue
		case c.view == nil || c.viewCols != c.cols || c.viewRows != c.rows:
			// A new terminal size: its first frame (or its handoff, when
			// the new size is the session's) draws it whole.
			c.view, c.viewCols, c.viewRows = screen.NewView(c.cols, c.rows), c.cols, c.rows
		}
		ss.frameLocked(c)
	}
}

// frameLocked arms c's frame timer unless it is armed. Called with the
// session's mu held.
func (ss *session) frameLocked(c *client) {
	if c.frameArmed {
		return
	}
	c.frameArmed = true
	if c.frame == nil {
		c.frame = time.AfterFunc(frameInterval, func() { ss.drawFrame(c) })
	} else {
		c.frame.Reset(frameInterval)
	}
}

// drawFrame is the frame timer's: it draws c from the model. While little
// is pending, or when c is to be handed off (which must be at the fan-out
// position exactly), the model is brought up to the fan-out position first
// (lockModel). While output floods in, it is drawn as far as the feeder has
// got, and the frame is armed again until the model has caught up: a
// catch-up every frame would draw the flood in small batches, which skip
// less of what scrolls away (screen.WriteBatch), and slow the session.
func (ss *session) drawFrame(c *client) {
	m := ss.model
	if m.lag.Load() < feedBurst {
		m.lockCaughtUp(nil)
	} else {
		m.mu.Lock()
		ss.mu.Lock()
		if c.cols == ss.cols && c.rows == ss.rows {
			ss.mu.Unlock()
			m.mu.Unlock()
			m.lockCaughtUp(nil)
		}
	}
	defer ss.unlockModel()
	c.frameArmed = false
	if ss.ended || ss.clients[c.id] != c || c.view == nil {
		return
	}
	ss.drawLocked(c, false)
	if c.view != nil && len(m.pending) > 0 {
		ss.frameLocked(c) // drawn behind the fan-out: again until caught up
	}
}

// drawLocked queues what c's terminal needs to show the screen now: the
// handoff when its size is the session's, else an update of its view. A
// client that has not taken its last update yet is left for its writer to
// ask again once it has (resync): updates never pile up in a queue. Called
// with the model caught up (lockModel): the model's lock and the session's
// mu held.
func (ss *session) drawLocked(c *client, first bool) {
	scr := ss.model.scr
	if c.cols == ss.cols && c.rows == ss.rows {
		b := scr.AppendViewHandoff(nil, c.view)
		c.view = nil
		c.queueMu.Lock()
		c.lagging = false
		c.queueMu.Unlock()
		c.sendRedraw(b)
		return
	}
	if !first && c.behind() {
		return
	}
	if b := scr.AppendViewUpdate(nil, c.view); len(b) > 0 {
		c.sendRedraw(b)
	}
}

// behind reports whether c still has output queued, and if so marks it
// lagging, so that its writer asks for a redraw (resync) once it has
// written it.
func (c *client) behind() bool {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	for _, f := range c.queue {
		if f.t == wire.TypeOutput {
			c.lagging = true
			return true
		}
	}
	return false
}
