package screen

import "strconv"

// restorePrefix puts a terminal in an unknown state into a known one: the
// primary screen, default pen, full scroll region, every mode a restore may
// set turned off (autowrap on), ASCII character sets, no hyperlink, and an
// empty screen with the cursor home. The cursor stays hidden while the screen
// is drawn, inside a synchronized update for terminals that know ?2026.
const restorePrefix = "\x1b[?2026h" + terminalReset

// terminalReset brings a terminal in any state to a blank screen with the
// cursor hidden and home, no mode on, the default pen and charsets.
const terminalReset = "\x1b[?25l" +
	"\x1b[?1049l" +
	"\x1b[m" +
	"\x1b[r" +
	"\x1b[?1;5;6;9;12;66;1000;1001;1002;1003;1004;1005;1006;1007;1015;1016;2004l" +
	"\x1b[?7h" +
	"\x1b[4;20l" +
	"\x1b[>4;0m" +
	"\x1b>" +
	"\x1b(B\x1b)B\x1b*B\x1b+B\x0f" +
	"\x1b]8;;\x1b\\" +
	"\x1b[H\x1b[2J"

// AppendRestore appends to dst the bytes that make a terminal of the same
// size, in any state, show what this screen shows, and behave as it would
// for the output that follows: first a reset, then the scrollback (printed
// so that it scrolls off the top into the terminal's own scrollback), the
// primary screen, and, when the alternate screen is active, the switch to
// it and its contents (so the primary screen is right when the application
// leaves); then the saved cursor, scroll region, tab stops, cursor position
// (with a pending wrap), pen, character sets, modes, kitty keyboard flags,
// cursor style and visibility, title and working directory. It never emits
// a query.
//
// One state cannot be reproduced: origin mode with the cursor outside the
// scroll region, which only restoring a cursor saved before the region
// changed leads to. The cursor then lands on the region's nearest row.
func (s *Screen) AppendRestore(dst []byte) []byte {
	return s.AppendRestoreFrom(dst, 0)
}

// ScrolledOff counts the lines ever pushed into the primary screen's
// scrollback: each line a scroll pushes from the top of the screen, and
// each row a resize pushes up. It never goes down: lines dropped off the
// far end of a full scrollback, or cleared (ED 3), leave it alone, and rows
// a taller screen pulls back from the scrollback are counted again when
// they scroll off again. The scrollback's newest line is line
// ScrolledOff()-1 of them, and AppendRestoreFrom draws the scrollback from
// any such count on.
//
// After a change of width, whose reflow lays the scrollback out again in
// other rows, every row of the scrollback is counted again, as new, so a
// restore from a count taken before the change draws the whole scrollback.
// A batch that WriteBatch skips (it scrolls more than the whole scrollback
// away) counts as its line feeds: the exact count of its scrolls does not
// matter, as the part drawn after it pushes out everything the scrollback
// held before.
func (s *Screen) ScrolledOff() uint64 { return s.primary.pushed }

// AppendRestoreFrom is AppendRestore with only the scrollback lines from
// line from on (counted as ScrolledOff counts; those that have fallen off
// the far end are not there to draw). A terminal that was shown the
// scrollback up to from is brought up to date without a line twice;
// from = ScrolledOff() draws no scrollback, only the screen.
func (s *Screen) AppendRestoreFrom(dst []byte, from uint64) []byte {
	p := painter{s: s, b: append(dst, restorePrefix...), onTerminal: true}
	p.appendPrimary(from)
	if s.onAlt {
		p.appendAlt()
	}
	// Saved even when the application saved nothing: the terminal may hold
	// a cursor it saved before, which a DECRC or a lone rmcup would then
	// go back to, where the model goes home.
	p.appendDECSC(s.g.saved)
	// The scroll region goes after the saved cursors: they are set up with
	// the whole screen as the region, where a position in origin mode is
	// absolute, so a saved position outside today's region survives.
	p.b = appendRegion(p.b, s)
	p.b = appendTabStops(p.b, s.tabs)
	p.appendCursor()
	p.b = appendPen(p.b, s, &s.pen, p.cur)
	p.b = appendCharsets(p.b, s.charsets, s.gl)
	p.b = appendModes(p.b, s)
	p.b = appendCursorStyle(p.b, s)
	p.b = appendTitleAndCwd(p.b, s)
	return append(p.b, "\x1b[?2026l"...)
}

