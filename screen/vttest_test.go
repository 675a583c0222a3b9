package screen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The vttest recordings in testdata/vttest are what vttest 2.7 (Debian's
// package) wrote at 80x24 for its menus 1 (cursor movements), 2 (screen
// features), 3 (character sets: tests 8 to 11) and 8 (insert/delete), a
// file per screen, in order, from its first menu on; wr's own model
// answered its queries. The driver pressed Enter at each "Push <RETURN>".
// Each check holds the screen to what vttest's text on it says must be
// seen, cell by cell where the text says exactly.

// vttestScreen is one check after a recording file.
type vttestScreen struct {
	file  string // menuN/NN.bin
	name  string // vttest's screen
	skip  string // why the check cannot hold, when it cannot
	check func(t *testing.T, s *Screen)
}

// row returns row y (1-based, as vttest counts) of the screen, all 80
// columns, with the DEC graphics and wide characters as they are drawn.
func row(s *Screen, y int) string {
	p := painter{s: s}
	cells := rowCells(s.g.line(y-1), s.cols)
	p.paintText(cells, len(cells))
	return string(p.b)
}

// wantRows checks rows (1-based) against their text, padded with blanks to
// the full width.
func wantRows(t *testing.T, s *Screen, rows map[int]string) {
	t.Helper()
	for y := 1; y <= s.rows; y++ {
		want, ok := rows[y]
		if !ok {
			continue
		}
		want += strings.Repeat(" ", max(s.cols-len([]rune(want)), 0))
		if got := row(s, y); got != want {
			t.Errorf("row %d\n got |%s|\nwant |%s|", y, got, want)
		}
	}
}

// frame is vttest 1.1's screen: a border of *'s and +'s, and in the middle
// a frame of E's with one free position around its text.
func frame(t *testing.T, s *Screen) {
	rows := map[int]string{
		1:  strings.Repeat("*", 80),
		2:  "*" + strings.Repeat("+", 78) + "*",
		23: "*" + strings.Repeat("+", 78) + "*",
		24: strings.Repeat("*", 80),
	}
	for y := 3; y <= 22; y++ {
		rows[y] = "*+" + strings.Repeat(" ", 76) + "+*"
	}
	gap := strings.Repeat(" ", 8)
	rows[9] = "*+" + gap + strings.Repeat("E", 60) + gap + "+*"
	rows[16] = rows[9]
	rows[10] = "*+" + gap + "E" + strings.Repeat(" ", 58) + "E" + gap + "+*"
	rows[15] = rows[10]
	text := []string{
		"The screen should be cleared,  and have an unbroken bor-",
		"der of *'s and +'s around the edge,   and exactly in the",
		"middle  there should be a frame of E's around this  text",
		"with  one (1) free position around it.    Push <RETURN>",
	}
	for i, l := range text {
		rows[11+i] = fmt.Sprintf("*+%sE %-56s E%s+*", gap, l, gap)
	}
	wantRows(t, s, rows)
}

// autowrap is vttest 1.3: the margins of rows 3-21 hold the letters in
// order (the region scrolled A-H away).
func autowrap(t *testing.T, s *Screen) {
	rows := map[int]string{
		1: "Test of autowrap, mixing control and print characters.",
		2: "The left/right margins should have letters in order:",
	}
	for y := 3; y <= 20; y++ {
		c := 'I' + y - 3
		rows[y] = string(rune(c)) + strings.Repeat(" ", 78) + string(rune(c+'a'-'A'))
	}
	wantRows(t, s, rows)
}

func columnMode(light bool) func(t *testing.T, s *Screen) {
	return func(t *testing.T, s *Screen) {
		bg := "dark"
		if light {
			bg = "light"
		}
		if s.modes.has(modeReverseVideo) != light {
			t.Errorf("reverse video %v, want %v", s.modes.has(modeReverseVideo), light)
		}
		rows := map[int]string{1: strings.Repeat("1234567890", 8)[:79]}
		for y := 3; y <= 19; y++ {
			rows[y] = strings.Repeat(" ", y-1) + "This is 80 column mode, " + bg + " background."
		}
		wantRows(t, s, rows)
	}
}

// scrolledDown is the end of a scroll-down test of region [top..bottom]:
// each line was written at the top margin and scrolled down.
func scrolledDown(kind string, top, bottom int) func(t *testing.T, s *Screen) {
	return func(t *testing.T, s *Screen) {
		rows := map[int]string{top: "Push <RETURN>"}
		for y := top + 1; y <= bottom; y++ {
			rows[y] = fmt.Sprintf("%s scroll down region [%d..%d] size %d Line %d", kind, top, bottom, bottom-top+1, 29-(y-top-1))
		}
		wantRows(t, s, rows)
	}
}

// renditions is vttest 2's "ten characters of each flavour": normal, bold,
// underscored, blinking and reversed, as *'s, DEC line drawing, x's and
// diamonds, and the 5 x 4 rectangle of A's.
func renditions(t *testing.T, s *Screen) {
	rows := map[int]string{
		8:  "           normal      bold        underscored blinking    reversed",
		10: "stars:     " + strings.Repeat(strings.Repeat("*", 10)+"  ", 5),
		12: "line:      " + strings.Repeat(strings.Repeat("─", 10)+"  ", 5),
		14: "x'es:      " + strings.Repeat(strings.Repeat("x", 10)+"  ", 5),
		16: "diamonds:  " + strings.Repeat(strings.Repeat("◆", 10)+"  ", 5),
		21: "Test of the SAVE/RESTORE CURSOR feature. There should",
		22: "be ten characters of each flavour, and a rectangle",
		23: "of 5 x 4 A's filling the top left of the screen.",
	}
	for y := 1; y <= 4; y++ {
		rows[y] = "AAAAA"
	}
	wantRows(t, s, rows)
	flavours := []style{{}, {attrs: attrBold}, {underline: underlineSingle}, {attrs: attrBlink}, {attrs: attrReverse}}
	for _, y := range []int{10, 12, 14, 16} {
		for i, want := range flavours {
			for x := 11 + 12*i; x < 21+12*i; x++ {
				if got := styleAt(s, x, y-1); got != want {
					t.Errorf("row %d column %d: style %+v, want %+v", y, x+1, got, want)
				}
			}
		}
	}
}

// graphicRendition is vttest 2's test pattern: each word drawn in the
// renditions it names.
func graphicRendition(light bool) func(t *testing.T, s *Screen) {
	return func(t *testing.T, s *Screen) {
		if s.modes.has(modeReverseVideo) != light {
			t.Errorf("reverse video %v, want %v", s.modes.has(modeReverseVideo), light)
		}
		for _, w := range []struct {
			x, y  int // 1-based
			attrs attr
			under bool
			text  string
		}{
			{1, 4, 0, false, "vanilla"},
			{40, 4, attrBold, false, "bold"},
			{6, 6, 0, true, "underline"},
			{1, 8, attrBlink, false, "blink"},
			{1, 12, attrReverse, false, "negative"},
			{45, 18, attrBold | attrBlink | attrReverse, true, "bold underline blink negative"},
		} {
			if got := row(s, w.y)[w.x-1 : w.x-1+len(w.text)]; got != w.text {
				t.Errorf("row %d: %q at column %d, want %q", w.y, got, w.x, w.text)
			}
			want := style{attrs: w.attrs}
			if w.under {
				want.underline = underlineSingle
			}
			if got := styleAt(s, w.x-1, w.y-1); got != want {
				t.Errorf("%q: style %+v, want %+v", w.text, got, want)
			}
		}
	}
}

// charsetBlock is a character set's three rows as vttest draws them: codes
// 0x20-0x3f, 0x40-0x5f and 0x60-0x7f (DEL draws nothing), each row from
// the block's first column.
func charsetBlock(set string) [3]string {
	r := []rune(set) // the 94 graphic characters, 0x21-0x7e
	return [3]string{" " + string(r[:31]), string(r[31:63]), string(r[63:])}
}

const asciiSet = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

var (
	ukSet  = strings.Replace(asciiSet, "#", "£", 1)
	decSet = asciiSet[:62] + " ◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·"
)

// vt100Charsets is vttest 3.8: each set in G0 (from column 10) and G1
// (from column 48).
func vt100Charsets(t *testing.T, s *Screen) {
	rows := map[int]string{24: "These are the installed character sets. Push <RETURN>"}
	for i, set := range []string{asciiSet, ukSet, decSet, asciiSet, asciiSet} {
		for j, l := range charsetBlock(set) {
			left := "         " + l
			rows[4+4*i+j] = left + strings.Repeat(" ", 47-len([]rune(left))) + l
		}
	}
	wantRows(t, s, rows)
}

// singleShift is vttest 3.11: the table of codes 32-127, each through SS2
// or SS3 with the UK set in G2/G3 (vttest designates "ISO Latin-1" with
// ESC * A, which a VT220 reads as the UK set), so only '#' changes.
func singleShift(n int) func(t *testing.T, s *Screen) {
	return func(t *testing.T, s *Screen) {
		rows := map[int]string{1: fmt.Sprintf("Testing single-shift G%d into GL (SS%d) with NRC disabled", n, n)}
		for y := 5; y <= 20; y++ {
			var b strings.Builder
			for col := range 6 {
				code := 32 + (y - 5) + 16*col
				ch := string(rune(code))
				switch code {
				case '#':
					ch = "£"
				case 127:
					ch = "" // DEL draws nothing
				}
				fmt.Fprintf(&b, "%7d: (%s)", code, ch)
			}
			rows[y] = b.String()
		}
		wantRows(t, s, rows)
	}
}

// staggered is vttest 8's DCH and ICH test: row k holds n-k letters (n is
// 80 after DCH, 40 after ICH; rows 4 and 5 are partly covered by the
// prompt).
func staggered(n int) func(t *testing.T, s *Screen) {
	return func(t *testing.T, s *Screen) {
		rows := map[int]string{}
		for y := 1; y <= 24; y++ {
			if y == 4 || y == 5 {
				continue
			}
			rows[y] = strings.Repeat(string(rune('A'+y-1)), n-y)
		}
		rows[4] = "The right column should be staggered " + strings.Repeat("D", max(n-4-37, 0))
		wantRows(t, s, rows)
	}
}

var vttestScreens = []vttestScreen{
	{file: "menu1/01.bin", name: "1.1 frame at 80 columns", check: frame},
	{file: "menu1/02.bin", name: "1.2 frame at 132 columns (vttest keeps 80)", check: frame},
	{file: "menu1/03.bin", name: "1.3 autowrap at 80 columns", check: autowrap},
	{file: "menu1/04.bin", name: "1.4 autowrap at 132 columns (vttest keeps 80)", check: autowrap},
	{file: "menu1/05.bin", name: "1.5 controls inside ESC sequences", check: func(t *testing.T, s *Screen) {
		line := "A B C D E F G H I"
		wantRows(t, s, map[int]string{1: "Test of cursor-control characters inside ESC sequences.",
			2: "Below should be four identical lines:", 3: "", 4: line, 5: line, 6: line, 7: line, 8: "", 9: "Push <RETURN>"})
	}},
	{file: "menu1/06.bin", name: "1.6 leading zeros", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "Test of leading zeros in ESC sequences.",
			2: `Two lines below you should see the sentence "This is a correct sentence".`, 3: "", 4: "This is a correct sentence"})
	}},

	{file: "menu2/01.bin", name: "2.1 wrap around", check: func(t *testing.T, s *Screen) {
		stars := strings.Repeat("*", 80)
		wantRows(t, s, map[int]string{1: stars, 2: stars, 3: stars, 4: "",
			5: "This should be three identical lines of *'s completely filling"})
	}},
	{file: "menu2/02.bin", name: "2.2 tab setting", check: func(t *testing.T, s *Screen) {
		stars := strings.Repeat("     *", 13) + " "
		wantRows(t, s, map[int]string{1: " " + stars[:79], 2: " " + stars[:79], 3: ""})
	}},
	{file: "menu2/03.bin", name: "2.3 80 columns, light background", check: columnMode(true)},
	{file: "menu2/04.bin", name: "2.4 132 columns, light background (vttest keeps 80)", check: columnMode(true)},
	{file: "menu2/05.bin", name: "2.5 80 columns, dark background", check: columnMode(false)},
	{file: "menu2/06.bin", name: "2.6 132 columns, dark background (vttest keeps 80)", check: columnMode(false)},
	{file: "menu2/07.bin", name: "2.7 soft scroll down, region 12-13", check: scrolledDown("Soft", 12, 13)},
	{file: "menu2/08.bin", name: "2.8 soft scroll down, whole screen", check: scrolledDown("Soft", 1, 24)},
	{file: "menu2/09.bin", name: "2.9 jump scroll down, region 12-13", check: scrolledDown("Jump", 12, 13)},
	{file: "menu2/10.bin", name: "2.10 jump scroll down, whole screen", check: scrolledDown("Jump", 1, 24)},
	{file: "menu2/11.bin", name: "2.11 origin mode, bottom", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{23: "This line should be the one above the bottom of the screen. Push <RETURN>",
			24: "Origin mode test. This line should be at the bottom of the screen."})
	}},
	{file: "menu2/12.bin", name: "2.12 origin mode, top", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "This line should be at the top of the screen. Push <RETURN>",
			24: "Origin mode test. This line should be at the bottom of the screen."})
	}},
	{file: "menu2/13.bin", name: "2.13 graphic rendition, dark background", check: graphicRendition(false)},
	{file: "menu2/14.bin", name: "2.14 graphic rendition, light background", check: graphicRendition(true)},
	{file: "menu2/15.bin", name: "2.15 save and restore cursor", check: renditions},

	{file: "menu3/02.bin", name: "3.8 VT100 character sets", check: vt100Charsets},
	{file: "menu3/04.bin", name: "3.9 shift in, shift out", check: func(t *testing.T, s *Screen) {
		rows := map[int]string{1: "         These are the G0 and G1 character sets.", 24: "Push <RETURN>"}
		for j, l := range charsetBlock(asciiSet) {
			rows[4+j] = "         " + l
		}
		for j, l := range charsetBlock(ukSet) {
			rows[8+j] = "         " + l
		}
		rows[3] = "Character set B (US ASCII)                     Selected as G0 (with SI)"
		wantRows(t, s, rows)
	}},
	{file: "menu3/06.bin", name: "3.10 VT220 locking shifts",
		skip: "the sets shifted into GR arrive as 8-bit bytes (0xa0-0xff), and wr reads its output as UTF-8"},
	{file: "menu3/08.bin", name: "3.11 single shift 2", check: singleShift(2)},
	{file: "menu3/09.bin", name: "3.11 single shift 3", check: singleShift(3)},

	{file: "menu8/02.bin", name: "8.1 accordion (insert and delete line)", check: func(t *testing.T, s *Screen) {
		rows := map[int]string{1: strings.Repeat("A", 80), 2: "Top line: A's, bottom line: X's, this line, nothing more. Push <RETURN>", 24: strings.Repeat("X", 80)}
		for y := 3; y <= 23; y++ {
			rows[y] = ""
		}
		wantRows(t, s, rows)
	}},
	{file: "menu8/03.bin", name: "8.2 insert mode", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "A" + strings.Repeat("*", 78) + "B", 2: "", 3: ""})
	}},
	{file: "menu8/04.bin", name: "8.3 delete character", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "AB"})
	}},
	{file: "menu8/05.bin", name: "8.4 DCH staggered", check: staggered(80)},
	{file: "menu8/06.bin", name: "8.5 ICH staggered", check: staggered(40)},
	{file: "menu8/07.bin", name: "8.6 ANSI insert character", check: func(t *testing.T, s *Screen) {
		line := "  A B C D E F G H I J K L M N O P Q R S T U V W X Y Z"
		wantRows(t, s, map[int]string{3: line, 5: "", 6: line})
	}},
	{file: "menu8/09.bin", name: "8.1 accordion at 132 columns (vttest keeps 80)", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: strings.Repeat("A", 80), 24: strings.Repeat("X", 80)})
	}},
	{file: "menu8/10.bin", name: "8.2 insert mode at 132 columns", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "A" + strings.Repeat("*", 78) + "B"})
	}},
	{file: "menu8/11.bin", name: "8.3 delete character at 132 columns", check: func(t *testing.T, s *Screen) {
		wantRows(t, s, map[int]string{1: "AB"})
	}},
	{file: "menu8/12.bin", name: "8.4 DCH staggered at 132 columns", check: staggered(80)},
	{file: "menu8/13.bin", name: "8.5 ICH staggered at 132 columns", check: staggered(40)},
}

// TestVttest replays each menu's recording through one screen and checks
// the screens vttest describes.
func TestVttest(t *testing.T) {
	checks := map[string]vttestScreen{}
	for _, c := range vttestScreens {
		checks[c.file] = c
	}
	for _, menu := range []string{"menu1", "menu2", "menu3", "menu8"} {
		files, err := filepath.Glob(filepath.Join("testdata", "vttest", menu, "*.bin"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no recordings for %s: %v", menu, err)
		}
		s := New(80, 24, 100)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s.Write(b)
			c, ok := checks[menu+"/"+filepath.Base(f)]
			if !ok {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				if c.skip != "" {
					t.Skip(c.skip)
				}
				c.check(t, s)
			})
		}
	}
}
