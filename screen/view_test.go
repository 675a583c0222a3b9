package screen

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// expectedView describes what row y, column x of a terminal showing v's
// viewport of s should show: the screen's cell, blank outside the screen,
// and a two-column character cut by the viewport's edge blank.
func expectedView(s *Screen, v *View, x, y int) cellView {
	blank := cellView{text: " ", width: 1}
	sx, sy := v.ox+x, v.oy+y
	if sx >= s.cols || sy >= s.rows {
		return blank
	}
	cells := rowCells(s.g.line(sy), s.cols)
	c := cells[sx]
	if c.flags&cellWideTail != 0 && (x == 0 || cells[sx-1].flags&cellWide == 0) ||
		c.flags&cellWide != 0 && (x == v.cols-1 || sx+1 >= s.cols || cells[sx+1].flags&cellWideTail == 0) {
		bv := view(s, []cell{blankCell(c.style())}, 0)
		return bv
	}
	return view(s, cells, sx)
}

// diffView lists where the oracle (the client's terminal, fed the updates)
// differs from v's viewport of s, cursor included.
func diffView(s *Screen, v *View, oracle *Screen) []string {
	var d []string
	for y := range v.rows {
		cells := rowCells(oracle.g.line(y), oracle.cols)
		for x := range v.cols {
			want, got := expectedView(s, v, x, y), view(oracle, cells, x)
			if !sameCell(want, got) {
				d = append(d, fmt.Sprintf("%d,%d: want %v got %v", x, y, want, got))
			}
		}
	}
	cx, cy := s.x-v.ox, s.y-v.oy
	if !s.modes.has(modeCursorVisible) {
		// Hidden, it may be outside: the terminal has it on the nearest cell.
		cx, cy = min(max(cx, 0), v.cols-1), min(max(cy, 0), v.rows-1)
	} else if cx < 0 || cy < 0 || cx >= v.cols || cy >= v.rows {
		d = append(d, fmt.Sprintf("cursor %d,%d out of the viewport at %d,%d", s.x, s.y, v.ox, v.oy))
	}
	if oracle.x != cx || oracle.y != cy {
		d = append(d, fmt.Sprintf("cursor: want %d,%d got %d,%d", cx, cy, oracle.x, oracle.y))
	}
	if oracle.modes.has(modeCursorVisible) != s.modes.has(modeCursorVisible) {
		d = append(d, "cursor visibility")
	}
	if oracle.modes&viewModes != s.modes&viewModes {
		d = append(d, fmt.Sprintf("modes: want %b got %b", s.modes&viewModes, oracle.modes&viewModes))
	}
	if oracle.onAlt || !oracle.modes.has(modeAutowrap) || oracle.pen != (style{}) {
		d = append(d, "not in the drawn state")
	}
	return d
}

// TestViewOffset: a smaller terminal shows the part of the screen tmux
// would show it, from the cursor alone (see viewOffset).
func TestViewOffset(t *testing.T) {
	s := New(120, 35, 0)
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(s, "%d\r\n", i)
	}
	v := NewView(80, 24)
	oracle := New(80, 24, 0)
	for _, tc := range []struct {
		name   string
		in     string
		vw, vh int // the view's size
		x, y   int // its offset
	}{
		{"the cursor in the first columns of the last row", "", 80, 24, 0, 11},
		{"the cursor near the right edge of the top row", "\x1b[3;100H", 80, 24, 40, 0},
		{"the cursor back in the first columns", "\x1b[35;18H", 80, 24, 0, 11},
		{"the cursor in the middle of a far smaller view", "\x1b[18;61H", 30, 10, 45, 12},
		{"a hidden cursor in the last row", "\x1b[?25l\x1b[35;100H", 80, 24, 0, 0},
		{"a hidden cursor in a far smaller view", "", 30, 10, 0, 0},
		{"the cursor shown again", "\x1b[?25h", 80, 24, 40, 11},
	} {
		s.Write([]byte(tc.in))
		if cols, rows := v.Size(); cols != tc.vw || rows != tc.vh {
			v, oracle = NewView(tc.vw, tc.vh), New(tc.vw, tc.vh, 0)
		}
		oracle.Write(s.AppendViewUpdate(nil, v))
		if d := diffView(s, v, oracle); len(d) > 0 {
			t.Fatalf("%s:\n%s", tc.name, strings.Join(d, "\n"))
		}
		if x, y := v.Offset(); x != tc.x || y != tc.y {
			t.Fatalf("%s: offset %d,%d, want %d,%d", tc.name, x, y, tc.x, tc.y)
		}
		if tc.name == "the cursor in the first columns of the last row" {
			if got := screenLines(oracle)[0]; got != "178" {
				t.Fatalf("top row %q, want 178", got)
			}
		}
	}
}