// appendPrimary draws the scrollback from line from on (see ScrolledOff)
// and the primary screen, one line after another: the terminal scrolls the
// scrollback off the top and ends showing the screen.
func (p *painter) appendPrimary(from uint64) {
	s, g := p.s, p.s.primary
	first := -g.history
	if from >= g.pushed {
		first = 0
	} else if n := g.pushed - from; n < uint64(g.history) {
		first = -int(n)
	}
	for y := first; y < s.rows; y++ {
		l := g.line(y)
		wrapsItself := p.paintLine(l.cells())
		p.setStyle(0) // before the line feed: a scroll fills with the pen's background
		if y == s.rows-1 {
			break
		}
		// A line autowrap continued is left for the terminal to wrap again,
		// so it knows the two rows are one line, when it was drawn to the
		// last column and the next line has something to draw.
		//
		// A wrap that came early (a wide character did not fit in the last
		// column, left blank) is left for the terminal to make again the
		// same way: the cursor goes to the last column, and the wide
		// character that starts the next line does not fit there.
		if l.wrapped && len(l.cells()) == s.cols {
			next := g.line(y + 1).cells()
			if trimmedEnd(next, false) > 0 {
				// The next line's first character makes the wrap where
				// it is printed, with the cursor where this line left
				// it, unless it is: a joiner, which would join the last
				// column's cell; a run drawn apart, whose erase and
				// cursor moves would act on this line; or in a style
				// with a background, which a wrap that scrolls would
				// fill the new line with. Then a space (a wide one for
				// an early wrap) in the default pen makes the wrap, and
				// the next line is drawn over it.
				_, joiner := s.wideJoinerAt(next, 0)
				spaced := joiner || s.joinedRun(next, 0, len(next)) > 0 ||
					s.styles.list[next[0].style()].bg != colorDefault
				if wrapsItself {
					if spaced {
						p.b = append(p.b, " \r"...)
					}
					continue
				}
				if l.early && next[0].flags&cellWide != 0 {
					p.b = append(p.b, "\x1b["...)
					p.b = strconv.AppendInt(p.b, int64(s.cols), 10)
					p.b = append(p.b, 'G')
					if spaced || !s.wideAlone(next[0]) {
						// A cluster wide only by its VS16 starts with a
						// narrow character, which fits in the last
						// column. (On a terminal that drops a wide
						// character in the last column instead, as x/vt
						// does, neither way draws these rows right.)
						p.b = append(p.b, "\u3000\r"...)
					}
					continue
				}
			}
		}
		p.b = append(p.b, "\r\n"...)
	}
}

// appendAlt switches to the alternate screen and draws it. ?1049h saves the
// cursor the application gets back when it leaves the alternate screen: it
// is set up first. So are the primary screen's kitty keyboard flags, which a
// terminal keeps per screen as this one does.
func (p *painter) appendAlt() {
	s, g := p.s, p.s.primary
	p.appendSaved(g.saved, g)
	p.b = appendKitty(p.b, &g.kitty)
	p.b = append(p.b, "\x1b[?1049h"...)
	p.afterSave(g.saved)
	// ?1049h cleared the screen with the saved pen's background, as xterm
	// does: cleared again with the default one, its blank rows are.
	p.b = append(p.b, "\x1b[2J"...)
	for y := range s.rows {
		cells := s.alt.line(y).cells()
		if trimmedEnd(cells, false) > 0 {
			p.b = appendCUP(p.b, y, 0)
			p.paintLine(cells)
			p.setStyle(0)
		}
	}
}

// appendDECSC makes the terminal save sc with DECSC (ESC 7), as the active
// screen has it saved.
func (p *painter) appendDECSC(sc savedCursor) {
	p.appendSaved(sc, p.s.g)
	p.b = append(p.b, "\x1b7"...)
	p.afterSave(sc)
}

// appendRegion sets the scroll region when it is not the whole screen.
func appendRegion(b []byte, s *Screen) []byte {
	if s.top == 0 && s.bottom == s.rows {
		return b
	}
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(s.top+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(s.bottom), 10)
	return append(b, 'r')
}

// appendTabStops clears every tab stop and sets the ones in tabs.
func appendTabStops(b []byte, tabs []bool) []byte {
	b = append(b, "\x1b[3g"...)
	for x, stop := range tabs {
		if stop {
			b = append(b, "\x1b["...)
			b = strconv.AppendInt(b, int64(x+1), 10)
			b = append(b, "G\x1bH"...)
		}
	}
	return b
}

