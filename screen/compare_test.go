package screen

import (
	"fmt"
	imgcolor "image/color"
	"io"
	"slices"
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// cellView is a cell as both models can describe it: its text ("" for the
// second column of a wide character, " " for a blank), width and style.
type cellView struct {
	text  string
	width int
	st    style // link holds 0 or 1; the link text is in linkText
	link  string
}

func (c cellView) String() string {
	return fmt.Sprintf("%q w%d %+v link=%q", c.text, c.width, c.st, c.link)
}

// view describes a cell of s's active screen at x, y (y < 0: scrollback).
func view(s *Screen, cells []cell, x int) cellView {
	c := cells[x]
	v := cellView{st: s.styles.list[c.style()], width: 1}
	if v.st.link != 0 {
		v.link = s.links.text(int32(v.st.link))
		v.st.link = 1
	}
	switch {
	case c.flags&cellWideTail != 0:
		v.text, v.width = "", 0
	case c.r == 0 && c.flags&cellCluster == 0:
		v.text = " "
	default:
		v.text = string(s.cellText(nil, c))
		if c.flags&cellWide != 0 {
			v.width = 2
		}
	}
	return v
}

// vtView describes an x/vt cell the same way.
func vtView(c *uv.Cell) cellView {
	if c == nil {
		return cellView{text: " ", width: 1}
	}
	v := cellView{text: c.Content, width: c.Width}
	if v.text == "" && v.width != 0 {
		v.text = " "
	}
	v.st.fg = fromColor(c.Style.Fg)
	v.st.bg = fromColor(c.Style.Bg)
	v.st.ul = fromColor(c.Style.UnderlineColor)
	v.st.underline = uint8(c.Style.Underline)
	for _, m := range [...]struct {
		uv   uint8
		mine attr
	}{
		{uv.AttrBold, attrBold}, {uv.AttrFaint, attrFaint}, {uv.AttrItalic, attrItalic},
		{uv.AttrBlink, attrBlink}, {uv.AttrRapidBlink, attrRapidBlink},
		{uv.AttrReverse, attrReverse}, {uv.AttrConceal, attrInvisible},
		{uv.AttrStrikethrough, attrStrike},
	} {
		if c.Style.Attrs&m.uv != 0 {
			v.st.attrs |= m.mine
		}
	}
	if !c.Link.IsZero() {
		v.st.link = 1
		v.link = c.Link.Params + ";" + c.Link.URL
	}
	return v
}

func fromColor(c imgcolor.Color) color {
	switch c := c.(type) {
	case nil:
		return colorDefault
	case ansi.BasicColor:
		return indexedColor(int(c))
	case ansi.IndexedColor:
		return paletteColor(int(c))
	case imgcolor.RGBA:
		return rgbColor(int(c.R), int(c.G), int(c.B))
	default:
		r, g, b, _ := c.RGBA()
		return rgbColor(int(r>>8), int(g>>8), int(b>>8))
	}
}

// sameCell compares two views. A blank and a space are the same (both
// render as " ").
func sameCell(a, b cellView) bool {
	if a.text != b.text || a.width != b.width || a.link != b.link {
		return false
	}
	return a.st == b.st
}

// diffScreens lists the cells where s and the x/vt emulator e differ, at
// most max of them, skipping cells for which skip returns true.
func diffScreens(s *Screen, e *vt.Emulator, max int, ignore func(a, b cellView) bool) []string {
	var out []string
	for y := range s.rows {
		cells := rowCells(s.g.line(y), s.cols)
		for x := range s.cols {
			a, b := view(s, cells, x), vtView(e.CellAt(x, y))
			if ignore != nil {
				a, b = normalize(a, b, ignore)
			}
			if !sameCell(a, b) {
				out = append(out, fmt.Sprintf("(%d,%d): ours %v, x/vt %v", x, y, a, b))
				if len(out) == max {
					return out
				}
			}
		}
	}
	return out
}

func normalize(a, b cellView, ignore func(a, b cellView) bool) (cellView, cellView) {
	if ignore(a, b) {
		return a, a
	}
	return a, b
}

// diffModels lists where two of our screens differ: cells of both screens
// (and, with history, the scrollback), cursor, modes, title.
func diffModels(a, b *Screen, history bool) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < 20 {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	if a.cols != b.cols || a.rows != b.rows {
		add("size %dx%d vs %dx%d", a.cols, a.rows, b.cols, b.rows)
		return out
	}
	compareGrid := func(name string, ga, gb *grid, from int) {
		for y := from; y < a.rows; y++ {
			ca, cb := ga.line(y).cells(), gb.line(y).cells()
			n := max(len(ca), len(cb))
			for x := range n {
				var va, vb cellView
				if x < len(ca) {
					va = view(a, ca, x)
				} else {
					va = cellView{text: " ", width: 1}
				}
				if x < len(cb) {
					vb = view(b, cb, x)
				} else {
					vb = cellView{text: " ", width: 1}
				}
				if !sameCell(va, vb) {
					add("%s (%d,%d): %v vs %v", name, x, y, va, vb)
				}
			}
		}
	}
	from := 0
	if history {
		if a.primary.history != b.primary.history {
			add("history %d vs %d", a.primary.history, b.primary.history)
		} else {
			from = -a.primary.history
		}
	}
	compareGrid("primary", a.primary, b.primary, from)
	if a.onAlt != b.onAlt {
		add("alt screen %v vs %v", a.onAlt, b.onAlt)
	} else if a.onAlt {
		compareGrid("alt", a.alt, b.alt, 0)
	}
	if a.x != b.x || a.y != b.y || a.pendingWrap != b.pendingWrap {
		add("cursor %d,%d wrap %v vs %d,%d wrap %v", a.x, a.y, a.pendingWrap, b.x, b.y, b.pendingWrap)
	}
	if a.modes != b.modes {
		add("modes %b vs %b", a.modes, b.modes)
	}
	if a.pen != b.pen && !(a.pen.link != 0 && b.pen.link != 0) {
		add("pen %+v vs %+v", a.pen, b.pen)
	}
	if a.top != b.top || a.bottom != b.bottom {
		add("region %d-%d vs %d-%d", a.top, a.bottom, b.top, b.bottom)
	}
	if a.title != b.title {
		add("title %q vs %q", a.title, b.title)
	}
	if !slices.Equal(a.titles, b.titles) {
		add("title stack %+v vs %+v", a.titles, b.titles)
	}
	if a.modifyOtherKeys != b.modifyOtherKeys {
		add("modifyOtherKeys %d vs %d", a.modifyOtherKeys, b.modifyOtherKeys)
	}
	if a.cursorStyle != b.cursorStyle {
		add("cursor style %d vs %d", a.cursorStyle, b.cursorStyle)
	}
	if a.charsets != b.charsets || a.gl != b.gl {
		add("charsets %v/%d vs %v/%d", a.charsets, a.gl, b.charsets, b.gl)
	}
	if a.g.kitty.flags != b.g.kitty.flags || len(a.g.kitty.stack) != len(b.g.kitty.stack) {
		add("kitty %+v vs %+v", a.g.kitty, b.g.kitty)
	}
	if !equalBools(a.tabs, b.tabs) {
		add("tabs differ")
	}
	// A saved wrap pending short of the last column (kept through a
	// widening of the alternate screen) is one a terminal cannot be made
	// to save: see appendSaved.
	if a.g.saved.valid && (a.g.saved.x != b.g.saved.x || a.g.saved.y != b.g.saved.y || a.g.saved.pendingWrap != b.g.saved.pendingWrap && a.g.saved.x == a.cols-1 || a.g.saved.pen != b.g.saved.pen && a.g.saved.pen.link == 0) {
		add("saved cursor %+v vs %+v", a.g.saved, b.g.saved)
	}
	return out
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func joinDiffs(d []string) string { return strings.Join(d, "\n") }

// newVT returns an x/vt emulator whose answers to queries are read and
// dropped (x/vt writes them to a pipe, and an unread pipe blocks it).
func newVT(t testing.TB, cols, rows int) *vt.Emulator {
	e := vt.NewEmulator(cols, rows)
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, e)
		close(done)
	}()
	t.Cleanup(func() {
		// Emulator.Close races with Read; closing the pipe's write end
		// ends the reader without touching the emulator.
		if pw, ok := e.InputPipe().(*io.PipeWriter); ok {
			pw.Close()
			<-done
		}
	})
	return e
}

