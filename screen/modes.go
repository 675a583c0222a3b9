package screen

// mode is one of the modes a restore must reproduce.
type mode uint8

const (
	modeCursorKeys      mode = iota // DECCKM ?1
	modeReverseVideo                // DECSCNM ?5
	modeOrigin                      // DECOM ?6
	modeAutowrap                    // DECAWM ?7
	modeCursorBlink                 // ?12
	modeCursorVisible               // DECTCEM ?25
	modeMouseX10                    // ?9
	modeMouseNormal                 // ?1000
	modeMouseHighlight              // ?1001
	modeMouseButton                 // ?1002
	modeMouseAny                    // ?1003
	modeFocus                       // ?1004
	modeMouseUTF8                   // ?1005
	modeMouseSGR                    // ?1006
	modeAlternateScroll             // ?1007
	modeMouseURXVT                  // ?1015
	modeMouseSGRPixels              // ?1016
	modeBracketedPaste              // ?2004
	modeKeypad                      // DECKPAM (ESC =) / DECNKM ?66
	modeInsert                      // IRM 4
	modeNewline                     // LNM 20
)

type modeSet uint32

func (m modeSet) has(x mode) bool { return m&(1<<x) != 0 }

func (m *modeSet) set(x mode, on bool) {
	if on {
		*m |= 1 << x
	} else {
		*m &^= 1 << x
	}
}

var defaultModes = modeSet(1<<modeAutowrap | 1<<modeCursorVisible)

// decModes maps DEC private mode numbers that are plain flags to their mode,
// in the order a restore sets them (mouse tracking modes in increasing order,
// so the terminal ends in the highest one set, as the application's own
// usual order does).
var decModes = []struct {
	num  int
	mode mode
}{
	{1, modeCursorKeys},
	{5, modeReverseVideo},
	{12, modeCursorBlink},
	{9, modeMouseX10},
	{1000, modeMouseNormal},
	{1001, modeMouseHighlight},
	{1002, modeMouseButton},
	{1003, modeMouseAny},
	{1004, modeFocus},
	{1005, modeMouseUTF8},
	{1006, modeMouseSGR},
	{1007, modeAlternateScroll},
	{1015, modeMouseURXVT},
	{1016, modeMouseSGRPixels},
	{2004, modeBracketedPaste},
	{66, modeKeypad},
}

func (s *Screen) setDecMode(num int, on bool) {
	switch num {
	case 3:
		// DECCOLM: the width is the client's to choose, so it stays, but
		// the rest happens as on a VT100 and in tmux (vttest relies on
		// it): the margins reset, the screen is erased, the cursor homed.
		s.top, s.bottom = 0, s.rows
		s.eraseDisplay(2)
		s.home()
		return
	case 6:
		s.modes.set(modeOrigin, on)
		s.home()
		return
	case 7:
		// A pending wrap stays, unused while autowrap is off, for the
		// next character once it is on again (xterm).
		s.modes.set(modeAutowrap, on)
		return
	case 25:
		s.modes.set(modeCursorVisible, on)
		return
	case 47:
		s.switchScreen(on)
		return
	case 1047:
		// As xterm, the alternate screen is cleared on the way out (which
		// also ends a pending wrap). Unlike xterm, on the way in too: a
		// restore draws only the screen shown, so a terminal attached
		// later could not show what another program left there, and a
		// program entering it wants it blank anyway. Only 47 shows what
		// was left.
		if !on && s.onAlt {
			s.eraseDisplay(2)
		}
		wasAlt := s.onAlt
		s.switchScreen(on)
		if on && !wasAlt {
			s.blankRows() // keeps a pending wrap, as xterm's switch does
		}
		return
	case 1048:
		if on {
			s.saveCursor()
		} else {
			s.restoreCursor()
		}
		return
	case 1049:
		// As xterm: save the cursor and clear the alternate screen each
		// time, even when already on it (a program run from another that
		// has it); restore the cursor each time, even from the primary
		// screen (a lone rmcup), from what ESC 7 or 1049 saved there.
		if on {
			s.saveCursor()
			s.switchScreen(true)
			s.eraseDisplay(2)
		} else {
			s.switchScreen(false)
			s.restoreCursor()
		}
		return
	}
	for _, m := range decModes {
		if m.num == num {
			s.modes.set(m.mode, on)
			return
		}
	}
}

