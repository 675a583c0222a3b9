package screen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// putRepeat is REP as the model first had it, each copy printed on its
// own: the reference repeat must agree with.
func putRepeat(s *Screen, n int) {
	if s.lastChar == 0 {
		return
	}
	w := runeWidth(s.lastChar)
	if w == 0 {
		return
	}
	for range n {
		s.put(s.lastChar, w)
	}
}

// TestREPMatchesPrinting: REP draws what printing the character again
// draws, through wraps, scrolls, wide characters and modes.
func TestREPMatchesPrinting(t *testing.T) {
	cases := []struct {
		name        string
		cols, rows  int
		setup, char string
		n           int
	}{
		{"within the row", 10, 4, "", "x", 3},
		{"to the last column", 10, 4, "ab", "x", 7},
		{"wraps and scrolls", 10, 4, "", "x", 95},
		{"from a pending wrap", 10, 4, "0123456789", "x", 12},
		{"over the scrollback", 10, 4, "", "y", 1000},
		{"wide, even columns", 10, 4, "", "中", 23},
		{"wide, odd columns, wraps early", 9, 4, "", "中", 23},
		{"wide from the last column", 9, 4, "\x1b[9G", "中", 5},
		{"over wide characters", 10, 4, "中中中中中\r\x1b[C", "x", 2},
		{"wide over wide characters", 10, 4, "abcdefghij\r\x1b[C中中中中\r\x1b[C\x1b[C\x1b[C", "中", 2},
		{"no autowrap", 10, 4, "\x1b[?7l", "x", 40},
		{"wide, no autowrap", 9, 4, "\x1b[?7l", "中", 40},
		{"insert mode", 10, 4, "0123456789\r\x1b[3C\x1b[4h", "x", 4},
		{"insert mode, wide", 9, 4, "0123中5678\r\x1b[C\x1b[4h", "中", 9},
		{"scroll region", 10, 6, "\x1b[2;4r\x1b[3;1H", "x", 77},
		{"below the scroll region", 10, 6, "\x1b[2;4r\x1b[6;1H", "x", 77},
		{"alternate screen", 10, 4, "\x1b[?1049h", "x", 77},
		{"with the pen's background", 10, 4, "\x1b[44m", "x", 57},
		{"line drawing", 10, 4, "\x1b(0", "q", 13},
		{"one column", 1, 4, "", "x", 9},
		{"wide in one column", 1, 4, "", "中", 9},
		{"count past the screen and scrollback", 10, 4, "", "x", 65535},
		{"wide, count past the screen and scrollback", 9, 4, "", "中", 65535},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, printed := New(tc.cols, tc.rows, 5), New(tc.cols, tc.rows, 5)
			fmt.Fprintf(rep, "%s%s\x1b[%db", tc.setup, tc.char, tc.n)
			fmt.Fprintf(printed, "%s%s", tc.setup, strings.Repeat(tc.char, tc.n+1))
			if d := diffModels(rep, printed, true); len(d) > 0 {
				t.Fatalf("REP differs from printing:\n%s", joinDiffs(d))
			}
			if a, b := rep.AppendRestore(nil), printed.AppendRestore(nil); string(a) != string(b) {
				t.Fatalf("restore differs: %s", firstDiff(a, b))
			}
		})
	}
}

// TestREPCountBounded: however large the count, REP draws at most as many
// cells as the screen and its scrollback hold, a few times over (it used
// to draw every copy: 65,535 for CSI 1000000000 b), and ends the same.
func TestREPCountBounded(t *testing.T) {
	const cols, rows, scrollback = 10, 4, 5
	bound := (2*rows + scrollback + 4) * cols
	for _, char := range []string{"x", "中"} {
		rep, printed := New(cols, rows, scrollback), New(cols, rows, scrollback)
		fmt.Fprintf(rep, "%s\x1b[1000000000b", char)
		fmt.Fprint(printed, strings.Repeat(char, maxParam+1)) // counts are clamped to maxParam
		if rep.repeated > bound {
			t.Errorf("%q: REP drew %d cells, want at most %d", char, rep.repeated, bound)
		}
		if d := diffModels(rep, printed, true); len(d) > 0 {
			t.Errorf("%q: REP differs from printing:\n%s", char, joinDiffs(d))
		}
	}
}

// TestREPRandom compares repeat with putRepeat after random output, in
// every state the output can leave: all of it, not only what a restore
// shows.
func TestREPRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	pieces := []string{
		"a", "bc", "中", "👍", "e\u0301", "\r\n", "\r", "\n", "\b", "\t", "\x1b[H", "\x1b[2;5H", "\x1b[3G",
		"\x1b[41m", "\x1b[0m", "\x1b[38;2;1;2;3m", "\x1b]8;;http://x\x1b\\", "\x1b]8;;\x1b\\",
		"\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[2;3r", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b(0", "\x1b(B", "\x1b[K", "\x1b[2J", "\x1b[3@", "\x1b[2P",
		"0123456789abcdef", "中中中中中",
	}
	chars := []string{"x", "q", "中", "👍", "é", ""}
	for i := range 3000 {
		cols, rows, scrollback := 1+rng.IntN(12), 1+rng.IntN(5), 1+rng.IntN(6)
		var setup strings.Builder
		for range rng.IntN(12) {
			setup.WriteString(pieces[rng.IntN(len(pieces))])
		}
		setup.WriteString(chars[rng.IntN(len(chars))])
		ring := (rows + scrollback) * cols
		n := []int{1, 2, 3, cols - 1, cols, cols + 1, 1 + rng.IntN(4*ring), 3*ring + rng.IntN(3*ring), maxParam}[rng.IntN(9)]
		n = max(n, 1)

		p := newBatchPair(cols, rows, scrollback)
		p.write([]byte(setup.String()))
		putRepeat(p.seq, n)
		p.bat.repeat(p.bat.lastChar, n)
		if d := p.diff(); d != "" {
			t.Fatalf("case %d: %dx%d scrollback %d, %q then REP %d:\n%s", i, cols, rows, scrollback, setup.String(), n, d)
		}
	}
}
