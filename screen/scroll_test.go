package screen

import (
	"fmt"
	"strings"
	"testing"
)

func TestScroll(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "LF at the bottom scrolls", in: "1\r\n2\r\n3\r\n4\r\n5", want: []string{"2", "3", "4", "5"}, cursor: at(1, 3),
			check: func(t *testing.T, s *Screen) {
				if got := historyLines(s); !equalLines(got, []string{"1"}) {
					t.Errorf("scrollback %q", got)
				}
			}},
		{name: "autowrap at the bottom scrolls", in: "\x1b[4;1H0123456789ab", want: []string{"", "", "0123456789", "ab"}},
		{name: "region scrolls only inside", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[3;1H\nx",
			want: []string{"1", "3", "x", "4"}, check: func(t *testing.T, s *Screen) {
				if s.scrollbackLen() != 0 {
					t.Error("a region scroll went to the scrollback")
				}
			}},
		{name: "LF below the region does not scroll", in: "1\x1b[1;2r\x1b[4;1Ha\nb", want: []string{"1", "", "", "ab"}},
		{name: "DECSTBM homes the cursor", in: "\x1b[3;3H\x1b[2;3rx", want: []string{"x"}},
		{name: "DECSTBM with top >= bottom is ignored", in: "\x1b[3;2r\x1b[4;1H\nx", want: []string{"", "", "", "x"}},
		{name: "IND NEL RI", in: "a\x1bDb\x1bEc\x1bMd", want: []string{"a", " d", "c"}},
		{name: "RI at the top scrolls down", in: "1\r\n2\x1b[H\x1bMx", want: []string{"x", "1", "2"}},
		{name: "RI at the region top", in: "1\r\n2\r\n3\x1b[2;3r\x1b[2;1H\x1bMx", want: []string{"1", "x", "2"}},
		{name: "SU and SD", in: "1\r\n2\r\n3\r\n4\x1b[S\x1b[2T", want: []string{"", "", "2", "3"},
			check: func(t *testing.T, s *Screen) {
				if got := historyLines(s); !equalLines(got, []string{"1"}) {
					t.Errorf("SU of the whole screen should fill the scrollback: %q", got)
				}
			}},
		{name: "SU in a region", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[5S", want: []string{"1", "", "", "4"}},
		{name: "IL and DL in the region", in: "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[L\x1b[4;1H\x1b[M", want: []string{"1", "", "2"}},
		{name: "IL outside the region does nothing", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[4;2H\x1b[Lx", want: []string{"1", "2", "3", "4x"}},
		{name: "DL moves to column 0", in: "ab\x1b[Mx", want: []string{"x"}, cursor: at(1, 0)},
		{name: "scroll fills with the pen background", in: "\x1b[4;1H\x1b[44m\n\x1b[m", check: func(t *testing.T, s *Screen) {
			if st := styleAt(s, 5, 3); st.bg != indexedColor(4) {
				t.Errorf("new line style %+v", st)
			}
		}},
		{name: "the alternate screen has no scrollback", in: "\x1b[?1049h1\r\n2\r\n3\r\n4\r\n5", want: []string{"2", "3", "4", "5"},
			check: func(t *testing.T, s *Screen) {
				if s.scrollbackLen() != 0 {
					t.Errorf("scrollback %d", s.scrollbackLen())
				}
			}},
	})
}

// TestScrollbackBounded: the scrollback keeps the newest lines, up to its
// limit, in order, and the ring never grows past rows+limit.
func TestScrollbackBounded(t *testing.T) {
	s := New(20, 5, 50)
	for i := range 1000 {
		fmt.Fprintf(s, "line %d\r\n", i)
	}
	h := historyLines(s)
	if len(h) != 50 {
		t.Fatalf("%d scrollback lines, want 50", len(h))
	}
	for i, l := range h {
		if want := fmt.Sprintf("line %d", 946+i); l != want {
			t.Fatalf("scrollback line %d is %q, want %q", i, l, want)
		}
	}
	if len(s.primary.ring) != 55 {
		t.Fatalf("ring of %d lines", len(s.primary.ring))
	}
	if got := screenLines(s); !equalLines(got, []string{"line 996", "line 997", "line 998", "line 999"}) {
		t.Fatalf("screen %q", got)
	}
}

func TestEraseScrollback(t *testing.T) {
	s := New(10, 3, 0)
	s.Write([]byte(strings.Repeat("x\r\n", 10) + "\x1b[3J"))
	if s.scrollbackLen() != 0 {
		t.Fatalf("ED 3 left %d lines", s.scrollbackLen())
	}
	if got := screenLines(s); !equalLines(got, []string{"x", "x"}) {
		t.Fatalf("ED 3 changed the screen: %q", got)
	}
	s.Write([]byte(strings.Repeat("y\r\n", 5)))
	if got := historyLines(s); !equalLines(got, []string{"x", "x", "y", "y", "y"}) {
		t.Fatalf("scrollback after ED 3 and more lines %q", got)
	}
}

func TestDefaultScrollback(t *testing.T) {
	s := New(10, 3, 0)
	s.Write([]byte(strings.Repeat("x\r\n", 3000)))
	if s.scrollbackLen() != DefaultScrollback {
		t.Fatalf("scrollback %d, want %d", s.scrollbackLen(), DefaultScrollback)
	}
}
