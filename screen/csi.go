package screen

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// Answers to queries. The server forwards them to the application only when
// no terminal is attached to answer for itself.
var (
	replyDA1      = []byte("\x1b[?62;22c")  // VT220 with ANSI colour
	replyDA2      = []byte("\x1b[>1;10;0c") // VT220, firmware 1.0
	replyStatusOK = []byte("\x1b[0n")
)

// param returns parameter i, def when it is missing, clamped to maxParam.
func param(params ansi.Params, i, def int) int {
	if i >= len(params) {
		return def
	}
	v := params[i].Param(def)
	if v < 0 || v > maxParam {
		return maxParam
	}
	return v
}

// count returns parameter i as a count: missing or 0 means 1.
func count(params ansi.Params, i int) int {
	return max(param(params, i, 1), 1)
}

// csi is the parser's handler for CSI sequences.
func (s *Screen) csi(cmd ansi.Cmd, params ansi.Params) {
	// REP repeats only a character printed right before it, as in xterm:
	// any control between, REP's own included, leaves nothing to repeat.
	last := s.lastChar
	s.joining, s.lastChar = false, 0
	final := cmd.Final()
	if inter := cmd.Intermediate(); inter != 0 {
		switch {
		case inter == ' ' && final == 'q' && cmd.Prefix() == 0: // DECSCUSR
			if n := param(params, 0, 0); n <= 6 {
				s.cursorStyle = n
			}
		case inter == '!' && final == 'p' && cmd.Prefix() == 0: // DECSTR
			s.softReset()
		}
		return
	}
	switch cmd.Prefix() {
	case 0:
		if final == 'b' { // REP
			s.repeat(last, count(params, 0))
			return
		}
		s.csiPlain(final, params)
	case '?':
		switch final {
		case 'h', 'l':
			for i := range params {
				s.setDecMode(param(params, i, 0), final == 'h')
			}
		case 'J': // DECSED: selective erase, treated as ED
			s.eraseDisplay(param(params, 0, 0))
		case 'K': // DECSEL
			s.eraseLine(param(params, 0, 0))
		case 'n':
			if param(params, 0, 0) == 6 { // DECXCPR
				s.reportCursor(true)
			}
		}
	case '>':
		switch final {
		case 'c': // DA2
			if param(params, 0, 0) == 0 {
				s.replyWith(replyDA2)
			}
		case 'u':
			s.g.kitty.push(param(params, 0, 0))
		case 'm': // XTMODKEYS: only modifyOtherKeys (resource 4) is kept
			s.setModifyOtherKeys(params, true)
		case 'n': // XTMODKEYS disable
			s.setModifyOtherKeys(params, false)
		}
	case '<':
		if final == 'u' {
			s.g.kitty.pop(count(params, 0))
		}
	case '=':
		if final == 'u' {
			s.g.kitty.set(param(params, 0, 0), param(params, 1, 1))
		}
	}
}

