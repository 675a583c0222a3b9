package screen

// Character sets a G0-G3 slot can hold (ESC ( F, ESC ) F, ESC * F, ESC + F).
const (
	charsetASCII   = 0
	charsetDEC     = '0' // DEC special graphics: line drawing
	charsetUK      = 'A' // '#' is a pound sign
	decGraphicsMin = 0x5f
)

// decGraphics maps 0x5f-0x7e in the DEC special graphics set.
var decGraphics = [0x7f - decGraphicsMin]rune{
	'_' - decGraphicsMin: ' ', // "blank" in the VT100 manual
	'`' - decGraphicsMin: '◆',
	'a' - decGraphicsMin: '▒',
	'b' - decGraphicsMin: '␉',
	'c' - decGraphicsMin: '␌',
	'd' - decGraphicsMin: '␍',
	'e' - decGraphicsMin: '␊',
	'f' - decGraphicsMin: '°',
	'g' - decGraphicsMin: '±',
	'h' - decGraphicsMin: '␤',
	'i' - decGraphicsMin: '␋',
	'j' - decGraphicsMin: '┘',
	'k' - decGraphicsMin: '┐',
	'l' - decGraphicsMin: '┌',
	'm' - decGraphicsMin: '└',
	'n' - decGraphicsMin: '┼',
	'o' - decGraphicsMin: '⎺',
	'p' - decGraphicsMin: '⎻',
	'q' - decGraphicsMin: '─',
	'r' - decGraphicsMin: '⎼',
	's' - decGraphicsMin: '⎽',
	't' - decGraphicsMin: '├',
	'u' - decGraphicsMin: '┤',
	'v' - decGraphicsMin: '┴',
	'w' - decGraphicsMin: '┬',
	'x' - decGraphicsMin: '│',
	'y' - decGraphicsMin: '≤',
	'z' - decGraphicsMin: '≥',
	'{' - decGraphicsMin: 'π',
	'|' - decGraphicsMin: '≠',
	'}' - decGraphicsMin: '£',
	'~' - decGraphicsMin: '·',
}

// designate handles ESC ( F and friends: slot 0-3 is G0-G3. Sets other than
// the three we know fall back to ASCII, which is what every UTF-8 terminal
// effectively shows for them.
func (s *Screen) designate(slot int, final byte) {
	switch final {
	case charsetDEC, charsetUK:
		s.charsets[slot] = final
	default:
		s.charsets[slot] = charsetASCII
	}
}

// plainCharset reports whether printable ASCII prints as itself: no
// national or graphics set invoked and no single shift pending. The ASCII
// fast path depends on it.
func (s *Screen) plainCharset() bool {
	return s.charsets[s.gl] == charsetASCII && s.singleShift == 0
}

// mapCharset translates a 7-bit character through the invoked character set
// and consumes a pending single shift.
func (s *Screen) mapCharset(r rune) rune {
	set := s.charsets[s.gl]
	if s.singleShift != 0 {
		set = s.charsets[s.singleShift]
		s.singleShift = 0
	}
	switch set {
	case charsetDEC:
		if r >= decGraphicsMin && r < 0x7f {
			return decGraphics[r-decGraphicsMin]
		}
	case charsetUK:
		if r == '#' {
			return '£'
		}
	}
	return r
}
