package screen

import "strconv"

// A View is what a terminal of another size than the screen shows of it,
// drawn from the model rather than from the program's bytes (design section
// 5, "Clients of another size"). It keeps a shadow of that terminal: at most
// one screen of cells at the terminal's size, the viewport's offset into the
// screen, where the terminal's cursor is and which modes it has. Each
// [Screen.AppendViewUpdate] sends only what changed since the last one.
//
// A smaller terminal shows a viewport of the screen that keeps the cursor
// in view, scrolled just enough when the cursor leaves it (as tmux does); a
// larger one shows the screen at its top left and the rest blank. The
// terminal is kept in a known state while it is drawn: the primary screen,
// insert mode and origin mode off, the whole screen as the scroll region,
// ASCII character sets, and the default pen between updates. Autowrap is
// on (a combining character drawn in the last column then joins that
// column's character, as a terminal without autowrap may not do), but
// nothing ever wraps: every run of cells starts with a cursor move, and a
// two-column character is never drawn in the last column. The
// modes that change what the terminal sends (cursor keys, keypad, mouse
// tracking, focus, bracketed paste, kitty's keyboard flags, modifyOtherKeys)
// and reverse video, cursor blink and the window title follow the screen's,
// so that keys typed into a drawn client mean what they would on the
// program's own terminal: the first of them takes the size, and reaches the
// program before the client is sent its bytes.
type View struct {
	cols, rows  int
	cells       []cell // the shadow: what the terminal shows, rows*cols
	row         []cell // scratch: the row being drawn
	ox, oy      int    // the viewport's top left in the screen
	curX, curY  int    // the terminal's cursor
	visible     bool   // the terminal shows its cursor
	modes       modeSet
	kitty       int    // the kitty keyboard flags the terminal has, -1 unknown
	otherKeys   int    // the terminal's modifyOtherKeys
	title       string // the window title the view set, if titleKnown
	titleKnown  bool
	compactions int  // the screen's when the shadow was taken: a compaction renumbers styles
	valid       bool // false: the next update clears the terminal and draws it all
	// openID and openText are the screen's open cluster entry when the
	// shadow was last drawn (-1: none) and its text then. A combining
	// character that comes after an update joins the open entry in place,
	// and its cells keep its number: a cell equal to the shadow's may show
	// more than the terminal does. Only that entry can change under the
	// same number until the next update (a closed entry never grows, and
	// close frees only the open one's number, which a later cluster may
	// take); a compaction renumbers entries and resets the shadow.
	openID   int32
	openText string
	// stale is openID while an update runs if that entry changed since
	// (-1 otherwise): its cells are drawn again.
	stale int32
}

// viewModes are the modes a drawn terminal mirrors.
const viewModes = modeSet(1<<modeCursorKeys | 1<<modeReverseVideo | 1<<modeCursorBlink |
	1<<modeMouseX10 | 1<<modeMouseNormal | 1<<modeMouseHighlight | 1<<modeMouseButton |
	1<<modeMouseAny | 1<<modeFocus | 1<<modeMouseUTF8 | 1<<modeMouseSGR |
	1<<modeAlternateScroll | 1<<modeMouseURXVT | 1<<modeMouseSGRPixels |
	1<<modeBracketedPaste | 1<<modeKeypad)

// viewPrefix puts a terminal in an unknown state into the drawn state, blank,
// with no mirrored mode set and the cursor hidden.
// It is restore's reset without the synchronized update, which a view
// update, sent whole in one frame, does not need.
const viewPrefix = terminalReset

// NewView returns the view of a terminal of cols x rows whose state is
// unknown: its first update draws it whole.
func NewView(cols, rows int) *View {
	cols, rows = clampSize(cols, rows)
	return &View{cols: cols, rows: rows, openID: -1, stale: -1}
}

// Size is the terminal's size.
func (v *View) Size() (cols, rows int) { return v.cols, v.rows }

// Offset is the viewport's top left in the screen, as of the last update.
func (v *View) Offset() (x, y int) { return v.ox, v.oy }

// MousePixels reports whether the terminal was told to report the mouse
// in pixels (?1016), as of the last update: its reports are not in cells.
func (v *View) MousePixels() bool { return v.modes.has(modeMouseSGRPixels) }

// Invalidate forgets what the terminal shows: the next update draws it
// whole.
func (v *View) Invalidate() { v.valid = false }

// Bytes is the memory the view holds.
func (v *View) Bytes() int { return (cap(v.cells)+cap(v.row))*8 + len(v.openText) }

// viewOffset is where a terminal view cells long on one axis starts
// showing a screen size cells long whose cursor is at cur, as tmux places
// a window in a smaller client: at the start while the cursor is within
// the first view cells, at the end while it is within the last, and
// otherwise centred on it. It depends on the cursor alone, never on where
// the view was: a view that only followed the cursor stayed scrolled
// right after a long command line, and never showed the prompt again.
func viewOffset(cur, view, size int) int {
	switch {
	case size <= view || cur < view:
		return 0
	case cur > size-view:
		return size - view
	default:
		return cur - view/2
	}
}