func (s *Screen) csiPlain(final byte, params ansi.Params) {
	switch final {
	case '@': // ICH
		s.insertBlanks(count(params, 0))
	case 'A': // CUU
		s.cursorUp(count(params, 0))
	case 'B': // CUD
		s.cursorDown(count(params, 0))
	case 'e': // VPR: VPA relative to the cursor, which the margins do not stop (xterm)
		s.y = s.y + count(params, 0)
		if s.modes.has(modeOrigin) {
			s.y = min(s.y, s.bottom-1)
		} else {
			s.y = min(s.y, s.rows-1)
		}
		s.pendingWrap = false
	case 'C', 'a': // CUF, HPR
		s.cursorForward(count(params, 0))
	case 'D': // CUB
		s.cursorBack(count(params, 0))
	case 'E': // CNL
		s.cursorDown(count(params, 0))
		s.x = 0
	case 'F': // CPL
		s.cursorUp(count(params, 0))
		s.x = 0
	case 'G', '`': // CHA, HPA
		s.x, s.pendingWrap = min(count(params, 0), s.cols)-1, false
	case 'H', 'f': // CUP, HVP
		s.moveTo(count(params, 0)-1, count(params, 1)-1)
	case 'I': // CHT
		s.tabForward(count(params, 0))
	case 'J': // ED
		s.eraseDisplay(param(params, 0, 0))
	case 'K': // EL
		s.eraseLine(param(params, 0, 0))
	case 'L': // IL
		s.insertLines(count(params, 0))
	case 'M': // DL
		s.deleteLines(count(params, 0))
	case 'P': // DCH
		s.deleteChars(count(params, 0))
	case 'S': // SU
		s.scrollUp(count(params, 0))
	case 'T': // SD; with more parameters it is xterm's mouse highlight tracking
		// An explicit 0 scrolls nothing in xterm (SU's 0 is one line).
		if len(params) <= 1 && (len(params) == 0 || param(params, 0, 1) != 0) {
			s.g.scrollRegionDown(s.top, s.bottom, count(params, 0), s.cols, s.blank())
		}
	case 'X': // ECH
		s.eraseChars(count(params, 0))
	case 'Z': // CBT
		s.tabBackward(count(params, 0))
	case 'c': // DA1
		if param(params, 0, 0) == 0 {
			s.replyWith(replyDA1)
		}
	case 'd': // VPA
		row := count(params, 0) - 1
		if s.modes.has(modeOrigin) {
			s.y = min(s.top+row, s.bottom-1)
		} else {
			s.y = min(row, s.rows-1)
		}
		s.pendingWrap = false
	case 'g': // TBC
		switch param(params, 0, 0) {
		case 0:
			s.writableTabs()[s.x] = false
		case 3:
			clear(s.writableTabs())
		}
	case 'h', 'l': // SM, RM
		for i := range params {
			s.setAnsiMode(param(params, i, 0), final == 'h')
		}
	case 'm':
		s.sgr(params)
	case 'n': // DSR
		switch param(params, 0, 0) {
		case 5:
			s.replyWith(replyStatusOK)
		case 6:
			s.reportCursor(false)
		}
	case 'r': // DECSTBM
		top := count(params, 0)
		bottom := param(params, 1, 0)
		if bottom == 0 || bottom > s.rows {
			bottom = s.rows
		}
		if top < bottom {
			s.top, s.bottom = top-1, bottom
			s.home()
		}
	case 's': // SCOSC
		s.saveCursor()
	case 'u': // SCORC
		s.restoreCursor()
	case 't': // xterm window operations
		s.windowOp(param(params, 0, 0), param(params, 1, 0))
	}
}

// reportCursor answers CPR (or DECXCPR): 1-based, relative to the scroll
// region in origin mode.
func (s *Screen) reportCursor(private bool) {
	row := s.y + 1
	if s.modes.has(modeOrigin) {
		row -= s.top
	}
	b := append(s.replyBuf[:0], "\x1b["...)
	if private {
		b = append(b, '?')
	}
	b = strconv.AppendInt(b, int64(row), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(s.x+1), 10)
	b = append(b, 'R')
	s.replyBuf = b
	s.sendReply(b)
}

// moveTo is CUP: row and col are 0-based, relative to the scroll region in
// origin mode.
func (s *Screen) moveTo(row, col int) {
	if s.modes.has(modeOrigin) {
		s.y = min(s.top+row, s.bottom-1)
	} else {
		s.y = min(row, s.rows-1)
	}
	s.x = min(col, s.cols-1)
	s.pendingWrap = false
}

// cursorUp stops at the top margin when it starts at or below it (xterm).
func (s *Screen) cursorUp(n int) {
	limit := 0
	if s.y >= s.top {
		limit = s.top
	}
	s.y = max(s.y-n, limit)
	s.pendingWrap = false
}

// cursorDown stops at the bottom margin when it starts at or above it.
func (s *Screen) cursorDown(n int) {
	limit := s.rows - 1
	if s.y < s.bottom {
		limit = s.bottom - 1
	}
	s.y = min(s.y+n, limit)
	s.pendingWrap = false
}

func (s *Screen) cursorForward(n int) {
	s.x = min(s.x+n, s.cols-1)
	s.pendingWrap = false
}

func (s *Screen) cursorBack(n int) {
	s.x = max(s.x-n, 0)
	s.pendingWrap = false
}

// eraseRange blanks columns [from, to) of row y.
func (s *Screen) eraseRange(y, from, to int, blank cell) {
	l := s.g.line(y)
	if cs := l.cells(); blank == (cell{}) && to >= len(cs) && !l.wrapped {
		// Everything from the line's last cell on is blank already: the
		// line ends at from instead (a wrapped one keeps its cells to the
		// edge, see extend).
		if from < len(cs) {
			splitWide(cs, from)
			l.setCells(cs[:from])
		}
		return
	}
	cells := l.writable(s.cols)
	splitWide(cells, from)
	splitWide(cells, to)
	fillCells(cells[from:to], blank)
}