func TestViewLarger(t *testing.T) {
	s := New(40, 10, 0)
	s.Write([]byte("hello\r\n\x1b[31mred\x1b[m wide:\u4e16\u754c"))
	v := NewView(60, 20)
	oracle := New(60, 20, 0)
	oracle.Write(s.AppendViewUpdate(nil, v))
	if d := diffView(s, v, oracle); len(d) > 0 {
		t.Fatal(strings.Join(d, "\n"))
	}
	if got := screenLines(oracle); len(got) != 2 || got[0] != "hello" {
		t.Fatalf("got %q", got)
	}
}

func TestViewSendsOnlyTheChange(t *testing.T) {
	s := New(120, 35, 0)
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(s, "line %d of the output\r\n", i)
	}
	v := NewView(80, 24)
	first := s.AppendViewUpdate(nil, v)
	if again := s.AppendViewUpdate(nil, v); len(again) != 0 {
		t.Fatalf("no change, yet %q", again)
	}
	s.Write([]byte("x"))
	b := s.AppendViewUpdate(nil, v)
	if len(b) > 40 || !strings.Contains(string(b), "x") {
		t.Fatalf("one character typed: %d bytes %q (the first frame was %d)", len(b), b, len(first))
	}
}

func TestViewHandoff(t *testing.T) {
	wrapped := "\x1b[2;1H" + strings.Repeat("w", 30) // the wrap pending
	for _, tc := range []struct {
		name          string
		before, after string // written before the first view, and after the resize
	}{
		{"primary", "", ""},
		{"alternate screen", "\x1b[?1049h\x1b[H\x1b[1mfull screen\x1b[7;3H", ""},
		{"a saved cursor with its wrap pending", "", wrapped + "\x1b7\x1b[H"},
		{"alternate screen entered with the wrap pending", "", wrapped + "\x1b[?1049h\x1b[Hfull screen"},
	} {
		s := New(50, 12, 0)
		for i := range 30 {
			fmt.Fprintf(s, "\x1b[3%dmline %d\x1b[m\r\n", i%8, i)
		}
		s.Write([]byte("\x1b[?2004h\x1b[5;10r\x1b[4h\x1b[2 q"))
		s.Write([]byte(tc.before))
		v := NewView(30, 8)
		term := New(30, 8, 0)
		term.Write(s.AppendViewUpdate(nil, v))
		// The session takes the client's size; the client is handed off.
		s.Resize(30, 8)
		s.Write([]byte("\x1b[4l" + tc.after + "\x1b[4h"))
		var b []byte
		v2 := v // same terminal
		b = s.AppendViewHandoff(b, v2)
		term.Write(b)
		if d := diffModels(s, term, false); len(d) > 0 {
			t.Fatalf("%s, handed off:\n%s", tc.name, joinDiffs(d))
		}
		// From here it gets the program's bytes.
		more := "\x1b[3;1Hmore\r\nstill more\x1b8x\x1b[?1049l after"
		s.Write([]byte(more))
		term.Write([]byte(more))
		if d := diffModels(s, term, false); len(d) > 0 {
			t.Fatalf("%s:\n%s", tc.name, joinDiffs(d))
		}
	}
}

