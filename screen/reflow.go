package screen

// Resizing the primary screen keeps every line, and reflows soft-wrapped
// lines to the new width. The rules, and whose behaviour they follow where
// terminals differ:
//
//   - A logical line is a run of rows each continued by autowrap (wrapped)
//     onto the next, up to a row that was not. Changing the width lays each
//     logical line out again at the new width (tmux, kitty, ghostty); a hard
//     line end (a newline) is never joined. The last row's trailing
//     never-written or erased cells (not spaces) are not part of the line,
//     whatever their background, as in kitty; a line that fits in one row
//     keeps its cells, background included, cut or extended as before.
//   - A two-column character never straddles a wrap: one that no longer
//     fits in the last column goes to the next row, and the row is marked
//     an early wrap, whose last column is not part of the line (ghostty's
//     spacer head). That is what printing the line at that width does. On a
//     one-column screen, where it cannot fit, it is dropped, as printing it
//     there would drop it.
//   - The cursor, and the primary screen's saved cursor, stay on the same
//     character of the same logical line (tmux, kitty, ghostty); past the
//     end of the line's text, at the same distance from it, up to the last
//     column. A cursor right after a line that ends exactly at the new right
//     margin gets a pending wrap, as printing the line would have left it.
//   - Then the rows are placed. When room is needed (fewer rows, or more
//     rows of text after narrowing), the blank rows at the bottom, below
//     the cursor's line and the text, go first, then the top rows are
//     pushed into the scrollback (xterm and tmux give up the rows below the
//     cursor first too, but blank or not). When there is room to spare
//     (more rows, or fewer rows of text after widening), lines are pulled
//     back down from the scrollback, as xterm does when it grows (kitty
//     with scrollback_fill_enlarged_window; tmux after a reflow), keeping
//     as many blank rows at the bottom as there were. The cursor's line
//     always stays on the screen: text below it that does not fit (only
//     when more than a screenful sits below the cursor) is dropped, the one
//     case where xterm's and tmux's choice is kept. Otherwise no line is
//     lost, except off the far end of a full scrollback.
//
// The alternate screen is not reflowed: its programs redraw on SIGWINCH. Its
// lines are cut or extended in place (grid.resize), as before.
//
// Cost: one pass over the scrollback and screen. A line that fits in one row
// keeps its cells; only wrapped lines, and lines that no longer fit, get new
// ones.

// cursorPos is a position reflow keeps on the same character. pending is a
// pending wrap: the position is logically just past x, the last column.
type cursorPos struct {
	x, y    int
	pending bool
}

// reflowMark is a position being carried through a reflow: in, old row
// index (0 is the oldest scrollback line) and column (past the last column
// for a pending wrap); out, new row index, column and pending wrap.
type reflowMark struct {
	row, x  int
	pending bool
	done    bool // row, x and pending are the new ones
	off     int  // offset in its logical line, while that line is laid out
}

// blankRow reports whether l shows nothing in the default style and does
// not continue onto the next row.
func blankRow(l *line) bool { return !l.wrapped && trimmedEnd(l.cells(), false) == 0 }

// contentEnd is the length of cells without its trailing cells that were
// never written or were erased (spaces count as written).
func contentEnd(cells []cell) int {
	n := len(cells)
	for n > 0 && cells[n-1].r == 0 && cells[n-1].flags == 0 {
		n--
	}
	return n
}

// reflow lays g, a grid with scrollback whose screen lines are from columns
// wide, out again for cols x rows: see the rules above. points are the
// positions to carry; points[0] is the cursor, whose line stays on screen.
// Each is updated in place; a pending wrap is only set when autowrap is.
func (g *grid) reflow(from, cols, rows int, autowrap bool, points []*cursorPos) {
	h := g.history
	old := make([]line, h+g.rows)
	for i := range old {
		old[i] = g.ring[(g.head+i)%len(g.ring)]
	}
	anchor := h + points[0].y
	// Rows below the cursor's line that are blank are not laid out, only
	// counted: they can be given up first.
	end := anchor + 1
	for i := len(old) - 1; i > anchor; i-- {
		if !blankRow(&old[i]) {
			end = i + 1
			break
		}
	}
	blanks := len(old) - end

	// marks[0] is the old screen's top row, marks[1:] the points.
	var buf [4]reflowMark
	marks := buf[:0]
	marks = append(marks, reflowMark{row: h})
	for _, p := range points {
		m := reflowMark{row: h + p.y, x: p.x}
		if p.pending {
			m.x++
		}
		marks = append(marks, m)
	}

	var out []line
	if from == cols {
		out = old[:end]
		for i := range marks {
			if m := &marks[i]; m.row < end {
				m.x, m.pending, m.done = min(m.x, cols-1), m.x >= cols, true
			}
		}
	} else {
		out = make([]line, 0, end+end/4)
		for i := 0; i < end; {
			j := i
			for j < end-1 && old[j].wrapped && len(old[j].cells()) > 0 {
				j++
			}
			out = rewrap(out, old[i:j+1], i, cols, marks)
			i = j + 1
		}
	}
	// Points on the blank rows left out keep their distance below the text.
	for i := range marks {
		if m := &marks[i]; !m.done {
			m.row = len(out) + m.row - end
			m.x, m.pending = min(m.x, cols-1), false
		}
	}

	// Place the screen's top row at t in out.
	n, top, cur := len(out), marks[0].row, marks[1].row
	t := n + blanks - rows // keeping as many blank rows below the text
	if t < top {
		t = max(t, 0) // room to spare: pull lines back from the scrollback
	} else {
		t = max(top, n-rows) // take the blank rows, then push from the top
	}
	t = min(t, cur) // the cursor's line stays on screen

	first := max(0, t-g.maxHistory)
	ring := make([]line, t-first+rows)
	copy(ring, out[first:min(n, t+rows)])
	g.ring, g.head, g.history, g.rows = ring, 0, t-first, rows
	// The count of lines pushed (Screen.ScrolledOff): rows pushed from the
	// top of the screen are pushed lines. After a change of width the
	// scrollback's rows are not the rows that were pushed, so they are
	// all counted again, as new: a restore from a count taken before
	// draws the whole scrollback once. Rows pulled back into the screen
	// do not lower the count (it never goes down): when they scroll off
	// again they count again.
	switch {
	case from != cols:
		g.pushed += uint64(g.history)
	case t > top:
		g.pushed += uint64(t - top)
	}

	for i, p := range points {
		m := marks[i+1]
		y := m.row - t
		switch {
		case y < 0:
			*p = cursorPos{}
		case y >= rows:
			*p = cursorPos{x: min(m.x, cols-1), y: rows - 1}
		default:
			*p = cursorPos{x: m.x, y: y, pending: m.pending && autowrap}
		}
	}
}

