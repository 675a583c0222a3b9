package screen

import (
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

const zwj = 0x200d // zero width joiner: the next character joins the cluster

// runeWidth is the number of columns r takes on its own: 0 for combining
// characters, 2 for wide ones. It uses the same tables as x/vt
// (displaywidth), but for the characters terminals measuring grapheme
// clusters (kitty, ghostty, foot, WezTerm) draw otherwise: see
// widthOverride. What joins a cluster is decided in print.
func runeWidth(r rune) int {
	if r < 0x7f {
		if r >= 0x20 {
			return 1
		}
		return 0
	}
	if r >= 0x300 && r < 0x370 {
		return 0 // the combining diacritical marks, the commonest
	}
	if w, ok := widthOverride(r); ok {
		return w
	}
	return displaywidth.Rune(r)
}

// widthOverride is the width of the characters whose own width displaywidth
// gives as terminals do not: the soft hyphen and the prepended
// concatenation marks (U+0600 and its kind), format characters that
// terminals draw as a column, are 1; the vowels and final consonants of a
// decomposed Hangul syllable (jamo V and T) join the initial consonant's
// two columns, so they are 0.
func widthOverride(r rune) (int, bool) {
	switch {
	case r == 0xad, r >= 0x600 && r <= 0x605, r == 0x6dd, r == 0x70f,
		r == 0x890, r == 0x891, r == 0x8e2, r == 0x110bd, r == 0x110cd:
		return 1, true
	case r >= 0x1160 && r <= 0x11ff, r >= 0xd7b0 && r <= 0xd7fb:
		return 0, true
	}
	return 0, false
}

const (
	vs16 = 0xfe0f // variation selector 16: emoji presentation
	// Regional indicators: two make a flag.
	riFirst, riLast = 0x1f1e6, 0x1f1ff
	// Emoji modifiers (skin tones).
	modifierFirst, modifierLast = 0x1f3fb, 0x1f3ff
)

// printASCII is the fast path for a run of printable ASCII in the parser's
// ground state: it writes cells directly, a line segment at a time.
func (s *Screen) printASCII(b []byte) {
	if !s.plainCharset() || s.modes.has(modeInsert) {
		for _, c := range b {
			s.print(rune(c))
		}
		return
	}
	s.joining = false
	autowrap := s.modes.has(modeAutowrap)
	for len(b) > 0 {
		if s.pendingWrap && autowrap {
			s.wrap()
		}
		st := s.penStyle()
		x := s.x
		n := min(len(b), s.cols-x)
		cells := s.g.line(s.y).writableTo(x+n, s.cols)
		splitWide(cells, x)
		splitWide(cells, x+n)
		styled := newCell(0, st, 0)
		seg := cells[x : x+n]
		for i, c := range b[:n] {
			styled.r = rune(c)
			seg[i] = styled
		}
		s.lastChar = rune(b[n-1])
		b = b[n:]
		if x+n < s.cols {
			s.x = x + n
			continue
		}
		s.x = s.cols - 1
		s.pendingWrap = true
		if autowrap {
			continue
		}
		// Without autowrap the rest of the run overwrites the last column:
		// only its final character stays.
		if len(b) > 0 {
			last := b[len(b)-1]
			splitWide(cells, s.cols-1)
			cells[s.cols-1] = newCell(rune(last), st, 0)
			s.lastChar = rune(last)
			b = nil
		}
	}
}

// print is the parser's Print handler and the slow path for any character.
func (s *Screen) print(r rune) {
	switch {
	case r < 0x80:
		r = s.mapCharset(r)
	case r < 0xa0:
		// A C1 control encoded in UTF-8 is not a character: never keep
		// it, or a restore would send a control (say CSI, U+009B) along.
		return
	default:
		s.singleShift = 0
	}
	w := runeWidth(r)
	// After a ZWJ the next character joins its emoji sequence, unless it
	// is ASCII (which never joins a cluster, so the fast path needs no check).
	if w == 0 || s.joining && r >= 0x80 || w == 2 && s.extendsWide(r) {
		if r == vs16 && !s.roomToWiden() {
			if c := s.previousCell(); c != nil && c.flags&cellWide == 0 {
				// A VS16 that cannot widen its one-column cell is
				// dropped, not joined. A narrow cluster ending in VS16
				// is a state no restore can draw: the cell may move
				// (DCH, ICH, a resize's reflow), and painted anywhere
				// with room it widens, shifting the rest of its line.
				return
			}
		}
		if s.combine(r) && r == vs16 {
			s.widenPrevious()
		}
		return
	}
	s.put(r, w)
}

// extendsWide reports whether r, two columns on its own, joins the
// previous cell (previousCell) instead: the second regional indicator of a
// flag, or a skin tone after an emoji (a wide cell). Either way the cluster
// stays two columns wide.
func (s *Screen) extendsWide(r rune) bool {
	if !isWideJoiner(r) {
		return false
	}
	c := s.previousCell()
	return c != nil && joinsWide(*c, r)
}

// isWideJoiner reports whether r is two columns on its own but may join the
// cell before it instead (joinsWide).
func isWideJoiner(r rune) bool {
	return r >= riFirst && r <= riLast || r >= modifierFirst && r <= modifierLast
}

// joinsWide reports whether the wide joiner r, printed right after prev,
// joins it: a regional indicator after a lone one, a skin tone after any
// wide cell.
func joinsWide(prev cell, r rune) bool {
	if r >= riFirst && r <= riLast {
		return prev.flags&cellCluster == 0 && prev.r >= riFirst && prev.r <= riLast
	}
	return prev.flags&cellWide != 0
}

// widenPrevious makes the one-column cell before the cursor two columns
// wide, after a VS16 joined it (emoji presentation, as terminals that
// measure clusters draw it): it takes the column of the cursor, which
// moves past it. A cell in the last column stays one column wide: there is
// no room.
func (s *Screen) widenPrevious() {
	if !s.roomToWiden() {
		return
	}
	x := s.x - 1
	cells := s.g.line(s.y).writable(s.cols)
	if cells[x].flags&(cellWide|cellWideTail) != 0 {
		return
	}
	if s.modes.has(modeInsert) {
		s.insertBlanks(1)
	}
	splitWide(cells, x+2)
	cells[x].flags |= cellWide
	cells[x+1] = newCell(0, cells[x].style(), cellWideTail)
	if x+2 < s.cols {
		s.x = x + 2
		return
	}
	s.x = s.cols - 1
	s.pendingWrap = true
}

// wideAlone reports whether the wide cell c starts with a character that is
// two columns on its own and joins no cell before it. Drawn in the last
// column, only such a character wraps early: a cluster widened by its
// VS16 starts with a narrow one, which fits there, and a regional
// indicator or a skin tone may join the cell before it (extendsWide).
func (s *Screen) wideAlone(c cell) bool {
	r := c.r
	if c.flags&cellCluster != 0 {
		r, _ = utf8.DecodeRune(s.clusters.bytes(c.r))
	}
	return runeWidth(r) == 2 && !isWideJoiner(r)
}

// roomToWiden reports whether the cell before the cursor may take the
// cursor's column too. Not with a wrap pending (that cell is in the last
// column), nor with autowrap off and the cursor on a character in the last
// column: the cursor stays there after a character is printed there, and
// that character is the one a VS16 joins (previousCell), with no room
// after it. With the last column blank the cell before it widens into it,
// as anywhere else on the line.
func (s *Screen) roomToWiden() bool {
	return !s.pendingWrap && s.x > 0 && !s.onLastColumnCharacter()
}

// put writes a character of width w (1 or 2) at the cursor and advances.
func (s *Screen) put(r rune, w int) {
	s.joining = false
	autowrap := s.modes.has(modeAutowrap)
	if s.pendingWrap && autowrap {
		s.wrap()
	}
	if w == 2 && s.x == s.cols-1 {
		// A wide character does not fit in the last column: wrap early,
		// leaving the column as it is, or drop the character, as xterm and
		// tmux do.
		if !autowrap || s.cols < 2 {
			return
		}
		s.wrap()
	}
	if s.modes.has(modeInsert) {
		s.insertBlanks(w)
	}
	st := s.penStyle()
	cells := s.g.line(s.y).writable(s.cols)
	x := s.x
	splitWide(cells, x)
	splitWide(cells, x+w)
	if w == 2 {
		cells[x] = newCell(r, st, cellWide)
		cells[x+1] = newCell(0, st, cellWideTail)
	} else {
		cells[x] = newCell(r, st, 0)
	}
	s.lastChar = r
	if x+w < s.cols {
		s.x = x + w
		return
	}
	s.x = s.cols - 1
	s.pendingWrap = true
}

// wrap moves to the start of the next line for autowrap, scrolling if the
// cursor is on the bottom margin, and marks the line as continued: early
// when no wrap was pending (a wide character that does not fit in the last
// column wraps without one).
func (s *Screen) wrap() {
	l := s.g.line(s.y)
	if len(l.cells()) > 0 {
		// A wrapped line with cells holds them to the edge: restore and
		// reflow tell a line that continues from one that ended by that.
		l.writable(s.cols)
	}
	l.wrapped, l.early = true, !s.pendingWrap
	s.pendingWrap = false
	s.x = 0
	s.index()
}

// previousCell returns the cell a combining character belongs to: the one
// left of the cursor (the cursor's own when a wrap is pending), the head of
// a wide character. It returns nil at the start of a line.
//
// Without autowrap a pending wrap is not acted on: a character printed in
// the last column leaves the cursor on it, so a combining character there
// joins the cursor's own cell when it holds one, and the cell before it
// when the cursor was moved onto a blank one (ghostty's rule). Joined to
// the cell before, the mark sat on another character than the one a
// terminal attached at the session's size shows it on, and a reattach or
// wr capture drew the line otherwise.
func (s *Screen) previousCell() *cell {
	x := s.x - 1
	if s.pendingWrap || s.onLastColumnCharacter() {
		x = s.x
	}
	if x < 0 {
		return nil
	}
	cells := s.g.line(s.y).writable(s.cols)
	if cells[x].flags&cellWideTail != 0 && x > 0 {
		x--
	}
	return &cells[x]
}

// onLastColumnCharacter reports whether, with autowrap off, the cursor is
// in the last column on a character (or the second half of a wide one):
// where a character printed there leaves it, and what a combining
// character joins (previousCell).
func (s *Screen) onLastColumnCharacter() bool {
	if s.x != s.cols-1 || s.modes.has(modeAutowrap) {
		return false
	}
	cs := s.g.line(s.y).cells()
	if s.x >= len(cs) {
		return false
	}
	c := cs[s.x]
	return c.r != 0 || c.flags&(cellCluster|cellWideTail) != 0
}

// combine appends r to the previous cell's cluster and reports whether it
// did. A combining character with nothing before it, or past
// maxClusterBytes, is dropped.
func (s *Screen) combine(r rune) bool {
	c := s.previousCell()
	if c == nil || (c.r == 0 && c.flags&cellCluster == 0) {
		return false
	}
	if s.clusters.growable(c) {
		// Only c refers to its cluster: grow it in place.
		if n := utf8.RuneLen(r); s.clusters.openLen()+n > maxClusterBytes || !s.clusters.fits(n) {
			return false
		}
		s.clusters.grow(r)
		s.joining = r == zwj
		return true
	}
	s.ownClusters()
	var id int32
	if c.flags&cellCluster == 0 && s.clusters.roomFor(s.slack(), 2*utf8.UTFMax) {
		// The commonest case: a character's first combining character.
		id = s.clusters.addPair(c.r, r, c)
	} else {
		buf := s.cellText(s.scratch[:0], *c)
		if len(buf)+utf8.RuneLen(r) > maxClusterBytes {
			return false
		}
		buf = utf8.AppendRune(buf, r)
		s.scratch = buf
		if id = s.internCluster(buf, c); id < 0 {
			return false
		}
	}
	// internCluster may have compacted the tables, which rewrites cells but
	// not their addresses: c is still the cell to change.
	c.r = id
	c.flags |= cellCluster
	s.joining = r == zwj
	return true
}

// repeat is REP (CSI n b): the last printed character n more times, drawn
// as printing it would draw it (with the pen, wrapping with autowrap, each
// copy inserted in insert mode), but a row at a time. Only as many as can
// change what the screen and its scrollback hold are drawn: see
// repeatCount.
func (s *Screen) repeat(r rune, n int) {
	if r == 0 {
		return
	}
	w := runeWidth(r)
	if w == 0 {
		return
	}
	n = s.repeatCount(n, w)
	s.joining = false
	autowrap := s.modes.has(modeAutowrap)
	for n > 0 {
		if s.pendingWrap && autowrap {
			s.wrap()
		}
		if w == 2 && s.x == s.cols-1 {
			// As in put: the rest would wrap early one by one, or be
			// dropped one by one.
			if !autowrap || s.cols < 2 {
				return
			}
			s.wrap()
		}
		k := min(n, (s.cols-s.x)/w) // copies that fit in the row
		if s.modes.has(modeInsert) {
			// Inserting k copies one at a time shifts the rest of the row
			// as inserting their columns at once does.
			s.insertBlanks(k * w)
		}
		st := s.penStyle()
		cells := s.g.line(s.y).writable(s.cols)
		x, end := s.x, s.x+k*w
		splitWide(cells, x)
		splitWide(cells, end)
		fillRepeat(cells[x:end], newCell(r, st, 0), w)
		s.repeated += end - x
		n -= k
		if end < s.cols {
			s.x = end
			continue
		}
		s.x = s.cols - 1
		s.pendingWrap = true
		if !autowrap {
			// The rest overwrite the last column with the same character,
			// or, wide, are dropped.
			return
		}
	}
}

// fillRepeat fills cells with copies of c, w columns each. It copies what
// it has filled so far, in doubling runs: copy moves whole words at a time.
func fillRepeat(cells []cell, c cell, w int) {
	if len(cells) < w {
		return
	}
	if w == 1 {
		cells[0] = c
	} else {
		c.flags = cellWide
		cells[0], cells[1] = c, newCell(0, c.style(), cellWideTail)
	}
	for n := w; n < len(cells); n *= 2 {
		copy(cells[n:], cells[:n])
	}
}

// repeatCount is how many of n copies of a character w columns wide REP
// must draw for the same result. With autowrap every row after the
// cursor's is drawn whole from its first column, and past the row where
// the cursor reaches the bottom margin (or stays, below it) each row drawn
// is a fresh copy scrolled in, or the same row drawn over. Once every row
// of the screen and the scrollback has been drawn over twice (insert mode
// shifts what a row held into its last column the first time), more whole
// rows change nothing but which ring slots hold them: only the count
// within the last row matters.
func (s *Screen) repeatCount(n, w int) int {
	perRow := s.cols / w
	if perRow == 0 || !s.modes.has(modeAutowrap) {
		return n // the loop ends within a row
	}
	first := 0 // copies that still fit in the cursor's row
	if !s.pendingWrap {
		first = (s.cols - s.x) / w
	}
	settled := first + (2*s.rows+s.g.maxHistory+2)*perRow
	if n <= settled {
		return n
	}
	return settled + (n-settled)%perRow
}

// alignmentTest is DECALN (ESC # 8): fill the screen with 'E'.
func (s *Screen) alignmentTest() {
	s.top, s.bottom = 0, s.rows
	for y := range s.rows {
		l := s.g.line(y)
		l.reset(s.cols, cell{})
		cells := l.writable(s.cols)
		for x := range cells {
			cells[x].r = 'E'
		}
	}
	s.x, s.y, s.pendingWrap = 0, 0, false
}
