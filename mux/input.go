package mux

import (
	"errors"
	"fmt"
	"time"

	"wr/ptyproc"
)

// escWait is how long a lone ESC at the end of a non-owner's frame waits for
// the rest of a report before it counts as an Escape keystroke.
const escWait = 25 * time.Millisecond

// input takes one frame of a client's input: it is classified (design
// section 6), and each run is forwarded by the rules of its kind. A
// read-only client's input is dropped.
func (ss *session) input(c *client, b []byte) error {
	if c.readOnly {
		return nil
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	c.escGen++
	if c.escTimer != nil {
		c.escTimer.Stop()
		c.escTimer = nil
	}
	ss.mu.Lock()
	owner := ss.owner == c
	ss.mu.Unlock()
	// The owner's input is never held back: nothing it sends needs
	// deciding, so it passes straight through. Unless it owes answers to
	// queries asked before it took the size: those are another client's
	// to give, and must be told from its keys.
	passthrough := owner && !c.classifier.owed.owesOthers(c.id)
	out, segs := c.classifier.classify(b, passthrough)
	// A lone ESC is held until the rest of a report could come; a
	// non-owner's is forwarded as a keystroke when escWait passes without
	// it (armLoneESC), the owner's went through already: Escape pressed
	// alone (vim) counts as typing at once.
	if c.terminal && (c.classifier.acted || passthrough && c.classifier.endsOnESC()) {
		ss.srv.typing.acted(ss)
	}
	if len(c.classifier.answered) > 0 {
		// Answers that went out undecided, as the owner's: the ledger
		// must know, or another client's answer to the same query would
		// go too.
		ss.mu.Lock()
		for _, q := range c.classifier.answered {
			if asked := ss.asked.find(q.seq, time.Now()); asked != nil {
				asked.answered = true
			}
		}
		ss.mu.Unlock()
	}
	if err := ss.forward(c, out, segs); err != nil {
		return err
	}
	if !passthrough {
		ss.armLoneESC(c)
	}
	return nil
}

// armLoneESC starts the lone-ESC timer if the classifier holds a lone
// ESC: with nothing after it in time, it was typed. Called with c.inMu
// held.
func (ss *session) armLoneESC(c *client) {
	if !c.classifier.loneESC() {
		return
	}
	gen := c.escGen
	c.escTimer = time.AfterFunc(escWait, func() {
		c.inMu.Lock()
		defer c.inMu.Unlock()
		if c.escGen == gen {
			out, segs := c.classifier.resolveESC()
			if c.terminal && c.classifier.acted {
				ss.srv.typing.acted(ss)
			}
			_ = ss.forward(c, out, segs)
		}
	})
}

// forward writes classified runs to the PTY in order. An acting run claims
// the size first, so the application sees the new size before the input
// that claimed it. A report goes through only from the client that answers
// for the session, so a query asked once is answered once.
func (ss *session) forward(c *client, out []byte, segs []segment) error {
	for _, s := range segs {
		run := out[s.start:s.end]
		switch s.kind {
		case inputAct:
			ss.mu.Lock()
			ss.sizeActLocked(c)
			ss.mu.Unlock()
		case inputReport:
			ss.mu.Lock()
			answers := ss.answererLocked() == c
			ss.mu.Unlock()
			if !answers {
				continue
			}
		case inputAnswer:
			ss.mu.Lock()
			goes := ss.answerGoesLocked(c, s.query, run, time.Now())
			ss.mu.Unlock()
			if !goes {
				continue
			}
		case inputPassive:
			// The wheel over a client drawn at another size points at the
			// cell it shows, which is not the screen's.
			ss.mu.Lock()
			if c.view != nil && !c.view.MousePixels() {
				dx, dy := c.view.Offset()
				run = viewMouse(nil, run, dx, dy, ss.cols, ss.rows)
			}
			ss.mu.Unlock()
			if len(run) == 0 {
				continue
			}
		case inputOwner:
			// Forwarded as the owner: it needs no deciding, and must not
			// take the size back if another client claimed it meanwhile.
		}
		if err := ss.writePTY(run); err != nil {
			return err
		}
	}
	return nil
}

// answererLocked is the client whose terminal answers for the session: the
// size owner, or the earliest attached client that could own the size and
// is sent the program's bytes. A client drawn from the model at another
// size, or one with no terminal (a relay), never sees a query: chosen, it
// left the program without an answer. With none, the model answers
// (fanOut). Called with mu held.
func (ss *session) answererLocked() *client {
	if ss.owner != nil && ss.owner.view == nil {
		return ss.owner
	}
	for _, c := range ss.order {
		if c.canOwn() && c.view == nil {
			return c
		}
	}
	return nil
}

// answerGoesLocked decides whether c's answer (run) to query q reaches the
// program: the first answer from the client that answered for the session
// when it was asked does, and no other, whoever owns the size by now. If
// that client left, or its copy of the query was dropped unsent (it fell
// behind), it will not answer, and the first answer from any client that
// was sent the query goes; one that came while it was still to answer was
// held, and goes then (heldAnswersLocked). The model's own answers
// (answeredByWr) are the only ones. An answer to a query the ledger no
// longer holds (it lapsed, or was pushed out by a flood of them) or never
// did (an older server's) goes from the client that answers now. Called
// with mu held.
func (ss *session) answerGoesLocked(c *client, q owedAnswer, run []byte, now time.Time) bool {
	asked := ss.asked.find(q.seq, now)
	if asked == nil {
		return ss.answererLocked() == c
	}
	switch {
	case asked.answered || asked.answerer == answeredByWr:
		return false
	case asked.answerer == c.id:
	case asked.lost:
	default:
		if a := ss.clients[asked.answerer]; a != nil && !a.leaving() {
			asked.hold(run) // its answer is to come
			return false
		}
	}
	asked.answered, asked.held = true, nil
	return true
}

// heldAnswersLocked sends the program the answers held for queries whose
// answerer will not answer after all (answerGoesLocked). They go before
// whatever is written to the PTY next (writePTYBy), so an answer given
// later (a DA1, which programs send last to know the answers are in) never
// comes before them; and a goroutine writes them if nothing else does: the
// caller holds mu, and a write to the PTY may wait. Called with mu held.
func (ss *session) heldAnswersLocked(held []byte) {
	if len(held) == 0 {
		return
	}
	ss.heldMu.Lock()
	ss.heldOut = append(ss.heldOut, held...)
	ss.heldSome.Store(true)
	ss.heldMu.Unlock()
	go func() { _ = ss.writePTY(nil) }()
}

// takeHeldOut takes the answers heldAnswersLocked left to be written.
func (ss *session) takeHeldOut() []byte {
	if !ss.heldSome.Load() {
		return nil
	}
	ss.heldMu.Lock()
	defer ss.heldMu.Unlock()
	held := ss.heldOut
	ss.heldOut = nil
	ss.heldSome.Store(false)
	return held
}

// writePTY writes b to the PTY whole; inputs never interleave.
func (ss *session) writePTY(b []byte) error {
	_, err := ss.writePTYBy(b, time.Time{})
	return err
}

// errInputBusy is a deadline that passed before the PTY was free to write.
var errInputBusy = errors.New("the session's input is held by another writer")

// writePTYBy is writePTY that gives up at deadline (zero: never), returning
// how much of b the program took: errInputBusy if another input held the PTY
// until then, os.ErrDeadlineExceeded if the program stopped taking b.
func (ss *session) writePTYBy(b []byte, deadline time.Time) (int, error) {
	if !ss.inputTurn().lockBy(deadline) {
		return 0, errInputBusy
	}
	defer ss.inputTurn().unlock()
	if held := ss.takeHeldOut(); len(held) > 0 {
		// Answers held for an answerer that will not answer: they keep
		// their place before anything written after them. One the
		// program does not take by deadline is lost with its input.
		if _, err := ss.proc.WriteAllBy(held, deadline); err != nil {
			return 0, err
		}
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, err := ss.proc.WriteAllBy(b, deadline)
	if errors.Is(err, ptyproc.ErrClosed) {
		err = fmt.Errorf("session %s has ended", ss.name())
	}
	return n, err
}

// turn is a mutex that can be waited for with a deadline.
type turn chan struct{}

func newTurn() turn { return make(turn, 1) }

// lockBy takes the turn, or gives up at deadline (zero: never) and
// reports false.
func (t turn) lockBy(deadline time.Time) bool {
	if deadline.IsZero() {
		t <- struct{}{}
		return true
	}
	select {
	case t <- struct{}{}:
		return true
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case t <- struct{}{}:
		return true
	case <-timer.C:
		return false
	}
}

func (t turn) unlock() { <-t }
