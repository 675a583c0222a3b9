package screen

import (
	"bytes"
	"strings"
	"testing"
)

// restoreStreams exercise everything a restore must carry.
var restoreStreams = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"plain lines", "one\r\ntwo\r\nthree"},
	// A line holds cells only as far as drawn on: one ending in coloured
	// blanks is blank in the default style after them, not coloured to
	// the edge; and a short line can come under a cursor whose wrap is
	// pending (saved with it, the lines scrolled down), which a restore
	// still draws at the end of the line.
	{"coloured blanks end a short line", "ab\x1b[41m   \x1b[m\r\n\x1b[44m \x1b[m"},
	{"short line under a pending wrap", "ab\r\n" + strings.Repeat("w", 30) + "\x1b7\x1b[T\x1b8"},
	// DECSC saves a pending wrap, as xterm's does; so does ?1049h.
	{"saved with the wrap pending", "ab\r\n" + strings.Repeat("w", 30) + "\x1b7\x1b[5;3Hx"},
	{"saved with the wrap pending after a wide character", "ab\r\n" + strings.Repeat("w", 28) + "中\x1b7\x1b[5;3Hx"},
	{"alternate screen entered with the wrap pending", strings.Repeat("w", 30) + "\x1b[?1049h\x1b[3;3Hon alt\x1b[2;30Hz\x1b7\x1b[H"},
	{"scrollback", strings.Repeat("line of text that scrolls\r\n", 30) + "$ "},
	{"long wrapped lines", strings.Repeat("0123456789", 9) + "\r\n" + strings.Repeat("abcdefghij", 5)},
	{"colours", "\x1b[1;31mred\x1b[0m \x1b[38;5;200mpink\x1b[m \x1b[38;2;1;2;3;48;2;4;5;6mrgb\x1b[m\r\n\x1b[4:3;58;5;9mcurly\x1b[m \x1b[53;9;7;3;2mmany\x1b[m"},
	{"background fill", "\x1b[44mblue line\x1b[K\x1b[m\r\n\x1b[41m\x1b[2K\x1b[m"},
	{"pen left set", "\x1b[1;32mgreen and bold"},
	{"wide and combining", "中文字 e\u0301 👍 x\u0301\u0302"},
	{"wide at the edge", strings.Repeat("a", 29) + "中"},
	{"pending wrap", strings.Repeat("x", 30)},
	{"pending wrap on wide", strings.Repeat("x", 28) + "中"},
	{"hyperlink", "\x1b]8;id=1;https://example.com\x1b\\link\x1b]8;;\x1b\\ after"},
	{"hyperlink left open", "\x1b]8;;https://example.com\x1b\\open"},
	{"title and cwd", "\x1b]2;my title\x07\x1b]7;file://host/tmp\x1b\\"},
	{"modes", "\x1b[?1h\x1b=\x1b[?1000h\x1b[?1006h\x1b[?1004h\x1b[?2004h\x1b[?25l\x1b[4h\x1b[?7l\x1b[5 q"},
	{"kitty flags", "\x1b[>1u\x1b[>3u\x1b[=5;2u"},
	{"scroll region and origin", "\x1b[2;5r\x1b[?6h\x1b[2;3Hin region"},
	{"scroll region", "top\x1b[3;6r\x1b[6;1Hbottom\n\nscrolled"},
	{"charsets", "\x1b(0lqqk\x1b(B \x1b)0\x0ex\x0f"},
	{"charset left shifted", "\x1b)0\x0elqk"},
	{"saved cursor", "\x1b[3;4H\x1b[1;34m\x1b7\x1b[m\x1b[1;1Hhome"},
	{"tabs", "\x1b[3g\x1b[5G\x1bH\x1b[12G\x1bH\r\ta\tb"},
	{"alt screen", "primary\r\n$ \x1b[?1049h\x1b[2;3Hvim\x1b[1;7mstatus"},
	{"alt screen over scrollback", strings.Repeat("history\r\n", 12) + "\x1b[31m\x1b[?1049h\x1b[HALT\x1b[10;1H~"},
	{"alt 47 with saved cursor", "abc\x1b[?47hxyz\x1b[2;2H\x1b7\x1b[4;4H"},
	// Joiners the cursor kept apart from the cell before them are drawn
	// apart (apart.go), or the terminal would join them.
	{"a skin tone printed before the wide character left of it", "\x1b[2;3H\U0001F3FD\x1b[2;1H\u4e16\x1b[2;7Hafter"},
	{"repeated skin tones", "\U0001F3FD\x1b[3b after"},
	{"regional indicators a DCH brought together", "\U0001F1FA\x1b[C\U0001F1F8 after\x1b[9D\x1b[P"},
	{"a joiner starting a continued line", "\x1b[1;30H\U0001F3FDx\x1b[1;29H\u4e16"},
	{"a run drawn apart starting a continued line", "\x1b[2;3H\U0001F3FD\x1b[H" + strings.Repeat("a", 30) + "\u4e16"},
	{"a run drawn apart starting an early-wrapped line", strings.Repeat("a", 29) + "\x1b[2;3H\U0001F3FD\x1b[1;30H\u4e16"},
	{"joiners at the end of a wrapped line", "\x1b[1;29H\U0001F3FDx\x1b[1;27H\u4e16"},
	{"insert mode and reply-free queries", "\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[4hab\x1b[1Dx"},
}

