package screen

// A cell is one column of one line. It is 8 bytes so that a 120x40 screen
// is under 40 KiB and 2,000 lines of scrollback under 2 MiB.
type cell struct {
	// r is the character, 0 for a blank cell (never written, or erased).
	// When flags has cellCluster it is an index into the cluster table
	// instead: a base character followed by combining characters.
	r rune
	// styleLo and styleHi are the cell's styleID, split around flags so
	// that a cell stays 8 bytes: see style.
	styleLo uint16
	flags   uint8
	styleHi uint8
}

// styleID is an index into the screen's style table; 0 is the default
// style. Cells hold 24 bits of it: a screen with its scrollback can show
// more than 65,536 distinct styles (a truecolour image is one per cell).
type styleID uint32

// newCell returns a cell showing r in style st.
func newCell(r rune, st styleID, flags uint8) cell {
	return cell{r: r, styleLo: uint16(st), flags: flags, styleHi: uint8(st >> 16)}
}

func (c cell) style() styleID { return styleID(c.styleLo) | styleID(c.styleHi)<<16 }

func (c *cell) setStyle(st styleID) { c.styleLo, c.styleHi = uint16(st), uint8(st>>16) }

const (
	cellWide     uint8 = 1 << iota // first column of a two-column character
	cellWideTail                   // second column of a two-column character; r is 0
	cellCluster                    // r indexes the cluster table
)

// blankCell is an erased cell drawn in the given style (which carries only a
// background colour: erasing paints with the pen's background, as xterm does).
func blankCell(st styleID) cell { return newCell(0, st, 0) }

// isBlank reports whether c shows nothing but its background.
func (c cell) isBlank() bool {
	return c.flags&(cellCluster|cellWide) == 0 && (c.r == 0 || c.r == ' ')
}

// color is a terminal colour packed in 32 bits: the kind in the top byte,
// the palette index or 0xRRGGBB below it. The zero value is the default colour.
type color uint32

const (
	colorDefault  color = 0
	colorIndexed  color = 1 << 24 // low 8 bits: palette index 0-255 (0-15 are the SGR 30-37/90-97 colours)
	colorRGB      color = 2 << 24 // low 24 bits: 0xRRGGBB
	colorKindMask color = 0xff << 24
)

// colorExtForm marks an indexed colour below 16 that the application set
// in the 256-colour form (38;5;n, 48;5;n) rather than as SGR 30-37/90-97:
// the two differ where bold brightens colours 0-7 (xterm's boldColors), so
// a restore and a capture keep the form the application used.
const colorExtForm color = 1 << 8

func indexedColor(i int) color { return colorIndexed | color(uint8(i)) }

// paletteColor is colour i set in the 256-colour form.
func paletteColor(i int) color {
	c := indexedColor(i)
	if c.index() < 16 {
		c |= colorExtForm
	}
	return c
}
func rgbColor(r, g, b int) color {
	return colorRGB | color(uint8(r))<<16 | color(uint8(g))<<8 | color(uint8(b))
}
func (c color) kind() color        { return c & colorKindMask }
func (c color) index() int         { return int(c & 0xff) }
func (c color) rgb() (r, g, b int) { return int(c>>16) & 0xff, int(c>>8) & 0xff, int(c) & 0xff }

// attr is a set of SGR attributes other than colours and underline style.
type attr uint16

const (
	attrBold attr = 1 << iota
	attrFaint
	attrItalic
	attrBlink
	attrRapidBlink
	attrReverse
	attrInvisible
	attrStrike
	attrOverline
)

// Underline styles, as in SGR 4:0 to 4:5.
const (
	underlineNone uint8 = iota
	underlineSingle
	underlineDouble
	underlineCurly
	underlineDotted
	underlineDashed
)

// style is everything that decides how a cell is drawn besides its
// character. Styles are interned (see styleTable): cells hold a styleID.
// The hyperlink is part of the style so that it moves with the cell for free.
type style struct {
	fg, bg, ul color
	attrs      attr
	underline  uint8
	// pad is always 0. A blank (_) field would make the style table's map
	// hash and compare a style field by field rather than as one block.
	pad  uint8
	link uint32 // index into the link table; 0 is no link
}