// AppendViewUpdate appends to dst the bytes that bring the terminal v
// describes to what it should show of s now, and records that it does. It
// appends nothing when the terminal already shows it.
func (s *Screen) AppendViewUpdate(dst []byte, v *View) []byte {
	start := len(dst)
	p := painter{s: s, b: append(dst, "\x1b[?2026h"...), onTerminal: true}
	mark := len(p.b)
	s.drawView(&p, v, s.g)
	if len(p.b) == mark {
		return dst[:start]
	}
	return append(p.b, "\x1b[?2026l"...)
}

// drawView draws g (a grid of s) onto the terminal of v.
func (s *Screen) drawView(p *painter, v *View, g *grid) {
	if !v.valid || v.compactions != s.compactions || len(v.cells) != v.cols*v.rows {
		p.b = append(p.b, viewPrefix...)
		if len(v.cells) != v.cols*v.rows {
			v.cells = make([]cell, v.cols*v.rows)
			v.row = make([]cell, v.cols)
		}
		clear(v.cells)
		v.curX, v.curY, v.visible, v.modes = 0, 0, false, 0
		// The prefix turns modifyOtherKeys off, and leaves the kitty
		// flags, which the terminal may have been sent with the
		// program's bytes, and the title.
		v.kitty, v.otherKeys = -1, 0
		v.compactions, v.valid = s.compactions, true
	}
	v.findStale(s)
	if s.modes.has(modeCursorVisible) {
		v.ox = viewOffset(s.x, v.cols, s.cols)
		v.oy = viewOffset(s.y, v.rows, s.rows)
	} else {
		// A hidden cursor is not followed: top leaves it in the last
		// row, under its process list. The view shows the top left, as
		// tmux's does.
		v.ox, v.oy = 0, 0
	}
	moved := false
	for y := range v.rows {
		s.viewRow(v, g, y)
		if v.diffRow(p, y) {
			moved = true
		}
	}
	v.noteOpenCluster(s)
	p.setStyle(0)
	// Modes.
	if want := s.modes & viewModes; want != v.modes {
		for _, m := range decModes {
			if bit := modeSet(1) << m.mode; (want^v.modes)&bit != 0 && m.mode != modeKeypad {
				p.b = appendDECMode(p.b, m.num, want&bit != 0)
			}
		}
		if (want^v.modes)&(1<<modeKeypad) != 0 {
			if want.has(modeKeypad) {
				p.b = append(p.b, "\x1b="...)
			} else {
				p.b = append(p.b, "\x1b>"...)
			}
		}
		v.modes = want
	}
	if f := int(g.kitty.flags); f != v.kitty {
		// The flags of the grid drawn: a drawn terminal stays on its
		// primary screen, and a hand-off sets its alternate screen's.
		p.b = append(p.b, "\x1b[="...)
		p.b = strconv.AppendInt(p.b, int64(f), 10)
		p.b = append(p.b, ";1u"...)
		v.kitty = f
	}
	if int(s.modifyOtherKeys) != v.otherKeys {
		p.b = append(p.b, "\x1b[>4;"...)
		p.b = strconv.AppendInt(p.b, int64(s.modifyOtherKeys), 10)
		p.b = append(p.b, 'm')
		v.otherKeys = int(s.modifyOtherKeys)
	}
	// A title unknown (a new view, one taken over in an upgrade) is set
	// when the program has one, as a restore sets it.
	if s.title != v.title || !v.titleKnown && s.title != "" {
		p.b = appendOSC(p.b, 2, s.title)
		v.title = s.title
	}
	v.titleKnown = true
	// A hidden cursor may be outside the view: it goes to the nearest
	// cell, where the terminal would clamp it anyway.
	cx, cy := min(max(s.x-v.ox, 0), v.cols-1), min(max(s.y-v.oy, 0), v.rows-1)
	if moved || cx != v.curX || cy != v.curY {
		p.b = appendCUP(p.b, cy, cx)
		v.curX, v.curY = cx, cy
	}
	if want := s.modes.has(modeCursorVisible); want != v.visible {
		p.b = appendDECMode(p.b, 25, want)
		v.visible = want
	}
}