// appendCursor sets origin mode and places the cursor, with its wrap pending
// when the screen's is. Origin mode goes first because setting it homes the
// cursor.
func (p *painter) appendCursor() {
	s := p.s
	if s.modes.has(modeOrigin) {
		p.b = append(p.b, "\x1b[?6h"...)
	}
	// Outside the region in origin mode (the state AppendRestore cannot
	// reproduce), a position above the region would be a negative CUP,
	// which a terminal prints as text, and a redrawn last column would land
	// on another row: the cursor is only placed, on the nearest row.
	outside := s.modes.has(modeOrigin) && (s.y < s.top || s.y >= s.bottom)
	if s.pendingWrap && !outside {
		p.appendPendingWrap(s.g, s.y, s.originTop())
	} else {
		p.b = appendCUP(p.b, max(s.y-s.originTop(), 0), s.x)
	}
}

// appendPendingWrap leaves the terminal's cursor in the last column of row
// y of g with its wrap pending, as printing that column's character does:
// it draws the character again from its first column. top is the row CUP
// counts from (the region's top in origin mode).
func (p *painter) appendPendingWrap(g *grid, y, top int) {
	s := p.s
	cells := g.line(y).cells()
	if len(cells) < s.cols {
		// Blank past its last cell; the cursor still goes there.
		cells = append(make([]cell, 0, s.cols), cells...)[:s.cols]
	}
	x := s.cols - 1
	if cells[x].flags&cellWideTail != 0 && x > 0 && cells[x-1].flags&cellWide != 0 {
		x--
	}
	if s.joinsLeft(cells, x) {
		// Drawn again, a joiner would join the cell before it (see
		// apart.go), and not even make the wrap pending: the cursor only
		// goes to the last column, with no wrap pending. Only a DECSC
		// could carry one past drawing that cell first, and the saved
		// cursor is the application's.
		p.b = appendCUP(p.b, y-top, s.cols-1)
		return
	}
	p.b = appendCUP(p.b, y-top, x)
	p.paintCells(cells, x, s.cols)
}

// appendModes sets the modes s has that the prefix turned off (and turns
// autowrap off when s has), then the kitty keyboard flags.
func appendModes(b []byte, s *Screen) []byte {
	for _, m := range decModes {
		if s.modes.has(m.mode) && m.mode != modeKeypad {
			b = append(b, "\x1b[?"...)
			b = strconv.AppendInt(b, int64(m.num), 10)
			b = append(b, 'h')
		}
	}
	if s.modes.has(modeKeypad) {
		b = append(b, "\x1b="...)
	}
	if !s.modes.has(modeAutowrap) {
		b = append(b, "\x1b[?7l"...)
	}
	if s.modes.has(modeInsert) {
		b = append(b, "\x1b[4h"...)
	}
	if s.modes.has(modeNewline) {
		b = append(b, "\x1b[20h"...)
	}
	if s.modifyOtherKeys != 0 {
		b = append(b, "\x1b[>4;"...)
		b = strconv.AppendInt(b, int64(s.modifyOtherKeys), 10)
		b = append(b, 'm')
	}
	return appendKitty(b, &s.g.kitty)
}

// appendCursorStyle sets the cursor style (DECSCUSR) and shows the cursor
// when s does; the prefix hid it.
func appendCursorStyle(b []byte, s *Screen) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(s.cursorStyle), 10)
	b = append(b, " q"...)
	if s.modes.has(modeCursorVisible) {
		b = append(b, "\x1b[?25h"...)
	}
	return b
}

// appendTitleAndCwd sets the window title and its stack (see
// appendTitles) and the working directory (OSC 7) when s has them.
func appendTitleAndCwd(b []byte, s *Screen) []byte {
	b = appendTitles(b, s)
	if s.cwd != "" {
		b = appendOSC(b, 7, s.cwd)
	}
	return b
}

// originTop is the row CUP counts from: the top margin in origin mode.
func (s *Screen) originTop() int {
	if s.modes.has(modeOrigin) {
		return s.top
	}
	return 0
}

