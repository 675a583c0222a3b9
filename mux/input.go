package mux

import "time"

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
	// deciding, so it passes straight through.
	out, segs := c.cls.classify(b, owner)
	if err := ss.forward(c, out, segs); err != nil {
		return err
	}
	if !owner && c.cls.loneESC() {
		gen := c.escGen
		c.escTimer = time.AfterFunc(escWait, func() {
			c.inMu.Lock()
			defer c.inMu.Unlock()
			if c.escGen == gen {
				out, segs := c.cls.resolveESC()
				_ = ss.forward(c, out, segs)
			}
		})
	}
	return nil
}

// forward writes classified runs to the PTY in order. An acting run claims
// the size first, so the application sees the new size before the input
// that claimed it. A report goes through only from the client that answers
// for the session, so a query asked once is answered once.
func (ss *session) forward(c *client, out []byte, segs []segment) error {
	for _, s := range segs {
		switch s.kind {
		case inputAct:
			ss.mu.Lock()
			ss.sizeAct(c)
			ss.mu.Unlock()
		case inputReport:
			ss.mu.Lock()
			answers := ss.answerer() == c
			ss.mu.Unlock()
			if !answers {
				continue
			}
		case inputOwner:
			// Forwarded as the owner: it needs no deciding, and must not
			// take the size back if another client claimed it meanwhile.
		}
		if err := ss.writePTY(out[s.start:s.end]); err != nil {
			return err
		}
	}
	return nil
}

// answerer is the client whose terminal answers for the session: the size
// owner, or with no owner the earliest attached client that may type.
// Called with mu held.
func (ss *session) answerer() *client {
	if ss.owner != nil {
		return ss.owner
	}
	for _, c := range ss.order {
		if !c.readOnly {
			return c
		}
	}
	return nil
}
