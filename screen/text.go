package screen

// TextOptions selects what AppendText includes.
type TextOptions struct {
	// ANSI keeps colours and attributes as SGR sequences; each line ends
	// with the default pen.
	ANSI bool
	// Scrollback prepends the scrollback lines, oldest first.
	Scrollback bool
}

// AppendText appends the visible screen as text, a line per row, like tmux
// capture-pane: trailing blanks are trimmed from each line (in ANSI mode,
// only those in the default style) and trailing empty lines are dropped.
func (s *Screen) AppendText(dst []byte, opt TextOptions) []byte {
	p := painter{s: s, b: dst}
	keep := len(dst) // length up to the last line with something on it
	from := 0
	if opt.Scrollback {
		from = -s.primary.history
	}
	for y := from; y < s.rows; y++ {
		var cells []cell
		if y < 0 {
			cells = s.primary.line(y).cells()
		} else {
			cells = s.g.line(y).cells()
		}
		end := trimmedEnd(cells, !opt.ANSI)
		if opt.ANSI {
			p.paintCells(cells, 0, end)
			p.setStyle(0)
		} else {
			p.paintText(cells, end)
		}
		if end > 0 {
			keep = len(p.b) + 1
		}
		p.b = append(p.b, '\n')
	}
	return p.b[:keep]
}

// paintText draws cells[:end] without styles.
func (p *painter) paintText(cells []cell, end int) {
	for x := 0; x < end; x++ {
		c := cells[x]
		switch {
		case c.flags&cellWideTail != 0:
			if x == 0 || cells[x-1].flags&cellWide == 0 {
				p.b = append(p.b, ' ')
			}
		case c.r < 0x80 && c.r >= 0x20 && c.flags == 0:
			p.b = append(p.b, byte(c.r))
		default:
			p.b = p.s.cellText(p.b, c)
		}
	}
}