// blankRows blanks every row of the screen shown, with the pen's
// background, and leaves the cursor as it is.
func (s *Screen) blankRows() {
	blank := s.blank()
	for y := range s.rows {
		s.g.line(y).reset(s.cols, blank)
	}
}

// eraseDisplay is ED. ED 3 erases the scrollback only, as in xterm.
func (s *Screen) eraseDisplay(n int) {
	blank := s.blank()
	switch n {
	case 0:
		s.eraseLine(0)
		for y := s.y + 1; y < s.rows; y++ {
			s.g.line(y).reset(s.cols, blank)
		}
	case 1:
		for y := range s.y {
			s.g.line(y).reset(s.cols, blank)
		}
		s.eraseLine(1)
	case 2:
		s.blankRows()
		s.pendingWrap = false // as ED 0 and 1 do, through eraseLine
	case 3:
		s.primary.clearHistory()
	}
}

// eraseLine is EL. Each of its forms clears a pending wrap, as in xterm:
// a character printed after an erase from the last column lands there
// (tmux keeps the wrap for EL 1 and 2).
func (s *Screen) eraseLine(n int) {
	blank := s.blank()
	switch n {
	case 0:
		// Unwrapped first, so that the erase can cut the line short.
		s.g.line(s.y).wrapped = false
		s.eraseRange(s.y, s.x, s.cols, blank)
	case 1:
		s.eraseRange(s.y, 0, s.x+1, blank)
	case 2:
		s.g.line(s.y).reset(s.cols, blank)
	default:
		return
	}
	s.pendingWrap = false
}

// eraseChars is ECH: blank n cells from the cursor, which does not move.
func (s *Screen) eraseChars(n int) {
	s.eraseRange(s.y, s.x, min(s.x+n, s.cols), s.blank())
	s.pendingWrap = false
}

// insertBlanks is ICH: shift the rest of the line right by n blank cells;
// cells pushed past the right edge are lost.
func (s *Screen) insertBlanks(n int) {
	cells := s.g.line(s.y).writable(s.cols)
	x := s.x
	n = min(n, s.cols-x)
	splitWide(cells, x)
	copy(cells[x+n:], cells[x:s.cols-n])
	fillCells(cells[x:x+n], s.blank())
	if last := &cells[s.cols-1]; last.flags&cellWide != 0 {
		*last = blankCell(last.style()) // its second half fell off the edge
	}
	s.pendingWrap = false
}

// deleteChars is DCH: remove n cells at the cursor, shifting the rest of the
// line left and blanking the right end.
func (s *Screen) deleteChars(n int) {
	cells := s.g.line(s.y).writable(s.cols)
	x := s.x
	n = min(n, s.cols-x)
	splitWide(cells, x)
	splitWide(cells, x+n)
	copy(cells[x:], cells[x+n:])
	fillCells(cells[s.cols-n:], s.blank())
	s.pendingWrap = false
}

// insertLines is IL: inside the scroll region, push the lines from the
// cursor down by n; the cursor goes to the first column.
func (s *Screen) insertLines(n int) {
	if s.y < s.top || s.y >= s.bottom {
		return
	}
	s.g.scrollRegionDown(s.y, s.bottom, n, s.cols, s.blank())
	s.x, s.pendingWrap = 0, false
}

// deleteLines is DL: inside the scroll region, pull the lines below the
// cursor up by n. Deleted lines never go to the scrollback.
func (s *Screen) deleteLines(n int) {
	if s.y < s.top || s.y >= s.bottom {
		return
	}
	s.g.scrollRegionUp(s.y, s.bottom, n, s.cols, s.blank())
	s.x, s.pendingWrap = 0, false
}

// setModifyOtherKeys is xterm's CSI > Pp ; Pv m (set) and CSI > Pp n
// (disable) for Pp 4, modifyOtherKeys, the one key modifier resource an
// application turns on to get keys its terminal would otherwise merge (vim
// 9 sets 2). A missing Pv, or a missing Pp (all resources), resets it.
func (s *Screen) setModifyOtherKeys(params ansi.Params, set bool) {
	if len(params) == 0 || params[0].Param(-1) < 0 {
		s.modifyOtherKeys = 0
		return
	}
	if param(params, 0, 0) != 4 {
		return
	}
	v := param(params, 1, 0)
	if !set || v > 3 {
		v = 0
	}
	s.modifyOtherKeys = uint8(v)
}
