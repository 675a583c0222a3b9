package screen

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestRegionScrollFeedsScrollback: apt-get reserves the bottom line with
// DECSTBM for its progress bar and prints above it. Every line it prints
// must end up in the scrollback or on the screen, once, in order, as in
// xterm.
func TestRegionScrollFeedsScrollback(t *testing.T) {
	s := New(80, 12, 1000)
	var in strings.Builder
	in.WriteString("\x1b[1;11r\x1b[12;1HProgress: [###   ]\x1b[11;1H")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&in, "\r\n%d", i)
	}
	s.Write([]byte(in.String()))
	lines := append(historyLines(s), screenLines(s)...)
	var got []int
	for _, l := range lines {
		if n, err := strconv.Atoi(l); err == nil {
			got = append(got, n)
		}
	}
	if len(got) != 60 {
		t.Fatalf("%d numbered lines, want 60:\n%s", len(got), quoteLines(lines))
	}
	for i, n := range got {
		if n != i+1 {
			t.Fatalf("line %d is %d:\n%s", i, n, quoteLines(lines))
		}
	}
	if sl := screenLines(s); sl[len(sl)-1] != "Progress: [###   ]" {
		t.Fatalf("the reserved line moved: %q", sl)
	}
	if x, y := s.cursor(); x != 2 || y != 10 {
		t.Fatalf("cursor %d,%d", x, y)
	}
}

func TestRegionScroll(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "a region at the top feeds the scrollback", in: "1\r\n2\r\n3\r\n4\x1b[1;3r\x1b[3;1H\nx\nSU\x1b[2S",
			want: []string{" SU", "", "", "4"}, check: func(t *testing.T, s *Screen) {
				if got := historyLines(s); !equalLines(got, []string{"1", "2", "3", "x"}) {
					t.Errorf("scrollback %q", got)
				}
			}},
		{name: "not on the alternate screen", in: "\x1b[?1049h1\r\n2\r\n3\r\n4\x1b[1;3r\x1b[3;1H\nx",
			want: []string{"2", "3", "x", "4"}, check: func(t *testing.T, s *Screen) {
				if s.scrollbackLen() != 0 {
					t.Errorf("scrollback %q", historyLines(s))
				}
			}},
		{name: "SU past the region", in: "1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[9S",
			want: []string{"", "", "3", "4"}, check: func(t *testing.T, s *Screen) {
				if got := historyLines(s); !equalLines(got, []string{"1", "2"}) {
					t.Errorf("scrollback %q", got)
				}
			}},
	})
}