// rewrap appends to out the rows of the logical line rows (old rows from
// index first on, each but the last wrapped) laid out cols wide, and moves
// the marks that are on it.
func rewrap(out []line, rows []line, first, cols int, marks []reflowMark) []line {
	last := len(rows) - 1
	// seg returns the part of row k that belongs to the logical line.
	seg := func(k int) []cell {
		cells := rows[k].cells()
		if k == last {
			return cells[:contentEnd(cells)]
		}
		if next := rows[k+1].cells(); rows[k].early && len(cells) > 0 && len(next) > 0 && next[0].flags&cellWide != 0 {
			return cells[:len(cells)-1]
		}
		return cells
	}

	// The marks on this line, as offsets into it.
	on := false
	for i := range marks {
		m := &marks[i]
		if m.done || m.row < first || m.row > first+last {
			continue
		}
		on = true
		m.off = 0
		for k := 0; k < m.row-first; k++ {
			m.off += len(seg(k))
		}
		if m.row-first < last {
			m.off += min(m.x, len(seg(m.row-first)))
		} else {
			m.off += m.x
		}
		m.row = -1 // on this line, not placed yet
	}

	if last == 0 {
		// A line that fits keeps its cells (and its background past the
		// text), cut or extended.
		if n := contentEnd(rows[0].cells()); n <= cols {
			l := rows[0]
			if cs := l.cells(); cs != nil {
				l.resize(len(cs), cols)
			}
			l.wrapped, l.early = false, false
			out = append(out, l)
			if on {
				placeAfter(marks, len(out)-1, n, n, cols)
			}
			return out
		}
	}

	cur := make([]cell, cols)
	col, off := 0, 0
	for k := range rows {
		cells := seg(k)
		for x := 0; x < len(cells); {
			c, w := cells[x], 1
			if c.flags&cellWide != 0 {
				if x+1 < len(cells) && cells[x+1].flags&cellWideTail != 0 {
					w = 2
				} else {
					c = blankCell(c.style()) // half a character
				}
			} else if c.flags&cellWideTail != 0 {
				c = blankCell(c.style())
			}
			if w > cols {
				// Cannot fit on a one-column screen: dropped.
				if on {
					placeAt(marks, off, w, len(out), col, cols)
				}
				x, off = x+w, off+w
				continue
			}
			if col+w > cols {
				out = append(out, lineOf(cur, true, col < cols))
				cur, col = make([]cell, cols), 0
			}
			if on {
				placeAt(marks, off, w, len(out), col, cols)
			}
			cur[col] = c
			if w == 2 {
				cur[col+1] = cells[x+1]
			}
			col, x, off = col+w, x+w, off+w
		}
	}
	out = append(out, lineOf(cur, false, false))
	if on {
		placeAfter(marks, len(out)-1, off, col, cols)
	}
	return out
}

// placeAt places the marks not yet placed whose offset is within the w
// columns of a character at offset off, now drawn at row, col.
func placeAt(marks []reflowMark, off, w, row, col, cols int) {
	for i := range marks {
		m := &marks[i]
		if !m.done && m.row == -1 && m.off >= off && m.off < off+w {
			m.row, m.x, m.pending, m.done = row, min(col+m.off-off, cols-1), false, true
		}
	}
}

// placeAfter places the marks not yet placed, which are at or past the end
// (offset end) of a logical line whose last row, row, is filled up to col:
// at the same distance from the text, up to the last column, with a pending
// wrap right after text that fills the row.
func placeAfter(marks []reflowMark, row, end, col, cols int) {
	for i := range marks {
		m := &marks[i]
		if m.done || m.row != -1 {
			continue
		}
		x := col + m.off - end
		m.row, m.x, m.pending, m.done = row, min(x, cols-1), x >= cols && m.off == end, true
	}
}
