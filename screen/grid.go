package screen

import "unsafe"

// line is one row of cells. A screen line holds at most the screen's width
// of cells, and every column past its last cell is a blank of the default
// style; scrollback lines keep the cells they had when they scrolled off.
//
// A line holds cells only as far as something was drawn on it: a line
// nothing was ever drawn on has none (nil), a shell's prompt line a few
// dozen. A fresh 80x24 screen would otherwise hold 15 KiB of zeroes, and
// an idle session's prompt line 640 bytes, which made an idle session cost
// more than tmux's. Whatever writes cells takes them through writable or
// writableTo; whatever reads them must take the columns past the last cell
// as blank, and a line as wide as the screen only when it has that many.
type line struct {
	// first is the first of c cells, of which the line holds the first n;
	// nil while it has never held any. Not a []cell: with the two marks
	// below, a slice header took a line to 32 bytes, and every row of
	// every screen and scrollback has one. A line is at most MaxCols cells
	// (see the check below). Read and set the cells with cells and
	// setCells (writableTo, the hot path, reads the fields itself).
	first *cell
	n, c  uint16
	// wrapped is set when autowrap continued this line onto the next: the two
	// are one logical line, which a restore lets the terminal wrap again.
	wrapped bool
	// early is set, with wrapped, when the wrap came before the last column
	// was written: a two-column character did not fit there, and went to the
	// next line. The last column is then not part of the logical line (a
	// reflow drops it). It means nothing without wrapped.
	early bool
}

// A line's counts are 16 bits: this fails to compile if a line could hold
// more cells.
const _ = uint16(MaxCols)

// cells returns the cells l holds (nil when it holds none).
func (l *line) cells() []cell {
	if l.first == nil {
		return nil
	}
	return unsafe.Slice(l.first, l.c)[:l.n]
}

// setCells makes cs, at most MaxCols of them, the cells l holds.
func (l *line) setCells(cs []cell) {
	l.first, l.n, l.c = unsafe.SliceData(cs), uint16(len(cs)), uint16(cap(cs))
}

// lineOf returns a line holding cs, with the given marks.
func lineOf(cs []cell, wrapped, early bool) line {
	l := line{wrapped: wrapped, early: early}
	l.setCells(cs)
	return l
}

// minLineCells is the fewest cells a line is given when it first needs
// some: a prompt's worth, 128 bytes.
const minLineCells = 16

// writable returns l's cells, cols of them, blanking the ones it adds.
func (l *line) writable(cols int) []cell { return l.writableTo(cols, cols) }

// writableTo returns l's cells, at least n of them (n <= cols), blanking the
// ones it adds. A line grows as a slice does, doubling up to cols, so one
// typed a character at a time is copied a few times, not at every key.
func (l *line) writableTo(n, cols int) []cell {
	if int(l.n) < n {
		l.extend(n, cols)
	}
	// Not cells(): a line without cells has n 0, so it got some above
	// (n is at least 1), and the hot path needs no branch for nil.
	return unsafe.Slice(l.first, l.n)
}

// extend is writableTo's path for a line that holds fewer than n cells,
// out of line so that the common case inlines small. A wrapped line is
// given them all: restore and reflow take a wrapped line's cells to reach
// the edge, and one cut short would lose the columns between.
func (l *line) extend(n, cols int) {
	if l.wrapped {
		n = cols
	}
	cs := l.cells()
	old := len(cs)
	if cap(cs) >= n {
		cs = cs[:n]
		clear(cs[old:])
		l.setCells(cs)
		return
	}
	cells := make([]cell, n, min(max(n, 2*cap(cs), minLineCells), cols))
	copy(cells, cs)
	l.setCells(cells)
}

// reset makes l a blank line of the given width, reusing its cells. A line
// without cells stays without, unless the blank has a colour. One with
// cells is blanked to the full width, not cut short: cut, it would be
// reallocated when drawn on again, and WriteBatch, which skips what would
// scroll away, keeps the same tables as drawing everything only while no
// cell moves (clusterTable.growable compares a cell's address).
func (l *line) reset(cols int, blank cell) {
	l.wrapped, l.early = false, false
	cs := l.cells()
	if cs == nil && blank == (cell{}) {
		return
	}
	if cap(cs) < cols {
		cs = make([]cell, cols)
	} else {
		cs = cs[:cols]
	}
	fillCells(cs, blank)
	l.setCells(cs)
}

// resize changes l, a line of a screen from columns wide, to one of a screen
// cols wide, blanking new columns and keeping the others.
func (l *line) resize(from, cols int) {
	cs := l.cells()
	old := len(cs)
	if old < from && old <= cols {
		// What it holds fits, and the rest is blank at any width; but the
		// mark of a wrap goes, as it does from a line as wide as the
		// screen that is not made wider.
		if cols <= from {
			l.wrapped = false
		}
		return
	}
	if cap(cs) < cols {
		cells := make([]cell, cols)
		copy(cells, cs)
		cs = cells
	} else {
		cs = cs[:cols]
	}
	l.setCells(cs)
	if cols > old {
		clear(cs[old:])
	} else {
		l.wrapped = false
		// A wide character cut in half by the new right edge is erased.
		if cols > 0 && cs[cols-1].flags&cellWide != 0 {
			cs[cols-1] = blankCell(cs[cols-1].style())
		}
	}
}

func fillCells(cs []cell, c cell) {
	if c == (cell{}) {
		clear(cs)
		return
	}
	for i := range cs {
		cs[i] = c
	}
}

// splitWide erases a two-column character that straddles the boundary
// between columns x-1 and x, because one of its halves is about to be
// overwritten or moved away from the other. Both halves keep their style.
func splitWide(cs []cell, x int) {
	if x > 0 && x < len(cs) && cs[x].flags&cellWideTail != 0 {
		cs[x-1] = blankCell(cs[x-1].style())
		cs[x] = blankCell(cs[x].style())
	}
}

