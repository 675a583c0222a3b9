package screen

import (
	"bytes"
	"strconv"
)

var zwjUTF8 = []byte("\u200d")

// painter appends cells to a byte slice, emitting an SGR (and, for a
// restore, an OSC 8) sequence whenever the style changes. It assumes the
// terminal's pen starts at the default style.
type painter struct {
	s   *Screen
	b   []byte
	cur styleID // style index the terminal's pen has
	// onTerminal is set when the bytes draw a terminal's screen at known
	// columns (a restore, a view): they carry hyperlinks, and the painter
	// may move the cursor to draw joiners apart (paintApart). Text for a
	// file (AppendText) has neither.
	onTerminal bool
}

// setStyle makes the terminal's pen style id.
func (p *painter) setStyle(id styleID) {
	if id == p.cur {
		return
	}
	from, to := &p.s.styles.list[p.cur], &p.s.styles.list[id]
	if *from != *to { // two ids can hold equal styles after a full table
		if to.link != from.link && p.onTerminal {
			p.b = appendLink(p.b, p.s, to.link)
		}
		st := *to
		st.link = from.link
		if st != *from {
			p.b = appendSGR(p.b, to)
		}
	}
	p.cur = id
}

// appendLink appends the OSC 8 sequence that starts link (or ends any link).
func appendLink(b []byte, s *Screen, link uint32) []byte {
	b = append(b, "\x1b]8;"...)
	if link == 0 {
		b = append(b, ';')
	} else {
		b = append(b, s.links.bytes(int32(link))...)
	}
	return append(b, "\x1b\\"...)
}

// appendSGR appends the SGR sequence that sets st's attributes and colours
// from scratch (it starts with a reset), leaving out the hyperlink.
func appendSGR(b []byte, st *style) []byte {
	b = append(b, "\x1b[0"...)
	for _, a := range [...]struct {
		bit attr
		sgr string
	}{
		{attrBold, ";1"}, {attrFaint, ";2"}, {attrItalic, ";3"}, {attrBlink, ";5"},
		{attrRapidBlink, ";6"}, {attrReverse, ";7"}, {attrInvisible, ";8"},
		{attrStrike, ";9"}, {attrOverline, ";53"},
	} {
		if st.attrs&a.bit != 0 {
			b = append(b, a.sgr...)
		}
	}
	switch st.underline {
	case underlineNone:
	case underlineSingle:
		b = append(b, ";4"...)
	default: // only terminals that know the styles get sent them
		b = append(b, ";4:"...)
		b = strconv.AppendInt(b, int64(st.underline), 10)
	}
	b = appendColor(b, st.fg, 30, 90, "38")
	b = appendColor(b, st.bg, 40, 100, "48")
	b = appendColor(b, st.ul, 0, 0, "58")
	return append(b, 'm')
}

// appendColor appends ";<sgr>" for c: base+i or bright+i-8 for the 16
// standard colours (when base is not 0) unless the application set them as
// ext;5;i, else ext;5;i or ext;2;r;g;b.
func appendColor(b []byte, c color, base, bright int, ext string) []byte {
	switch c.kind() {
	case colorIndexed:
		i := c.index()
		b = append(b, ';')
		switch {
		case c&colorExtForm != 0:
		case base != 0 && i < 8:
			return strconv.AppendInt(b, int64(base+i), 10)
		case base != 0 && i < 16:
			return strconv.AppendInt(b, int64(bright+i-8), 10)
		}
		b = append(b, ext...)
		b = append(b, ";5;"...)
		return strconv.AppendInt(b, int64(i), 10)
	case colorRGB:
		r, g, bl := c.rgb()
		b = append(b, ';')
		b = append(b, ext...)
		b = append(b, ";2;"...)
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	return b
}

// trimmedEnd returns how many leading cells of a line carry anything: the
// rest are blank cells in the default style. With anyStyle, blank cells in
// any style count as nothing (plain text).
func trimmedEnd(cells []cell, anyStyle bool) int {
	end := len(cells)
	for end > 0 {
		c := cells[end-1]
		if c.flags&cellWideTail != 0 && end >= 2 && cells[end-2].flags&cellWide != 0 {
			break
		}
		if !c.isBlank() || !anyStyle && c.style() != 0 {
			break
		}
		end--
	}
	return end
}

// paintCells draws cells[from:end] of a line, from the cursor, which is at
// column from. A wide character's second column is drawn by its first; a
// broken half is drawn as a space so columns stay aligned. It reports
// whether the cursor was left after the last cell drawn, with the wrap
// pending there when that was the last column: not so when the last cell
// was drawn before the one to its left (paintApart).
func (p *painter) paintCells(cells []cell, from, end int) (inOrder bool) {
	inOrder = true
	for x := from; x < end; x++ {
		c := cells[x]
		p.setStyle(c.style())
		switch {
		case c.r < 0x80 && c.r >= 0x20 && c.flags == 0:
			// The commonest case, and a run of it in one style: one
			// append each, in a local slice.
			b := append(p.b, byte(c.r))
			for x+1 < end {
				n := cells[x+1]
				if n.r >= 0x80 || n.r < 0x20 || n.flags != 0 || n.style() != p.cur {
					break
				}
				b = append(b, byte(n.r))
				x++
			}
			p.b = b
		case c.flags&cellWideTail != 0:
			if x == 0 || cells[x-1].flags&cellWide == 0 {
				p.b = append(p.b, ' ')
			}
		case c.flags&cellWide != 0 && (x+1 >= len(cells) || cells[x+1].flags&cellWideTail == 0):
			p.b = append(p.b, ' ')
		case p.onTerminal && c.flags&cellWide != 0 && x+2 < end && cells[x+2].flags&cellWide != 0:
			// Only a wide cell is joined, and only by a wide one.
			if to := p.s.joinedRun(cells, x, end); to > 0 {
				p.paintApart(cells, x, to)
				inOrder = to < end
				x = to - 1
				continue
			}
			p.paintCell(c)
		default:
			p.paintCell(c)
		}
	}
	return inOrder
}

// paintCell draws the character cell c, at the cursor, in the pen's style.
func (p *painter) paintCell(c cell) {
	p.b = p.s.cellText(p.b, c)
	if c.flags&cellCluster != 0 && bytes.HasSuffix(p.s.clusters.bytes(c.r), zwjUTF8) {
		// A cluster ending in a ZWJ would swallow the next character:
		// any sequence in between ends the join.
		p.b = appendSGR(p.b, &p.s.styles.list[p.cur])
	}
}