func appendDECMode(b []byte, num int, on bool) []byte {
	b = append(b, "\x1b[?"...)
	b = appendInt(b, num)
	if on {
		return append(b, 'h')
	}
	return append(b, 'l')
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// viewRow fills v.row with what row y of the terminal should show of g.
func (s *Screen) viewRow(v *View, g *grid, y int) {
	row := v.row
	clear(row)
	sy := v.oy + y
	if sy >= s.rows {
		return
	}
	cells := g.line(sy).cells()
	if len(cells) <= v.ox {
		return
	}
	n := copy(row, cells[v.ox:])
	for x := range n {
		c := &row[x]
		switch {
		case c.flags == 0 && c.r == ' ':
			c.r = 0
		case c.flags&cellWideTail != 0 && (x == 0 || row[x-1].flags&cellWide == 0):
			// A two-column character cut by the viewport's edge is blank.
			*c = blankCell(c.style())
		case c.flags&cellWide != 0 && (x+1 >= n || row[x+1].flags&cellWideTail == 0):
			*c = blankCell(c.style())
		}
	}
}

// findStale sets stale: the entry open at the last update, if its text
// changed since (it grew, or close freed its number and another cluster
// took it).
func (v *View) findStale(s *Screen) {
	v.stale = -1
	if id := v.openID; id >= 0 && (int(id) >= s.clusters.len() || v.openText != string(s.clusters.bytes(id))) {
		v.stale = id
	}
}

// unchanged reports whether the terminal already shows c, where the
// shadow holds was: an equal cell, unless it is a cluster whose entry
// changed since (stale; a cluster's number is its cell's r, and -1 matches
// no cell).
func (v *View) unchanged(c, was cell) bool {
	return c == was && (c.r != v.stale || c.flags&cellCluster == 0)
}

// noteOpenCluster records the screen's open cluster entry as the shadow
// now shows it (see openID).
func (v *View) noteOpenCluster(s *Screen) {
	id := s.clusters.open
	if id < 0 {
		v.openID, v.openText = -1, ""
		return
	}
	b := s.clusters.bytes(id)
	if id != v.openID || v.openText != string(b) {
		v.openID, v.openText = id, string(b)
	}
}

// diffRow draws what differs between v.row and the shadow's row y, and
// makes the shadow's row v.row. It reports whether it drew anything (and so
// moved the terminal's cursor).
func (v *View) diffRow(p *painter, y int) bool {
	old := v.cells[y*v.cols : (y+1)*v.cols]
	row := v.row
	drew := false
	// The new row's blank default tail is erased with one EL when the old
	// row has anything there.
	end := trimmedEnd(row, false)
	erase := false
	for x := end; x < len(old); x++ {
		if old[x] != (cell{}) {
			erase = true
			break
		}
	}
	for x := 0; x < end; {
		if v.unchanged(row[x], old[x]) {
			x++
			continue
		}
		from := x
		if row[from].flags&cellWideTail != 0 && from > 0 {
			from--
		}
		// A joiner is drawn with what it joins, apart (paintApart).
		for p.s.joinsLeft(row, from) {
			from = cellBefore(row, from)
		}
		// A run ends after a few equal cells: a cursor move costs more.
		to, same := x+1, 0
		for to < end && same < 6 {
			if v.unchanged(row[to], old[to]) {
				same++
			} else {
				same = 0
			}
			to++
		}
		to -= same
		if to < end && row[to-1].flags&cellWide != 0 {
			to++
		}
		p.b = appendCUP(p.b, y, from)
		p.paintCells(row, from, to)
		drew = true
		x = to
	}
	if erase {
		p.setStyle(0)
		p.b = appendCUP(p.b, y, end)
		p.b = append(p.b, "\x1b[K"...)
		drew = true
	}
	copy(old, row)
	return drew
}

// AppendViewHandoff appends the bytes that bring the terminal of v, which
// has the screen's size, from the drawn state to exactly the state a
// restore would leave it in, less the scrollback: the screen (and, when the
// alternate screen is active, the primary one under it), then the saved
// cursor, scroll region, tab stops, cursor, pen, character sets, modes and
// cursor style. From there on it can be sent the program's bytes. v is
// spent: it must not be updated again.
func (s *Screen) AppendViewHandoff(dst []byte, v *View) []byte {
	p := painter{s: s, b: append(dst, "\x1b[?2026h"...), onTerminal: true}
	if s.onAlt {
		v.valid = false
		s.drawView(&p, v, s.primary)
		p.setStyle(0)
		p.appendAlt()
	} else {
		s.drawView(&p, v, s.g)
	}
	p.b = append(p.b, "\x1b[?25l"...)
	p.setStyle(0)
	p.appendDECSC(s.g.saved) // even when nothing is saved, as a restore does
	p.b = appendRegion(p.b, s)
	p.b = appendTabStops(p.b, s.tabs)
	// Back to the state a restore's prefix leaves, then as a restore goes on.
	p.b = append(p.b, "\x1b[?1;5;6;9;12;66;1000;1001;1002;1003;1004;1005;1006;1007;1015;1016;2004l\x1b[?7h\x1b[4;20l\x1b>"...)
	p.appendCursor()
	p.b = appendPen(p.b, s, &s.pen, p.cur)
	p.b = appendCharsets(p.b, s.charsets, s.gl)
	p.b = appendModes(p.b, s)
	p.b = appendCursorStyle(p.b, s)
	v.valid = false
	return append(p.b, "\x1b[?2026l"...)
}

// Cursor is the cursor's position (0-based) on the active screen and
// whether it is shown.
func (s *Screen) Cursor() (x, y int, visible bool) {
	return s.x, s.y, s.modes.has(modeCursorVisible)
}

// CursorKeysApp reports whether the program turned on application cursor
// keys (DECCKM): what a key sent on its behalf must look like.
func (s *Screen) CursorKeysApp() bool { return s.modes.has(modeCursorKeys) }
