package mux

import "wr/wire"

// Scrollback without duplicates. A restore draws the scrollback so that the
// attaching terminal can scroll back through it; a terminal that was shown
// it before has it already. So the session remembers, per terminal (named
// by the client: wire.Attach.Terminal), how far into the scrollback it has
// been shown, as a count of lines pushed into the scrollback
// (screen.ScrolledOff), and a reattach from it draws the lines from there
// on. What a terminal has been shown: everything up to the count at its
// restore, and, while it stays attached, the lines that scroll off as it
// watches, which its own terminal scrolls into its own history. So the
// count is recorded again when it detaches, at the fan-out position (what
// it was sent), unless it had fallen behind and had output dropped, or its
// size was not the session's (then what it drew of the lines that scrolled
// is not known, and the record of its restore stands: a line may come
// twice, none is lost).

// maxShown bounds the terminals a session remembers: the most recently
// recorded ones are kept.
const maxShown = 16

// restoreRequest is what a client's restore draws, from its Attach.
type restoreRequest struct {
	terminal   string // wire.Attach.Terminal; "" for none
	screenOnly bool   // wire.Attach.Restore is RestoreScreen: no scrollback
}

func restoreRequestOf(req wire.Attach) restoreRequest {
	return restoreRequest{terminal: req.Terminal, screenOnly: req.Restore == wire.RestoreScreen}
}

// shownTerms is, for the last maxShown terminals recorded, the count of
// scrollback lines each has been shown up to, oldest record first. Guarded
// by the session's mu.
type shownTerms struct {
	ids  []string
	upTo []uint64
}

func (s *shownTerms) get(id string) (uint64, bool) {
	for i, t := range s.ids {
		if t == id {
			return s.upTo[i], true
		}
	}
	return 0, false
}

// set records n for id, as the newest record; the oldest goes past maxShown.
func (s *shownTerms) set(id string, n uint64) {
	for i, t := range s.ids {
		if t == id {
			s.ids = append(s.ids[:i], s.ids[i+1:]...)
			s.upTo = append(s.upTo[:i], s.upTo[i+1:]...)
			break
		}
	}
	if len(s.ids) == maxShown {
		s.ids, s.upTo = s.ids[1:], s.upTo[1:]
	}
	s.ids = append(s.ids, id)
	s.upTo = append(s.upTo, n)
}

// restoreLocked queues c's restore when it gets one (restore, and a
// terminal to draw on): the scrollback its terminal has not been shown
// (all of it for a terminal the session does not know), or none for
// --restore screen, then the screen. It records that c's terminal has now
// been shown the scrollback up to here. Called with the model caught up
// (lockModel).
func (ss *session) restoreLocked(c *client, restore bool) {
	restore = restore && c.cols > 0
	if !restore && c.restoreAsk.terminal == "" {
		return
	}
	ss.model.syncLocked() // the size may have just changed
	scr := ss.model.scr
	if restore {
		from := uint64(0)
		if c.restoreAsk.screenOnly {
			from = scr.ScrolledOff()
		} else if n, ok := ss.shown.get(c.restoreAsk.terminal); ok && c.restoreAsk.terminal != "" {
			from = n
		}
		c.sendRedraw(scr.AppendRestoreFrom(nil, from))
	}
	if c.restoreAsk.terminal != "" {
		ss.shown.set(c.restoreAsk.terminal, scr.ScrolledOff())
	}
}

// recordShownLocked records, as c leaves, that its terminal has been shown
// the scrollback up to the fan-out position, unless it may not have been
// (see above). Called with the model caught up (lockModel), before the size
// rules react to the leaving.
func (ss *session) recordShownLocked(c *client) {
	if c.restoreAsk.terminal == "" || c.cols != ss.cols || c.rows != ss.rows || c.isLagging() {
		return
	}
	ss.shown.set(c.restoreAsk.terminal, ss.model.scr.ScrolledOff())
}