func (s *Screen) setAnsiMode(num int, on bool) {
	switch num {
	case 4:
		s.modes.set(modeInsert, on)
	case 20:
		s.modes.set(modeNewline, on)
	}
}

// switchScreen makes the alternate (on) or primary screen active, as it
// was left. The cursor and pen are shared, as in xterm, a pending wrap
// included.
func (s *Screen) switchScreen(on bool) {
	if on == s.onAlt {
		return
	}
	if !on {
		s.onAlt, s.g = false, s.primary
		return
	}
	if s.alt == nil {
		s.alt = newGrid(s.rows, 0)
	}
	s.onAlt, s.g = true, s.alt
}

// home moves the cursor to the top left, of the scroll region in origin mode.
func (s *Screen) home() {
	s.x, s.y, s.pendingWrap = 0, 0, false
	if s.modes.has(modeOrigin) {
		s.y = s.top
	}
}

func (s *Screen) saveCursor() {
	s.g.saved = savedCursor{
		x: s.x, y: s.y, pendingWrap: s.pendingWrap,
		pen:      s.pen,
		charsets: s.charsets, gl: s.gl,
		origin: s.modes.has(modeOrigin),
		valid:  true,
	}
}

// restoreCursor restores what saveCursor saved, or the power-on cursor when
// nothing was saved, as xterm does.
func (s *Screen) restoreCursor() {
	sc := &s.g.saved
	if !sc.valid {
		*sc = savedCursor{}
	}
	s.x, s.y = min(sc.x, s.cols-1), min(sc.y, s.rows-1)
	s.pendingWrap = sc.pendingWrap
	s.pen = sc.pen
	s.penChanged()
	s.charsets, s.gl = sc.charsets, sc.gl
	s.modes.set(modeOrigin, sc.origin)
}

// Kitty keyboard protocol: CSI > flags u pushes, CSI < n u pops,
// CSI = flags ; how u sets.
const kittyFlagMask = 0x1f

func (k *kittyFlags) push(f int) {
	if len(k.stack) == maxKittyStack {
		copy(k.stack, k.stack[1:])
		k.stack = k.stack[:len(k.stack)-1]
	}
	k.stack = append(k.stack, k.flags)
	k.flags = uint8(f) & kittyFlagMask
}

func (k *kittyFlags) pop(n int) {
	for ; n > 0; n-- {
		if len(k.stack) == 0 {
			k.flags = 0
			return
		}
		k.flags = k.stack[len(k.stack)-1]
		k.stack = k.stack[:len(k.stack)-1]
	}
}

func (k *kittyFlags) set(f, how int) {
	f &= kittyFlagMask
	switch how {
	case 1:
		k.flags = uint8(f)
	case 2:
		k.flags |= uint8(f)
	case 3:
		k.flags &^= uint8(f)
	}
}

// softReset is DECSTR (CSI ! p). Like tmux, it leaves autowrap on.
func (s *Screen) softReset() {
	s.modes.set(modeCursorVisible, true)
	s.modes.set(modeInsert, false)
	s.modes.set(modeOrigin, false)
	s.modes.set(modeAutowrap, true)
	s.modes.set(modeKeypad, false)
	s.modes.set(modeCursorKeys, false)
	s.top, s.bottom = 0, s.rows
	s.charsets, s.gl, s.singleShift = [4]byte{}, 0, 0
	s.pen = style{}
	s.penChanged()
	s.g.saved = savedCursor{}
	// The cursor does not move, and a pending wrap stays, as in xterm.
}

// fullReset is RIS (ESC c): the power-on state, both screens blank. The
// scrollback and the title survive, as in xterm.
func (s *Screen) fullReset() {
	s.switchScreen(false)
	s.resetState()
	for _, g := range [2]*grid{s.primary, s.alt} {
		if g == nil {
			continue
		}
		for y := range s.rows {
			g.line(y).reset(s.cols, cell{})
		}
		g.saved = savedCursor{}
		g.kitty = kittyFlags{}
	}
}
