package mux

// The size-owner rules of design section 5. Every function here runs with
// the session's mu held (hence Locked), and applies a size to the PTY
// before returning, so a claim's new size reaches the application before
// the claimer's input. size_test.go has a case for each rule.

import "wr/screen"

// sizeAttachLocked: attaching takes ownership only when nobody owns the size.
func (ss *session) sizeAttachLocked(c *client) {
	if ss.owner == nil && c.canOwn() {
		ss.setOwnerLocked(c)
	}
}

// sizeResizeLocked records a client's size; only the owner's is applied.
func (ss *session) sizeResizeLocked(c *client, cols, rows int) {
	c.cols, c.rows = cols, rows
	defer ss.reviewViewsLocked() // the client's own size may now differ from the session's
	switch {
	case ss.owner == c && !c.canOwn():
		ss.owner = nil
	case ss.owner == c:
		ss.applySizeLocked(c)
	case ss.owner == nil && c.canOwn() && ss.soleCandidateLocked() == c:
		// A client that was 0x0 and now has a size, the only one that
		// could own it.
		ss.setOwnerLocked(c)
	}
}

// sizeActLocked: a person acted through c; it claims the size if it can.
func (ss *session) sizeActLocked(c *client) {
	if ss.owner != c && c.canOwn() && ss.clients[c.id] == c {
		ss.setOwnerLocked(c)
	}
}

// sizeDetachLocked: the owner leaving leaves the size unowned, unless exactly one
// client that could own it remains, which then owns it at once (closing one
// laptop must not strand the session at the size of a window nobody looks
// at).
func (ss *session) sizeDetachLocked(c *client) {
	if ss.owner != c {
		return
	}
	ss.owner = nil
	if last := ss.soleCandidateLocked(); last != nil {
		ss.setOwnerLocked(last)
	}
}

// soleCandidateLocked is the one client that could own the size, or nil
// when none or several could. Read-only watchers, recorders and relays
// (0x0) never can, so they do not count: a `wr record` or a `-r` watcher
// beside the one remaining terminal used to keep the size of the window
// that left until someone pressed a key.
func (ss *session) soleCandidateLocked() *client {
	var sole *client
	for _, c := range ss.clients {
		if !c.canOwn() {
			continue
		}
		if sole != nil {
			return nil
		}
		sole = c
	}
	return sole
}

func (ss *session) setOwnerLocked(c *client) {
	ss.owner = c
	ss.actedLocked(c)
	ss.applySizeLocked(c)
}

func (ss *session) applySizeLocked(c *client) {
	if c.cols == ss.cols && c.rows == ss.rows {
		return
	}
	if err := ss.ptySize.Resize(c.cols, c.rows); err != nil {
		ss.srv.logf("session %s: %v", ss.name(), err)
		return
	}
	ss.cols, ss.rows = c.cols, c.rows
	ss.model.pushLocked(modelOp{cols: c.cols, rows: c.rows})
	ss.sizeChangedLocked()
	ss.reviewViewsLocked() // each client is drawn or sent the bytes at this point
}

// clientSize bounds a size a client asked for (Attach, Resize): never
// negative, and never past what the screen model holds. Beyond it the PTY
// took up to 65535 columns while the model kept 4096, so the program drew
// for a width no client was shown, and wr ls showed the size asked.
func clientSize(cols, rows int) (int, int) {
	return min(max(cols, 0), screen.MaxCols), min(max(rows, 0), screen.MaxRows)
}
