package screen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// logicalLines returns the primary screen's scrollback and screen as logical
// lines: soft-wrapped rows joined (without the column an early wrap left),
// trailing blanks trimmed, the trailing empty lines dropped.
func logicalLines(s *Screen) []string {
	g := s.primary
	var out []string
	var cur []byte
	p := painter{s: s}
	for y := -g.history; y < s.rows; y++ {
		l := g.line(y)
		cells := l.cells()
		p.b = p.b[:0]
		if l.wrapped && cells != nil && y < s.rows-1 {
			end := len(cells)
			if next := g.line(y + 1).cells(); l.early && len(next) > 0 && next[0].flags&cellWide != 0 {
				end--
			}
			p.paintText(cells, end)
			cur = append(cur, p.b...)
			continue
		}
		p.paintText(cells, trimmedEnd(cells, true))
		cur = append(cur, p.b...)
		out = append(out, string(cur))
		cur = cur[:0]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func seqLines(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func seqInput(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\r\n", i)
	}
	return b.String()
}

// TestResizeKeepsLines is issue 15's report: seq 1 34 in 120x35, then 80x24.
func TestResizeKeepsLines(t *testing.T) {
	s := New(120, 35, 1000)
	s.Write([]byte(seqInput(1, 34) + "$ "))
	s.Resize(80, 24)
	want := append(seqLines(1, 34), "$")
	if got := logicalLines(s); !equalLines(got, want) {
		t.Fatalf("after 80x24:\n%s", quoteLines(got))
	}
	if got := screenLines(s); got[0] != "12" || got[23] != "$" {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	if x, y := s.cursor(); x != 2 || y != 23 {
		t.Fatalf("cursor %d,%d", x, y)
	}
	s.Resize(120, 35)
	if got := screenLines(s); !equalLines(got, want) {
		t.Fatalf("back at 120x35 the lines are not back from the scrollback:\n%s", quoteLines(got))
	}
	if s.scrollbackLen() != 0 {
		t.Fatalf("scrollback %q", historyLines(s))
	}
	if x, y := s.cursor(); x != 2 || y != 34 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// TestResizeRows: shrinking and growing with the cursor at the bottom, in
// the middle and at the top.
func TestResizeRows(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		rows   int
		screen []string // after shrinking to rows
		hist   int      // scrollback lines after shrinking
		cursor [2]int
	}{
		{"cursor at the bottom", seqInput(1, 15) + "$", 5,
			[]string{"12", "13", "14", "15", "$"}, 11, [2]int{1, 4}},
		{"cursor in the middle, blank rows below", seqInput(1, 5) + "$", 4,
			[]string{"3", "4", "5", "$"}, 2, [2]int{1, 3}},
		{"cursor in the middle, only blank rows go", seqInput(1, 3) + "$", 6,
			[]string{"1", "2", "3", "$"}, 0, [2]int{1, 3}},
		{"cursor at the top", "\x1b[H$", 4,
			[]string{"$"}, 0, [2]int{1, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(20, 10, 1000)
			s.Write([]byte(tc.in))
			before, beforeHist := screenLines(s), historyLines(s)
			bx, by := s.cursor()
			all := logicalLines(s)

			s.Resize(20, tc.rows)
			if got := screenLines(s); !equalLines(got, tc.screen) {
				t.Fatalf("screen after shrinking:\n%s", quoteLines(got))
			}
			if s.scrollbackLen() != tc.hist {
				t.Fatalf("scrollback %q", historyLines(s))
			}
			if x, y := s.cursor(); x != tc.cursor[0] || y != tc.cursor[1] {
				t.Fatalf("cursor %d,%d after shrinking", x, y)
			}
			if got := logicalLines(s); !equalLines(got, all) {
				t.Fatalf("lines after shrinking:\n%s", quoteLines(got))
			}

			// Growing back pulls the pushed lines down again: the same
			// screen as before.
			s.Resize(20, 10)
			if got := screenLines(s); !equalLines(got, before) {
				t.Fatalf("screen after growing:\n%s\nwant\n%s", quoteLines(got), quoteLines(before))
			}
			if got := historyLines(s); !equalLines(got, beforeHist) {
				t.Fatalf("scrollback after growing %q", got)
			}
			if x, y := s.cursor(); x != bx || y != by {
				t.Fatalf("cursor %d,%d after growing, was %d,%d", x, y, bx, by)
			}
		})
	}
}

// TestResizeGrowPullsFromScrollback: growing brings lines back from the
// scrollback, as xterm does, the cursor staying on its line.
func TestResizeGrowPullsFromScrollback(t *testing.T) {
	s := New(20, 5, 1000)
	s.Write([]byte(seqInput(1, 10) + "$"))
	s.Resize(20, 8)
	if got := screenLines(s); !equalLines(got, []string{"4", "5", "6", "7", "8", "9", "10", "$"}) {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	if x, y := s.cursor(); x != 1 || y != 7 {
		t.Fatalf("cursor %d,%d", x, y)
	}
	s.Resize(20, 20)
	if got := screenLines(s); !equalLines(got, append(seqLines(1, 10), "$")) || s.scrollbackLen() != 0 {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	if x, y := s.cursor(); x != 1 || y != 10 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// TestResizeGrowAfterClear: growing pulls lines back from the scrollback
// even when the screen was cleared, as xterm does; shrinking only took the
// blank rows.
func TestResizeGrowAfterClear(t *testing.T) {
	s := New(20, 10, 1000)
	s.Write([]byte(seqInput(1, 15) + "\x1b[H\x1b[2J$"))
	s.Resize(20, 4)
	if got := screenLines(s); !equalLines(got, []string{"$"}) || s.scrollbackLen() != 6 {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	s.Resize(20, 10)
	if got := screenLines(s); !equalLines(got, []string{"1", "2", "3", "4", "5", "6", "$"}) || s.scrollbackLen() != 0 {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	if x, y := s.cursor(); x != 1 || y != 6 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// TestResizeCursorAtTopKeepsItsLine: with a screenful of text below the
// cursor, shrinking keeps the cursor's line on screen; what does not fit
// below it goes, as in xterm and tmux.
func TestResizeCursorAtTopKeepsItsLine(t *testing.T) {
	s := New(20, 10, 1000)
	s.Write([]byte(strings.TrimSuffix(seqInput(1, 10), "\r\n") + "\x1b[3;2H"))
	s.Resize(20, 4)
	if got := screenLines(s); !equalLines(got, []string{"3", "4", "5", "6"}) {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	if got := historyLines(s); !equalLines(got, []string{"1", "2"}) {
		t.Fatalf("scrollback %q", got)
	}
	if x, y := s.cursor(); x != 1 || y != 0 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// longLines is text with lines that wrap at 80 columns (a 106-column one
// among them), with blank lines and wide characters.
func longLines() string {
	var b strings.Builder
	for i := range 40 {
		switch i % 5 {
		case 0:
			b.WriteString(strings.Repeat(strconv.Itoa(i%10), 106))
		case 1:
			fmt.Fprintf(&b, "short %d", i)
		case 2:
			b.WriteString(strings.Repeat("中文", 30+i))
		case 3:
			// a blank line
		case 4:
			fmt.Fprintf(&b, "x%sy%s", strings.Repeat("-", 78), strings.Repeat("文", i))
		}
		b.WriteString("\r\n")
	}
	b.WriteString("$ ")
	return b.String()
}

// TestReflowRoundTrip: 80 -> 60 -> 100 -> 80 columns gives the same text,
// scrollback included, as never resizing.
func TestReflowRoundTrip(t *testing.T) {
	in := []byte(longLines())
	want := New(80, 24, 1000)
	want.Write(in)
	s := New(80, 24, 1000)
	s.Write(in)
	for _, cols := range []int{60, 100, 80} {
		s.Resize(cols, 24)
		checkInvariants(t, s, 1000)
	}
	opt := TextOptions{Scrollback: true}
	if got, w := string(s.AppendText(nil, opt)), string(want.AppendText(nil, opt)); got != w {
		t.Fatalf("text after resizing:\n%s\nwant\n%s", got, w)
	}
	if s.x != want.x || s.y != want.y {
		t.Fatalf("cursor %d,%d, want %d,%d", s.x, s.y, want.x, want.y)
	}
	// The 106-column line is whole again at 120 columns.
	s.Resize(120, 24)
	if got := logicalLines(s)[0]; got != strings.Repeat("0", 106) {
		t.Fatalf("first line %q", got)
	}
	if got := historyLines(s)[0]; got != strings.Repeat("0", 106) {
		t.Fatalf("first row at 120 columns %q", got)
	}
}

// TestReflowWideAtTheWrap: a two-column character never straddles a wrap;
// one that no longer fits in the last column wraps early, and joins its
// line again when there is room.
func TestReflowWideAtTheWrap(t *testing.T) {
	s := New(10, 5, 100)
	s.Write([]byte("abcdefgh中x\r\n$"))
	if got := screenLines(s); !equalLines(got, []string{"abcdefgh中", "x", "$"}) {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	steps := []struct {
		cols   int
		screen []string
		early  bool // the first row wrapped early
	}{
		{9, []string{"abcdefgh", "中x", "$"}, true},
		{11, []string{"abcdefgh中x", "$"}, false},
		{3, []string{"abc", "def", "gh", "中x", "$"}, true},
		{2, []string{"ab", "cd", "ef", "gh", "中", "x", "$"}, false},
		{10, []string{"abcdefgh中", "x", "$"}, false},
	}
	for _, st := range steps {
		s.Resize(st.cols, 10)
		checkInvariants(t, s, 100)
		if got := screenLines(s); !equalLines(got, st.screen) {
			t.Fatalf("at %d columns:\n%s", st.cols, quoteLines(got))
		}
		if got := logicalLines(s); !equalLines(got, []string{"abcdefgh中x", "$"}) {
			t.Fatalf("at %d columns, lines %q", st.cols, got)
		}
		if st.cols == 3 && !s.primary.line(2).early {
			t.Fatalf("at 3 columns, the third row is not marked an early wrap")
		}
		if st.cols == 9 && !s.primary.line(0).early {
			t.Fatalf("at 9 columns, the first row is not marked an early wrap")
		}
	}
	// An early wrap printed at 10 columns (no room for the wide character in
	// the last column, which keeps what it had) joins at 11 without it.
	s = New(10, 3, 100)
	s.Write([]byte("0123456789\rabcdefghi中"))
	if got := screenLines(s); !equalLines(got, []string{"abcdefghi9", "中"}) || !s.primary.line(0).early {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}
	s.Resize(11, 3)
	if got := screenLines(s); !equalLines(got, []string{"abcdefghi中"}) {
		t.Fatalf("at 11 columns:\n%s", quoteLines(got))
	}
}

// TestReflowCursor: the cursor stays on the same character of its logical
// line, and a pending wrap survives when the line fills the new width.
func TestReflowCursor(t *testing.T) {
	s := New(10, 5, 100)
	s.Write([]byte("abcdefghijklmnopqrstuvwxy\x1b[2;4H"))
	if c := cellAt(s, s.x, s.y); c.r != 'n' {
		t.Fatalf("cursor on %q", c.r)
	}
	for _, cols := range []int{7, 3, 12, 30, 10} {
		s.Resize(cols, 5)
		if c := cellAt(s, s.x, s.y); c.r != 'n' {
			t.Fatalf("at %d columns the cursor (%d,%d) is on %q", cols, s.x, s.y, c.r)
		}
	}

	s = New(10, 5, 100)
	s.Write([]byte("0123456789"))
	s.Resize(5, 5)
	if x, y := s.cursor(); x != 4 || y != 1 || !s.pendingWrap {
		t.Fatalf("cursor %d,%d pending %v", x, y, s.pendingWrap)
	}
	s.Write([]byte("x"))
	if got := screenLines(s); !equalLines(got, []string{"01234", "56789", "x"}) {
		t.Fatalf("screen:\n%s", quoteLines(got))
	}

	// Past the end of the text, the cursor keeps its distance from it.
	s = New(10, 5, 100)
	s.Write([]byte("$ \x1b[C\x1b[C"))
	s.Resize(20, 5)
	if x, y := s.cursor(); x != 4 || y != 0 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// TestReflowSavedCursor: a saved cursor (DECSC, or 1049's on the alternate
// screen) moves with its character too.
func TestReflowSavedCursor(t *testing.T) {
	for _, alt := range []bool{false, true} {
		s := New(10, 5, 100)
		s.Write([]byte(seqInput(1, 10) + "abcdefghijklm\x1b7"))
		if alt {
			s.Write([]byte("\x1b[?1049h\x1b[Hfull screen"))
		} else {
			s.Write([]byte("\x1b[A\x1b[2D"))
		}
		s.Resize(5, 3)
		s.Resize(8, 6)
		if alt {
			s.Write([]byte("\x1b[?1049l"))
		} else {
			s.Write([]byte("\x1b8"))
		}
		s.Write([]byte("!"))
		if got := logicalLines(s); !equalLines(got, append(seqLines(1, 10), "abcdefghijklm!")) {
			t.Fatalf("alt %v: lines\n%s", alt, quoteLines(got))
		}
	}
}

// TestReflowRestore: a restore reproduces a reflowed screen, scrollback
// included.
func TestReflowRestore(t *testing.T) {
	a := New(80, 24, 100)
	a.Write([]byte(longLines()))
	for _, cols := range []int{60, 100, 33} {
		a.Resize(cols, 17)
		b := New(cols, 17, 100)
		b.Write(a.AppendRestore(nil))
		if d := diffModels(a, b, true); len(d) > 0 {
			t.Fatalf("at %d columns:\n%s", cols, joinDiffs(d))
		}
	}
}

// TestResizeProperty: whatever the writes and resizes, the scrollback and
// screen hold every line written, once, in order, as long as the scrollback
// never filled.
func TestResizeProperty(t *testing.T) {
	seeds := uint64(200)
	if raceEnabled {
		seeds = 50 // single-goroutine code: the detector only slows it
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 15))
		cols, rows := 10+r.IntN(191), 3+r.IntN(58)
		s := New(cols, rows, 100000)
		n := 0
		var log, want []string
		for range 30 {
			if r.IntN(3) == 0 {
				cols, rows = 10+r.IntN(191), 3+r.IntN(58)
				s.Resize(cols, rows)
				log = append(log, fmt.Sprintf("resize %dx%d", cols, rows))
				checkInvariants(t, s, 100000)
				continue
			}
			var b strings.Builder
			for range r.IntN(3 * rows) {
				n++
				l := strconv.Itoa(n)
				switch r.IntN(6) {
				case 0:
					l += strings.Repeat(".", r.IntN(300))
				case 1:
					l += strings.Repeat("中", r.IntN(150))
				case 2:
					l += strings.Repeat("a中", r.IntN(150))
				}
				want = append(want, l)
				b.WriteString(l + "\r\n")
			}
			s.Write([]byte(b.String()))
			log = append(log, fmt.Sprintf("write to %d", n))
		}
		var got []string
		for _, l := range logicalLines(s) {
			if l != "" {
				got = append(got, l)
			}
		}
		if !equalLines(got, want) {
			t.Fatalf("seed %d (%s): lines\n%s", seed, strings.Join(log, ", "), quoteLines(got))
		}
	}
}

// TestResizeAltScreen: the alternate screen is cut and extended in place,
// without reflow (its programs redraw), while the primary screen under it
// keeps and reflows its lines.
func TestResizeAltScreen(t *testing.T) {
	s := New(10, 4, 100)
	s.Write([]byte(seqInput(1, 6) + "abcdefghijklm\x1b[?1049h\x1b[H0123456789\r\nab"))
	s.Resize(5, 2)
	if got := screenLines(s); !equalLines(got, []string{"01234", "ab"}) {
		t.Fatalf("alternate screen at 5x2:\n%s", quoteLines(got))
	}
	s.Resize(10, 4)
	if got := screenLines(s); !equalLines(got, []string{"01234", "ab"}) {
		t.Fatalf("alternate screen at 10x4:\n%s", quoteLines(got))
	}
	s.Write([]byte("\x1b[?1049l"))
	if got := logicalLines(s); !equalLines(got, append(seqLines(1, 6), "abcdefghijklm")) {
		t.Fatalf("primary lines:\n%s", quoteLines(got))
	}
	if x, y := s.cursor(); x != 3 || y != 3 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

// BenchmarkResizeReflow: a full 2,000-line scrollback of wrapped and
// unwrapped lines, resized between 80 and 120 columns.
func BenchmarkResizeReflow(b *testing.B) {
	s := New(80, 24, DefaultScrollback)
	for range 100 {
		s.Write([]byte(longLines()))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.Resize(80+40*(i%2), 24)
	}
}

// BenchmarkResizeRows: only the height changes, as when a window is
// dragged taller and shorter.
func BenchmarkResizeRows(b *testing.B) {
	s := New(80, 24, DefaultScrollback)
	for range 100 {
		s.Write([]byte(longLines()))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.Resize(80, 24+10*(i%2))
	}
}
