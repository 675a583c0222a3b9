package screen

import "github.com/charmbracelet/x/ansi"

// sgr is SGR (CSI ... m): it changes the pen. Both the ';' and the ':'
// (sub-parameter) forms of extended colours and underline styles are read.
// Sub-parameters of a parameter we do not know are skipped with it.
func (s *Screen) sgr(params ansi.Params) {
	pen := s.pen
	if len(params) == 0 {
		pen = style{link: pen.link}
	}
	for i := 0; i < len(params); i++ {
		switch v := params[i].Param(0); v {
		case 0:
			pen = style{link: pen.link} // SGR 0 does not end a hyperlink
		case 1:
			pen.attrs |= attrBold
		case 2:
			pen.attrs |= attrFaint
		case 3:
			pen.attrs |= attrItalic
		case 4:
			pen.underline = underlineSingle
			if params[i].HasMore() && i+1 < len(params) {
				if u := params[i+1].Param(0); u <= int(underlineDashed) {
					pen.underline = uint8(u)
				}
			}
		case 5:
			pen.attrs |= attrBlink
		case 6:
			pen.attrs |= attrRapidBlink
		case 7:
			pen.attrs |= attrReverse
		case 8:
			pen.attrs |= attrInvisible
		case 9:
			pen.attrs |= attrStrike
		case 21:
			pen.underline = underlineDouble
		case 22:
			pen.attrs &^= attrBold | attrFaint
		case 23:
			pen.attrs &^= attrItalic
		case 24:
			pen.underline = underlineNone
		case 25:
			pen.attrs &^= attrBlink | attrRapidBlink
		case 27:
			pen.attrs &^= attrReverse
		case 28:
			pen.attrs &^= attrInvisible
		case 29:
			pen.attrs &^= attrStrike
		case 30, 31, 32, 33, 34, 35, 36, 37:
			pen.fg = indexedColor(v - 30)
		case 38:
			c, next := readColor(params, i, pen.fg)
			pen.fg, i = c, next
			continue
		case 39:
			pen.fg = colorDefault
		case 40, 41, 42, 43, 44, 45, 46, 47:
			pen.bg = indexedColor(v - 40)
		case 48:
			c, next := readColor(params, i, pen.bg)
			pen.bg, i = c, next
			continue
		case 49:
			pen.bg = colorDefault
		case 53:
			pen.attrs |= attrOverline
		case 55:
			pen.attrs &^= attrOverline
		case 58:
			c, next := readColor(params, i, pen.ul)
			pen.ul, i = c, next
			continue
		case 59:
			pen.ul = colorDefault
		case 90, 91, 92, 93, 94, 95, 96, 97:
			pen.fg = indexedColor(v - 90 + 8)
		case 100, 101, 102, 103, 104, 105, 106, 107:
			pen.bg = indexedColor(v - 100 + 8)
		}
		// Skip the sub-parameters of what we just read.
		for i < len(params) && params[i].HasMore() {
			i++
		}
	}
	if pen != s.pen {
		s.pen = pen
		s.penChanged()
	}
}

// readColor reads the extended colour starting at params[i] (38, 48 or 58):
// 5;n or 2;r;g;b with ';', or 5:n, 2:r:g:b or 2::r:g:b (with an empty colour
// space) with ':'. It returns the colour (old if the form is not one of
// those) and the index of the last parameter it consumed.
func readColor(params ansi.Params, i int, old color) (color, int) {
	if params[i].HasMore() {
		// Sub-parameter form: everything up to the end of the group.
		end := i
		for end < len(params) && params[end].HasMore() {
			end++
		}
		sub := params[i+1 : min(end+1, len(params))]
		if len(sub) == 0 {
			return old, end
		}
		switch sub[0].Param(0) {
		case 5:
			if len(sub) >= 2 {
				return paletteColor(sub[1].Param(0)), end
			}
		case 2:
			if len(sub) >= 5 {
				return rgbColor(sub[2].Param(0), sub[3].Param(0), sub[4].Param(0)), end
			}
			if len(sub) == 4 {
				return rgbColor(sub[1].Param(0), sub[2].Param(0), sub[3].Param(0)), end
			}
		}
		return old, end
	}
	if i+1 >= len(params) {
		return old, i
	}
	switch params[i+1].Param(0) {
	case 5:
		if i+2 < len(params) {
			return paletteColor(params[i+2].Param(0)), i + 2
		}
		return old, len(params) - 1
	case 2:
		if i+4 < len(params) {
			return rgbColor(params[i+2].Param(0), params[i+3].Param(0), params[i+4].Param(0)), i + 4
		}
		return old, len(params) - 1
	}
	return old, i + 1
}