// vtState is what an x/vt emulator reports through its callbacks.
type vtState struct {
	title, cwd string
	dec, ansi  map[int]bool
}

// watchVT records x/vt's title, working directory and modes.
func watchVT(e *vt.Emulator) *vtState {
	st := &vtState{dec: map[int]bool{}, ansi: map[int]bool{}}
	set := func(m ansi.Mode, on bool) {
		if _, ok := m.(ansi.ANSIMode); ok {
			st.ansi[m.Mode()] = on
		} else {
			st.dec[m.Mode()] = on
		}
	}
	e.SetCallbacks(vt.Callbacks{
		Title:            func(s string) { st.title = s },
		WorkingDirectory: func(s string) { st.cwd = s },
		EnableMode:       func(m ansi.Mode) { set(m, true) },
		DisableMode:      func(m ansi.Mode) { set(m, false) },
	})
	return st
}

// diffVTState lists where x/vt's title, modes, cursor shape and visibility
// differ from s's.
func diffVTState(s *Screen, e *vt.Emulator, st *vtState) []string {
	var out []string
	if st.title != s.title {
		out = append(out, fmt.Sprintf("title %q, x/vt %q", s.title, st.title))
	}
	if st.cwd != s.cwd {
		out = append(out, fmt.Sprintf("working directory %q, x/vt %q", s.cwd, st.cwd))
	}
	for _, m := range decModes {
		if m.mode == modeCursorBlink || m.mode == modeMouseURXVT || m.mode == modeMouseSGRPixels ||
			m.mode == modeReverseVideo || m.mode == modeAlternateScroll || m.mode == modeMouseUTF8 {
			continue // x/vt does not track these
		}
		if st.dec[m.num] != s.modes.has(m.mode) {
			out = append(out, fmt.Sprintf("mode ?%d %v, x/vt %v", m.num, s.modes.has(m.mode), st.dec[m.num]))
		}
	}
	for num, m := range map[int]mode{6: modeOrigin, 7: modeAutowrap} {
		if st.dec[num] != s.modes.has(m) {
			out = append(out, fmt.Sprintf("mode ?%d %v, x/vt %v", num, s.modes.has(m), st.dec[num]))
		}
	}
	for num, m := range map[int]mode{4: modeInsert, 20: modeNewline} {
		if st.ansi[num] != s.modes.has(m) {
			out = append(out, fmt.Sprintf("mode %d %v, x/vt %v", num, s.modes.has(m), st.ansi[num]))
		}
	}
	if e.CursorHidden() == s.modes.has(modeCursorVisible) {
		out = append(out, fmt.Sprintf("cursor visible %v, x/vt hidden %v", s.modes.has(modeCursorVisible), e.CursorHidden()))
	}
	n := max(s.cursorStyle, 1)
	if shape, blink := e.CursorStyle(); int(shape) != (n-1)/2 || blink != (n%2 == 1) {
		out = append(out, fmt.Sprintf("cursor style %d, x/vt %v blink %v", s.cursorStyle, shape, blink))
	}
	if e.IsAltScreen() != s.onAlt {
		out = append(out, fmt.Sprintf("alternate screen %v, x/vt %v", s.onAlt, e.IsAltScreen()))
	}
	return out
}
