package screen

import "github.com/charmbracelet/x/ansi"

// execute is the parser's Execute handler: C0 and C1 control characters.
func (s *Screen) execute(b byte) {
	s.joining, s.lastChar = false, 0
	switch b {
	case '\b':
		s.cursorBack(1)
	case '\t':
		s.tabForward(1)
	case '\n', '\v', '\f':
		s.lineFeed()
	case '\r':
		s.x, s.pendingWrap = 0, false
	case 0x0e: // SO: invoke G1
		s.gl = 1
	case 0x0f: // SI: invoke G0
		s.gl = 0
	case 0x84: // IND
		s.index()
	case 0x85: // NEL
		s.nextLine()
	case 0x88: // HTS
		s.writableTabs()[s.x] = true
	case 0x8d: // RI
		s.reverseIndex()
	case 0x8e: // SS2
		s.singleShift = 2
	case 0x8f: // SS3
		s.singleShift = 3
	}
}

// esc is the parser's handler for ESC sequences.
func (s *Screen) esc(cmd ansi.Cmd) {
	s.joining, s.lastChar = false, 0
	final := cmd.Final()
	switch inter := cmd.Intermediate(); inter {
	case 0:
		switch final {
		case '7':
			s.saveCursor()
		case '8':
			s.restoreCursor()
		case '=':
			s.modes.set(modeKeypad, true)
		case '>':
			s.modes.set(modeKeypad, false)
		case 'D':
			s.index()
		case 'E':
			s.nextLine()
		case 'H':
			s.writableTabs()[s.x] = true
		case 'M':
			s.reverseIndex()
		case 'N':
			s.singleShift = 2
		case 'O':
			s.singleShift = 3
		case 'c':
			s.fullReset()
		case 'n':
			s.gl = 2
		case 'o':
			s.gl = 3
		}
	case '(', ')', '*', '+':
		s.designate(int(inter-'('), final)
	case '#':
		if final == '8' {
			s.alignmentTest()
		}
	}
}

// lineFeed is LF, VT and FF: down one line (scrolling at the bottom margin),
// and to the first column only in LNM.
func (s *Screen) lineFeed() {
	s.index()
	if s.modes.has(modeNewline) {
		s.x = 0
	}
}

// index moves the cursor down a line, scrolling the region up when the
// cursor is on its bottom margin.
func (s *Screen) index() {
	s.pendingWrap = false
	if s.y == s.bottom-1 {
		s.scrollUp(1)
	} else if s.y < s.rows-1 {
		s.y++
	}
}

// reverseIndex moves the cursor up a line, scrolling the region down when
// the cursor is on its top margin.
func (s *Screen) reverseIndex() {
	s.pendingWrap = false
	if s.y == s.top {
		s.g.scrollRegionDown(s.top, s.bottom, 1, s.cols, s.blank())
	} else if s.y > 0 {
		s.y--
	}
}

func (s *Screen) nextLine() {
	s.index()
	s.x = 0
}

// scrollUp scrolls the region up n lines. Lines leave through the top of
// the screen into the scrollback when the region's top margin is the first
// row and the primary screen is active (the alternate grid has no
// scrollback), whatever the bottom margin, as in xterm: a program that
// keeps a status line at the bottom (apt's progress bar) still leaves the
// lines it scrolls in the scrollback. A region below the first row never
// feeds it.
func (s *Screen) scrollUp(n int) {
	if s.top == 0 && (s.bottom == s.rows || s.g.maxHistory > 0) {
		blank := s.blank()
		for range min(n, s.bottom) {
			s.g.scrollUp(s.cols, blank)
			if s.bottom < s.rows {
				// The rows below the region moved up with the rest: move
				// them back down over the fresh blank line.
				s.g.rotateDown(s.bottom-1, s.rows)
			}
		}
		return
	}
	s.g.scrollRegionUp(s.top, s.bottom, n, s.cols, s.blank())
}

// tabForward moves to the n-th next tab stop, or the last column.
func (s *Screen) tabForward(n int) {
	x := s.x
	for ; n > 0 && x < s.cols-1; n-- {
		x++
		for x < s.cols-1 && !s.tabs[x] {
			x++
		}
	}
	if x != s.x {
		s.x, s.pendingWrap = x, false
	}
}

// tabBackward moves to the n-th previous tab stop, or the first column.
func (s *Screen) tabBackward(n int) {
	x := s.x
	for ; n > 0 && x > 0; n-- {
		x--
		for x > 0 && !s.tabs[x] {
			x--
		}
	}
	if x != s.x {
		s.x, s.pendingWrap = x, false
	}
}