// paintLine draws a line from the cursor, which is at its first column, and
// reports whether it drew the last column last (so a terminal wrap is
// pending).
// Blank cells that end a line as wide as the screen and share a
// background-only style are drawn with EL, which paints the rest of the
// line with the pen's background; a line that ends before the edge is
// blank in the default style from there, which EL must not colour.
func (p *painter) paintLine(cells []cell) bool {
	end := trimmedEnd(cells, false)
	fill := end
	if end == len(cells) && end >= p.s.cols && cells[end-1].isBlank() && cells[end-1].flags == 0 {
		bg := cells[end-1].style()
		if st := p.s.styles.list[bg]; st == (style{bg: st.bg}) {
			for fill > 0 && cells[fill-1].style() == bg && cells[fill-1].isBlank() && cells[fill-1].flags == 0 {
				fill--
			}
		}
	}
	inOrder := p.paintCells(cells, 0, fill)
	if fill < end {
		p.setStyle(cells[fill].style())
		p.b = append(p.b, "\x1b[K"...)
		return false
	}
	return inOrder && end == len(cells) && end >= p.s.cols
}

// appendCUP moves the cursor to 0-based row, col.
func appendCUP(b []byte, row, col int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(row+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(col+1), 10)
	return append(b, 'H')
}

// appendPen sets the terminal's pen to st, given that it has the style
// with index cur.
func appendPen(b []byte, s *Screen, st *style, cur styleID) []byte {
	from := s.styles.list[cur]
	if from.link != st.link {
		b = appendLink(b, s, st.link)
	}
	noLink := *st
	noLink.link = from.link
	if noLink != from {
		b = appendSGR(b, st)
	}
	return b
}

// appendCharsets designates G0-G3 and invokes GL, from the prefix's state
// (all ASCII, G0 in GL).
func appendCharsets(b []byte, sets [4]byte, gl uint8) []byte {
	for i, set := range sets {
		if set != charsetASCII {
			b = append(b, 0x1b, "()*+"[i], set)
		}
	}
	switch gl {
	case 1:
		b = append(b, 0x0e) // SO
	case 2:
		b = append(b, "\x1bn"...)
	case 3:
		b = append(b, "\x1bo"...)
	}
	return b
}

// appendSaved sets up the terminal's cursor (with its wrap pending when
// sc's is), pen, character sets and origin mode as sc has them, for the
// DECSC or ?1049h that follows to save. g is the grid the terminal shows,
// whose last column is drawn again for a pending wrap.
func (p *painter) appendSaved(sc savedCursor, g *grid) {
	if !sc.valid {
		sc = savedCursor{}
	}
	if sc.origin {
		p.b = append(p.b, "\x1b[?6h"...)
	}
	if sc.pendingWrap && sc.x == p.s.cols-1 {
		// DECSC saves a pending wrap, and DECRC gives it back: without it
		// the application's next character after DECRC would overwrite
		// the last column instead of starting the next line. (A wrap
		// pending short of the last column, as the alternate screen's
		// saved cursor keeps it through a widening, as xterm's does,
		// cannot be drawn: it is saved without.)
		p.appendPendingWrap(g, sc.y, 0)
	} else {
		p.b = appendCUP(p.b, sc.y, sc.x)
	}
	p.b = appendPen(p.b, p.s, &sc.pen, p.cur)
	p.b = appendCharsets(p.b, sc.charsets, sc.gl)
}

// afterSave undoes appendSaved once the state is saved, back to the
// prefix's: default pen, no link, ASCII, origin mode off.
func (p *painter) afterSave(sc savedCursor) {
	p.b = append(p.b, "\x1b[m\x1b]8;;\x1b\\"...)
	p.cur = 0
	if sc.charsets != [4]byte{} || sc.gl != 0 {
		p.b = append(p.b, "\x1b(B\x1b)B\x1b*B\x1b+B\x0f"...)
	}
	if sc.origin {
		p.b = append(p.b, "\x1b[?6l"...)
	}
}

// appendKitty reproduces kitty keyboard flags and their stack.
func appendKitty(b []byte, k *kittyFlags) []byte {
	if k.flags == 0 && len(k.stack) == 0 {
		return b
	}
	all := append(k.stack[:len(k.stack):len(k.stack)], k.flags)
	for i, f := range all {
		if i == 0 {
			b = append(b, "\x1b[="...)
			b = strconv.AppendInt(b, int64(f), 10)
			b = append(b, ";1u"...)
		} else {
			b = append(b, "\x1b[>"...)
			b = strconv.AppendInt(b, int64(f), 10)
			b = append(b, 'u')
		}
	}
	return b
}