// roundTrip feeds in to a screen, restores it into a fresh screen of the
// same size and checks they match, also after both leave the alternate
// screen; and that x/vt shows the same cells when fed the restore.
func roundTrip(t *testing.T, cols, rows int, in []byte) {
	t.Helper()
	a := New(cols, rows, 100)
	a.Write(in)
	restore := a.AppendRestore(nil)
	if bytes.Contains(restore, []byte("\x1b[6n")) || bytes.Contains(restore, []byte("\x1b[c")) {
		t.Fatalf("restore contains a query: %q", restore)
	}
	b := New(cols, rows, 100)
	b.Write(restore)
	if d := diffModels(a, b, true); len(d) > 0 {
		t.Fatalf("restored screen differs:\n%s\nrestore: %q", joinDiffs(d), restore)
	}

	// A restore makes the terminal wrap early again where the screen did,
	// which x/vt does not do (see the differences listed in diff_test.go):
	// it is no oracle for such a screen.
	if !earlyWrapped(a) {
		compareVTRestore(t, a, restore)
	}
	if a.onAlt {
		leave := []byte("\x1b[?1049l")
		a.Write(leave)
		b.Write(leave)
		if d := diffModels(a, b, true); len(d) > 0 {
			t.Fatalf("after leaving the alternate screen:\n%s", joinDiffs(d))
		}
	}
	// Both go on the same way.
	more := []byte("\r\nmore output\x1b[1;31m and colour")
	a.Write(more)
	b.Write(more)
	if d := diffModels(a, b, true); len(d) > 0 {
		t.Fatalf("after more output:\n%s", joinDiffs(d))
	}
}

func TestRestoreRoundTrip(t *testing.T) {
	for _, tc := range restoreStreams {
		t.Run(tc.name, func(t *testing.T) {
			roundTrip(t, 30, 10, []byte(tc.in))
		})
	}
}

// TestRestoreRecorded round-trips the recorded programs at checkpoints
// along their output: a shell prompt, vim and less in the alternate screen,
// and so on.
func TestRestoreRecorded(t *testing.T) {
	for _, r := range recordings {
		t.Run(r.file, func(t *testing.T) {
			in := readRecording(t, r.file)
			for _, p := range checkpoints(in, 8) {
				roundTrip(t, r.cols, r.rows, in[:p])
				if t.Failed() {
					t.Fatalf("at byte %d", p)
				}
			}
		})
	}
}

// TestRestoreAfterResize: a restore at the new size shows the resized screen.
func TestRestoreAfterResize(t *testing.T) {
	a := New(20, 6, 100)
	a.Write([]byte(strings.Repeat("some text in a line\r\n", 10) + "\x1b[?1049hfull screen\x1b[6;1Hstatus"))
	a.Resize(12, 4)
	b := New(12, 4, 100)
	b.Write(a.AppendRestore(nil))
	if d := diffModels(a, b, false); len(d) > 0 {
		t.Fatal(joinDiffs(d))
	}
}

// TestRestoreReusesBuffer: with room in dst, a restore does not allocate.
func TestRestoreReusesBuffer(t *testing.T) {
	s := fullScreen()
	buf := s.AppendRestore(nil)
	if n := testing.AllocsPerRun(10, func() { buf = s.AppendRestore(buf[:0]) }); n != 0 {
		t.Fatalf("%v allocations per restore", n)
	}
}