// TestViewProperty: random output and random terminal sizes; after each
// update the terminal fed every update shows exactly the viewport.
func TestViewProperty(t *testing.T) {
	pieces := []string{
		"hello ", "world\r\n", "\x1b[31m", "\x1b[m", "\x1b[1;44m", "\u4e16", "\u00e9",
		"\x1b[H", "\x1b[5;7H", "\x1b[2J", "\x1b[K", "\x1b[?25l", "\x1b[?25h", "\r\n",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[?1h", "\x1b[?1l", "\x1b[?1000h", "\x1b[3L",
		"\x1b[2M", "\x1b[10C", "\x1b[A", "\x1b[4B", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
		"a long line that goes on and on past the edge of a narrow terminal ",
		"\x1b[?7l", "\x1b[?7h", "\x1b[2;8r", "\x1b[r", "\x1bM", "\t",
		// A cluster split across writes grows in place between updates.
		"e\u0301", "\u0303", "\U0001F468\u200d", "\U0001F469",
		// Joiners the cursor keeps apart from what they would join.
		"\U0001F3FD", "\U0001F1FA", "\x1b[3b", "\x1b[P", "\x1b[C", "\x1b[3D",
	}
	r := rand.New(rand.NewSource(1))
	for round := range 60 {
		scols, srows := 10+r.Intn(60), 3+r.Intn(20)
		s := New(scols, srows, 0)
		ccols, crows := 5+r.Intn(70), 2+r.Intn(25)
		v := NewView(ccols, crows)
		term := New(ccols, crows, 0)
		for step := range 40 {
			for range r.Intn(8) {
				s.Write([]byte(pieces[r.Intn(len(pieces))]))
			}
			if r.Intn(15) == 0 {
				s.Resize(10+r.Intn(60), 3+r.Intn(20))
			}
			if r.Intn(30) == 0 {
				v.Invalidate()
			}
			term.Write(s.AppendViewUpdate(nil, v))
			if d := diffView(s, v, term); len(d) > 0 {
				t.Fatalf("round %d step %d (screen %dx%d, view %dx%d):\n%s", round, step, s.cols, s.rows, ccols, crows, strings.Join(d, "\n"))
			}
		}
	}
}

// A joiner the cursor kept apart from the cell before it is drawn apart:
// drawn right after that cell, it joined it in the client's terminal, and
// the rest of the row moved two columns left.
func TestViewDrawsJoinersApart(t *testing.T) {
	for _, tc := range []struct{ name, first, then string }{
		{"a skin tone printed before the wide character", "\x1b[1;3H\U0001F3FD\x1b[1;1H\u4e16\x1b[1;8HY", ""},
		{"repeated skin tones", "\U0001F3FD\x1b[2bY", ""},
		{"regional indicators a DCH brought together", "\U0001F1FA\x1b[C\U0001F1F8Y\x1b[4D\x1b[P", ""},
		{"a joiner that changed after the cell it joins", "\x1b[1;3H\U0001F3FD\x1b[1;1H\u4e16\x1b[1;8HY", "\x1b[1;1H\x1b[2X\x1b[1;3H\U0001F3FE\x1b[1;1H\u4e16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(20, 4, 0)
			v := NewView(12, 3)
			term := New(12, 3, 0)
			for _, in := range []string{tc.first, tc.then} {
				s.Write([]byte(in))
				term.Write(s.AppendViewUpdate(nil, v))
				if d := diffView(s, v, term); len(d) > 0 {
					t.Fatalf("after %+q the client's terminal differs from the view:\n%s", in, strings.Join(d, "\n"))
				}
			}
		})
	}
}

// A combining character that comes after an update joins its cluster in
// place, keeping the cell's number: the view must draw the cell again.
func TestViewRedrawsAClusterThatGrew(t *testing.T) {
	for _, tc := range []struct{ name, first, then, want string }{
		{"a second combining mark", "abc e\u0301", "\u0303", "abc e\u0301\u0303"},
		{"the rest of a ZWJ sequence", "ab\U0001F468\u200d", "\U0001F469", "ab\U0001F468\u200d\U0001F469"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(10, 4, 0)
			v := NewView(6, 3)
			term := New(6, 3, 0)
			s.Write([]byte(tc.first))
			term.Write(s.AppendViewUpdate(nil, v))
			s.Write([]byte(tc.then))
			term.Write(s.AppendViewUpdate(nil, v))
			if d := diffView(s, v, term); len(d) > 0 {
				t.Fatalf("the client's terminal differs from the view:\n%s", strings.Join(d, "\n"))
			}
			if got := screenLines(term)[0]; got != tc.want {
				t.Fatalf("the client shows %+q, want %+q", got, tc.want)
			}
		})
	}
}

func TestViewMemory(t *testing.T) {
	s := New(120, 35, 0)
	v := NewView(80, 24)
	s.AppendViewUpdate(nil, v)
	if got, want := v.Bytes(), (80*24+80)*8; got > want {
		t.Fatalf("a view of 80x24 holds %d bytes, more than %d", got, want)
	}
}

// BenchmarkViewUpdate: a line of output scrolls a 120x35 screen, and an
// 80x24 view of it is updated. It reports the view's memory: one screen of
// cells at the client's size (and one row of scratch).
func BenchmarkViewUpdate(b *testing.B) {
	s := New(120, 35, 0)
	for i := range 100 {
		fmt.Fprintf(s, "line %d of the output, long enough to be cut by the view's right edge at column 80 .....\r\n", i)
	}
	v := NewView(80, 24)
	buf := s.AppendViewUpdate(nil, v)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		fmt.Fprintf(s, "line %d\r\n", i)
		buf = s.AppendViewUpdate(buf[:0], v)
	}
	b.ReportMetric(float64(v.Bytes()), "view-bytes")
}

// BenchmarkViewUpdateClusters: an 80x24 view of a 120x35 screen of grapheme
// clusters, one cell of which changes each update: every cell the view
// compares is a cluster.
func BenchmarkViewUpdateClusters(b *testing.B) {
	s := New(120, 35, 0)
	s.Write([]byte(strings.Repeat("e\u0301", 120*35)))
	v := NewView(80, 24)
	buf := s.AppendViewUpdate(nil, v)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.Write([]byte("x\x1b[D"))
		buf = s.AppendViewUpdate(buf[:0], v)
	}
}