// grid is a screen's lines and, for the primary screen, its scrollback, in
// one ring. Screen row y (0 is the top) is ring slot head+history+y, and
// scrollback line -1 is the newest. Scrolling the whole screen up advances
// head (or grows history) and blanks one line: the top line becomes the
// newest scrollback line without a single cell moving. Once the scrollback is
// full, the oldest scrollback line is recycled as the new bottom line.
type grid struct {
	ring       []line
	head       int // slot of the oldest line
	history    int // scrollback lines held, at most maxHistory
	rows       int
	maxHistory int // 0 for the alternate screen
	// pushed counts the lines ever pushed into the scrollback (see
	// Screen.ScrolledOff): scrollback line -1 is line pushed-1 of them, and
	// the oldest held, -history, is line pushed-history.
	pushed uint64

	saved savedCursor // DECSC state, kept per screen as xterm does
	kitty kittyFlags  // kitty keyboard flags, kept per screen as kitty does
}

// newGrid returns a blank grid; its lines get cells as they are drawn on.
func newGrid(rows, maxHistory int) *grid {
	return &grid{ring: make([]line, rows), rows: rows, maxHistory: maxHistory}
}

// slot maps a row (negative for scrollback) to its ring index.
func (g *grid) slot(y int) int {
	i := g.head + g.history + y
	if i >= len(g.ring) {
		i -= len(g.ring)
	}
	return i
}

func (g *grid) line(y int) *line { return &g.ring[g.slot(y)] }

// scrollUp scrolls the whole screen up one line, the top line going into the
// scrollback (or away, when there is none), and blanks the bottom line.
func (g *grid) scrollUp(cols int, blank cell) {
	if g.maxHistory > 0 {
		g.pushed++
	}
	if g.history < g.maxHistory {
		if g.history+g.rows == len(g.ring) {
			g.grow()
		}
		g.history++
	} else {
		// The ring is exactly rows+maxHistory long: the oldest line's slot
		// comes next after the bottom line's, so advancing head recycles it.
		g.head++
		if g.head == len(g.ring) {
			g.head = 0
		}
	}
	g.line(g.rows-1).reset(cols, blank)
}

// grow enlarges the ring for more scrollback, doubling up to
// rows+maxHistory, so a fresh screen does not pay for scrollback it has not
// used. Only line headers are copied.
func (g *grid) grow() {
	n := min(max(2*len(g.ring), g.rows+64), g.rows+g.maxHistory)
	ring := make([]line, n)
	used := g.history + g.rows
	for i := range used {
		ring[i] = g.ring[(g.head+i)%len(g.ring)]
	}
	g.ring, g.head = ring, 0
}

func (g *grid) swap(a, b int) {
	ia, ib := g.slot(a), g.slot(b)
	g.ring[ia], g.ring[ib] = g.ring[ib], g.ring[ia]
}

func (g *grid) reverse(from, to int) {
	for to--; from < to; from, to = from+1, to-1 {
		g.swap(from, to)
	}
}

// rotateDown moves rows [top, bottom-1) down one row and the line of row
// bottom-1 to row top, by moving line headers.
func (g *grid) rotateDown(top, bottom int) {
	for y := bottom - 1; y > top; y-- {
		g.swap(y, y-1)
	}
}

// scrollRegionUp moves rows [top+n, bottom) up to top and blanks the last n
// rows of the region, by rotating line headers (no cell is copied). Nothing
// goes into the scrollback.
func (g *grid) scrollRegionUp(top, bottom, n, cols int, blank cell) {
	n = min(n, bottom-top)
	if n <= 0 {
		return
	}
	if n < bottom-top {
		g.reverse(top, top+n)
		g.reverse(top+n, bottom)
		g.reverse(top, bottom)
	}
	for y := bottom - n; y < bottom; y++ {
		g.line(y).reset(cols, blank)
	}
}

// scrollRegionDown moves rows [top, bottom-n) down by n and blanks the first
// n rows of the region.
func (g *grid) scrollRegionDown(top, bottom, n, cols int, blank cell) {
	n = min(n, bottom-top)
	if n <= 0 {
		return
	}
	if n < bottom-top {
		g.reverse(top, bottom-n)
		g.reverse(bottom-n, bottom)
		g.reverse(top, bottom)
	}
	for y := top; y < top+n; y++ {
		g.line(y).reset(cols, blank)
	}
}

// clearHistory drops the scrollback. The freed slots stay in the ring as
// spare lines.
func (g *grid) clearHistory() {
	g.head = g.slot(0)
	g.history = 0
}

// resize lays the ring out again for a new size (from columns wide before,
// cols now): the scrollback is kept, screen lines are kept from the top (no
// reflow), cut or extended. It is the alternate screen's resize, whose
// programs redraw; the primary screen's is reflow.
func (g *grid) resize(from, cols, rows int) {
	keep := min(rows, g.rows)
	ring := make([]line, g.history+rows)
	for i := range g.history + keep {
		ring[i] = g.ring[(g.head+i)%len(g.ring)]
	}
	for y := g.history; y < g.history+rows; y++ {
		if y < g.history+keep {
			ring[y].resize(from, cols)
		} else {
			ring[y].reset(cols, cell{})
		}
	}
	g.ring, g.head, g.rows = ring, 0, rows
	if g.maxHistory == 0 {
		return
	}
	// Keep the invariant scrollUp relies on: a full scrollback means a ring
	// of exactly rows+maxHistory.
	if g.history >= g.maxHistory {
		g.history = g.maxHistory
		g.ring = g.ring[len(g.ring)-g.history-rows:]
	}
}