// TestRestoreHasNoControlsFromTheApplication: text the application chose
// (title, directory, hyperlink) cannot put a control sequence, and so a
// query, into a restore.
func TestRestoreHasNoControlsFromTheApplication(t *testing.T) {
	s := New(20, 3, 0)
	s.Write([]byte("\x1b]2;a\xc2\x9b6n\x9b6n\x1b]7;b\xc2\x9bc\x07\x1b]8;;http://x/\xc2\x9b5n\x07link\xc2\x9b6n"))
	restore := s.AppendRestore(nil)
	for _, bad := range []string{"\xc2\x9b", "\x9b"} {
		if bytes.Contains(restore, []byte(bad)) {
			t.Fatalf("restore contains %q: %q", bad, restore)
		}
	}
	if s.windowTitle() != "a6n6n" {
		t.Fatalf("title %q", s.windowTitle())
	}
}

// A line that was never drawn on but was marked as wrapped (a wrap from a
// row that scrolled away under the cursor) loses the mark when the screen
// narrows, like any other line: drawn on later, it must not be joined to
// the next row in a restore.
func TestNarrowingClearsTheWrapOfABlankLine(t *testing.T) {
	s := New(10, 4, 100)
	s.Write([]byte("0123456789\x1b7\x1b[2S\x1b8a"))
	s.Resize(8, 4)
	s.Write([]byte("\x1b[1;1HABCDEFGH"))
	if got := string(s.AppendRestore(nil)); !strings.Contains(got, "ABCDEFGH\r\n") {
		t.Fatalf("restore joins the first row to the next: %q", got)
	}
}

// earlyWrapped reports whether a line of s's primary screen or scrollback
// wrapped early.
func earlyWrapped(s *Screen) bool {
	for y := -s.primary.history; y < s.rows; y++ {
		if l := s.primary.line(y); l.wrapped && l.early {
			return true
		}
	}
	return false
}

// compareVTRestore checks that x/vt fed a's restore shows a's cells and
// cursor, also after leaving the alternate screen. a is left as it was.
func compareVTRestore(t *testing.T, a *Screen, restore []byte) {
	t.Helper()
	e := newVT(t, a.cols, a.rows)
	st := watchVT(e)
	e.Write(restore)
	if d := diffVTState(a, e, st); len(d) > 0 {
		t.Errorf("x/vt fed the restore differs:\n%s", joinDiffs(d))
	}
	if d := diffScreens(a, e, 10, ignoreKnownDifferences); len(d) > 0 {
		t.Errorf("x/vt fed the restore differs:\n%s\nrestore: %q", joinDiffs(d), restore)
	}
	if pos := e.CursorPosition(); pos.X != a.x || pos.Y != a.y {
		t.Errorf("x/vt cursor %v, want %d,%d", pos, a.x, a.y)
	}
	if !a.onAlt {
		return
	}
	// On a copy, so the caller's screen stays on the alternate screen.
	c := New(a.cols, a.rows, 100)
	c.Write(restore)
	leave := []byte("\x1b[?1049l")
	c.Write(leave)
	e.Write(leave)
	if d := diffScreens(c, e, 10, ignoreKnownDifferences); len(d) > 0 {
		t.Errorf("x/vt after leaving the alternate screen:\n%s", joinDiffs(d))
	}
	if pos := e.CursorPosition(); pos.X != c.x || pos.Y != c.y {
		t.Errorf("x/vt cursor after leaving the alternate screen %v, want %d,%d", pos, c.x, c.y)
	}
}

// A continued line is drawn continued whatever the next line's first
// style: a restore that ended such a line with CRLF left the terminal two
// lines, which a later resize did not join again.
func TestRestoreKeepsALineContinuedIntoAColour(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		cols, rows int
	}{
		{"wrapped", "\x1b[44mooooo", 4, 3},
		{"wrapped early", "abc\x1b[44m\u4e16\x1b[m", 4, 3},
		{"at the bottom", "\r\n\r\nab\x1b[41mcdefg", 4, 3},
		// The wrap scrolled in the default pen; only the first cell is red.
		{"at the bottom, recoloured", "\r\n\r\nabcdefg\x1b[3;1H\x1b[41me", 4, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(tc.cols, tc.rows, 100)
			a.Write([]byte(tc.in))
			restore := a.AppendRestore(nil)
			b := New(tc.cols, tc.rows, 100)
			b.Write(restore)
			if d := diffModels(a, b, true); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s\nrestore %q", joinDiffs(d), restore)
			}
			a.Resize(9, tc.rows)
			b.Resize(9, tc.rows)
			if d := diffModels(a, b, true); len(d) > 0 {
				t.Fatalf("after a resize to 9 columns:\n%s\nrestore %q", joinDiffs(d), restore)
			}
		})
	}
}
