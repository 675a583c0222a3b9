package screen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// seqOut is "seq from to" as a terminal gets it.
func seqOut(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\r\n", i)
	}
	return b.String()
}

// ScrolledOff counts every line pushed into the scrollback, and keeps
// counting once the scrollback is full and its oldest lines fall off.
func TestScrolledOffCounts(t *testing.T) {
	s := New(20, 5, 10)
	if n := s.ScrolledOff(); n != 0 {
		t.Fatalf("fresh screen: ScrolledOff %d, want 0", n)
	}
	s.Write([]byte(seqOut(1, 4))) // cursor reaches the bottom row: no scroll
	if n := s.ScrolledOff(); n != 0 {
		t.Fatalf("after 4 lines on 5 rows: %d, want 0", n)
	}
	s.Write([]byte(seqOut(5, 7)))
	if n := s.ScrolledOff(); n != 3 {
		t.Fatalf("after 7 lines: %d, want 3", n)
	}
	s.Write([]byte(seqOut(8, 40))) // far past the 10 lines kept
	if n := s.ScrolledOff(); n != 36 {
		t.Fatalf("after 40 lines: %d, want 36", n)
	}
	if got := historyLines(s); len(got) != 10 || got[0] != "27" || got[9] != "36" {
		t.Fatalf("scrollback %q, want 27..36", got)
	}
	// A line wrapped by autowrap pushes two rows.
	s.Write([]byte(strings.Repeat("x", 30) + "\r\n"))
	if n := s.ScrolledOff(); n != 38 {
		t.Fatalf("after a wrapped line: %d, want 38", n)
	}
	// ED 3 clears the scrollback, not the count; the alternate screen
	// pushes nothing.
	s.Write([]byte("\x1b[3J\x1b[?1049h" + seqOut(1, 20) + "\x1b[?1049l"))
	if n := s.ScrolledOff(); n != 38 {
		t.Fatalf("after ED 3 and the alternate screen: %d, want 38", n)
	}
	// A batch WriteBatch skips still counts.
	b := New(20, 5, 10)
	b.WriteBatch([][]byte{[]byte(seqOut(1, 1000))})
	if b.skipped == 0 {
		t.Fatal("the batch was not skipped: the test no longer tests the skip")
	}
	if n := b.ScrolledOff(); n < 900 || n > 1000 {
		t.Fatalf("after a skipped batch of 1000 lines: %d, want about 996", n)
	}
	// Fewer rows push the top rows: they count; more rows pull them back
	// without lowering the count.
	s.Write([]byte("\x1b[2J\x1b[H" + seqOut(1, 4) + "5"))
	before := s.ScrolledOff()
	s.Resize(20, 3)
	if n := s.ScrolledOff(); n != before+2 {
		t.Fatalf("shrunk by 2 rows: %d, want %d", n, before+2)
	}
	s.Resize(20, 5)
	if n := s.ScrolledOff(); n != before+2 {
		t.Fatalf("grown back: %d, want %d (never lower)", n, before+2)
	}
}

// A restore from a count draws only the scrollback lines pushed from that
// count on: fed to a fresh terminal, its scrollback holds exactly them, and
// its screen is the screen.
func TestAppendRestoreFrom(t *testing.T) {
	s := New(20, 5, 100)
	s.Write([]byte(seqOut(1, 30)))
	mark := s.ScrolledOff()
	s.Write([]byte(seqOut(31, 50) + "$ "))

	for _, tc := range []struct {
		name string
		from uint64
		want []string
	}{
		{"from the mark", mark, seqLines(27, 46)},
		{"from zero", 0, seqLines(1, 46)},
		{"from now", s.ScrolledOff(), nil},
		{"from past the end", s.ScrolledOff() + 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := New(20, 5, 1000)
			term.Write(s.AppendRestoreFrom(nil, tc.from))
			if got := historyLines(term); !slices.Equal(got, tc.want) {
				t.Errorf("terminal scrollback %q, want %q", got, tc.want)
			}
			if got, want := screenLines(term), screenLines(s); !slices.Equal(got, want) {
				t.Errorf("terminal screen %q, want %q", got, want)
			}
		})
	}

	// Lines from the count that fell off the far end are not drawn; the
	// ones still there are.
	small := New(20, 5, 10)
	small.Write([]byte(seqOut(1, 10)))
	from := small.ScrolledOff() // 6: lines 1-6 pushed
	small.Write([]byte(seqOut(11, 30)))
	term := New(20, 5, 1000)
	term.Write(small.AppendRestoreFrom(nil, from))
	if got, want := historyLines(term), seqLines(17, 26); !slices.Equal(got, want) {
		t.Errorf("after the far end: terminal scrollback %q, want %q", got, want)
	}

	// After a change of width the scrollback is drawn whole, once.
	w := New(20, 5, 100)
	w.Write([]byte(seqOut(1, 30)))
	from = w.ScrolledOff()
	w.Resize(30, 5)
	w.Write([]byte(seqOut(31, 32)))
	term = New(30, 5, 1000)
	term.Write(w.AppendRestoreFrom(nil, from))
	if got, want := historyLines(term), seqLines(1, 28); !slices.Equal(got, want) {
		t.Errorf("after a change of width: terminal scrollback %q, want %q", got, want)
	}
}
