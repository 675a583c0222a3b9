package screen

import (
	"strconv"
	"unicode/utf8"
)

// A regional indicator or a skin tone printed right after a cell it can
// join (joinsWide) joins it. The screen still holds two such cells side by
// side when the cursor came between them: the second was printed first,
// or with the cell before it blank, or a DCH brought them together. Drawn
// left to right, the second would join the first in the terminal, which
// would then show the rest of the line two columns to the left. So a
// painter draws such a run apart: erased, then from its right end.

// joinsLeft reports whether the cell at x, drawn right after the cell
// before it, would join that cell.
func (s *Screen) joinsLeft(cells []cell, x int) bool {
	if x <= 0 {
		return false
	}
	r, ok := s.wideJoinerAt(cells, x)
	return ok && joinsWide(cells[cellBefore(cells, x)], r)
}

// wideJoinerAt returns the character the cell at x starts with, and
// whether that is a wide joiner (isWideJoiner) drawn as itself.
func (s *Screen) wideJoinerAt(cells []cell, x int) (rune, bool) {
	if x+1 >= len(cells) {
		return 0, false
	}
	c := cells[x]
	if c.flags&cellWide == 0 || cells[x+1].flags&cellWideTail == 0 {
		return 0, false // a wide joiner is whole, or drawn as a space
	}
	r := c.r
	if c.flags&cellCluster != 0 {
		r, _ = utf8.DecodeRune(s.clusters.bytes(c.r))
	}
	return r, isWideJoiner(r)
}

// cellBefore is the column of the cell before column x (x > 0): of the head
// of a wide character.
func cellBefore(cells []cell, x int) int {
	x--
	if cells[x].flags&cellWideTail != 0 && x > 0 {
		x--
	}
	return x
}

// joinedRun returns where the run of cells that would join the character
// cell at x ends, before end, or 0 when the cell after x would not join it.
func (s *Screen) joinedRun(cells []cell, x, end int) int {
	first := x + 1
	if cells[x].flags&cellWide != 0 {
		first++
	}
	to := first
	for to+1 < end && s.joinsLeft(cells, to) {
		to += 2 // every joiner is two columns wide
	}
	if to == first {
		return 0
	}
	return to
}

// paintApart draws cells[from:to] (a wide character and the wide joiners
// after it, joinedRun) from the cursor at column from: it erases the run,
// so no joiner lands next to what the terminal showed there before, and
// draws its cells from the right, each with nothing left of it that it
// would join. The cursor is then left at column to, or after the first
// cell when to is the last column's edge (paintCells reports it).
func (p *painter) paintApart(cells []cell, from, to int) {
	p.b = append(p.b, "\x1b["...)
	p.b = strconv.AppendInt(p.b, int64(to-from), 10)
	p.b = append(p.b, 'X')
	for x := to - 2; x >= from; x -= 2 { // every cell of the run is two columns
		p.b = appendCHA(p.b, x)
		p.setStyle(cells[x].style())
		p.paintCell(cells[x])
	}
	if to < p.s.cols {
		p.b = appendCHA(p.b, to)
	}
}

// appendCHA moves the cursor to 0-based column col of its row.
func appendCHA(b []byte, col int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(col+1), 10)
	return append(b, 'G')
}
