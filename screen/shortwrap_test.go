package screen

import "testing"

// TestShortWrappedLines: a line holds cells only as far as drawn on, but a
// wrapped line must reflow (and restore) like the same line padded with
// blanks to the edge: reflow and restore take a wrapped line's cells to
// reach it. Each case is a 5-column screen widened to 12.
func TestShortWrappedLines(t *testing.T) {
	cases := []struct {
		name, in, want string
		// restoresWrap: the restore makes the terminal wrap the line
		// again, so a screen fed the restore reflows the same.
		restoresWrap bool
	}{
		{"early wrap from a blank line, drawn on later", "\x1b[1;5H中\x1b[Hab", "ab  中\n", true},
		{"ECH to the edge of a wrapped line", "abcdefg\x1b[1;3H\x1b[3X", "ab   fg\n", false},
		// As in xterm, EL 1 ends the wrap: x lands in the last column.
		{"EL 1 empties a line with a pending wrap", "abcde\x1b[1Kx\x1b[Hab", "ab  x\n", false},
		{"EL 1 empties a line, wrapped after", "abcde\x1b[1Kxy\x1b[Hab", "ab  xy\n", false},
		{"EL 1 empties a wrapped line", "abcdefg\x1b[1;5H\x1b[1K", "     fg\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(5, 3, 20)
			s.Write([]byte(c.in))
			screens := []*Screen{s}
			if c.restoresWrap {
				r := New(5, 3, 20)
				r.Write(s.AppendRestore(nil))
				screens = append(screens, r)
			}
			for i, sc := range screens {
				sc.Resize(12, 3)
				if got := string(sc.AppendText(nil, TextOptions{})); got != c.want {
					t.Errorf("screen %d (1: restored) at 12 columns shows %q, want %q", i, got, c.want)
				}
			}
		})
	}
}
