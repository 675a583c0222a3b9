package screen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// screenLines renders the visible screen as text lines: blank cells as
// spaces, trailing blanks and trailing empty lines trimmed.
func screenLines(s *Screen) []string {
	text := string(s.AppendText(nil, TextOptions{}))
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// historyLines renders the scrollback, oldest first, trailing blanks trimmed.
func historyLines(s *Screen) []string {
	var out []string
	p := painter{s: s}
	for y := -s.primary.history; y < 0; y++ {
		cells := s.primary.line(y).cells()
		p.b = p.b[:0]
		p.paintText(cells, trimmedEnd(cells, true))
		out = append(out, string(p.b))
	}
	return out
}

// styleAt returns the style of the cell at x, y of the active screen.
func styleAt(s *Screen, x, y int) style {
	return s.styles.list[cellAt(s, x, y).style()]
}

// cellAt returns the cell at x, y of the active screen.
func cellAt(s *Screen, x, y int) cell {
	return rowCells(s.g.line(y), s.cols)[x]
}

// rowCells returns l's cells, or cols blank ones for a line that has none
// (nothing was drawn on it).
func rowCells(l *line, cols int) []cell {
	if len(l.cells()) < cols {
		return append(make([]cell, 0, cols), l.cells()...)[:cols]
	}
	return l.cells()
}

// sameLine reports whether two lines show the same cells, a line without
// cells being as blank as one of blank cells.
func sameLine(a, b *line) bool {
	ac, bc := a.cells(), b.cells()
	if len(ac) > len(bc) {
		ac, bc = bc, ac
	}
	drawn := func(c cell) bool { return c != cell{} }
	return slices.Equal(ac, bc[:len(ac)]) && !slices.ContainsFunc(bc[len(ac):], drawn)
}

// screenCase is a table test of a byte stream against the expected screen.
type screenCase struct {
	name       string
	cols, rows int
	in         string
	want       []string // screen lines as screenLines renders them
	cursor     *[2]int  // expected cursor, when set
	check      func(t *testing.T, s *Screen)
}

func at(x, y int) *[2]int { return &[2]int{x, y} }

// runScreenCases runs each case on its input fed in one Write and again split
// in two at every byte offset, to prove that state survives across Writes.
func runScreenCases(t *testing.T, cases []screenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows := tc.cols, tc.rows
			if cols == 0 {
				cols, rows = 10, 4
			}
			for i := 0; i <= len(tc.in); i++ {
				s := New(cols, rows, 100)
				s.Write([]byte(tc.in[:i]))
				s.Write([]byte(tc.in[i:]))
				where := "in one Write"
				if i > 0 && i < len(tc.in) {
					where = fmt.Sprintf("split at %d", i)
				}
				if got := screenLines(s); !equalLines(got, tc.want) {
					t.Fatalf("%s: screen\n%s\nwant\n%s", where, quoteLines(got), quoteLines(tc.want))
				}
				if tc.cursor != nil {
					if x, y := s.cursor(); x != tc.cursor[0] || y != tc.cursor[1] {
						t.Fatalf("%s: cursor %d,%d, want %d,%d", where, x, y, tc.cursor[0], tc.cursor[1])
					}
				}
				if tc.check != nil {
					tc.check(t, s)
					if t.Failed() {
						t.Fatalf("%s: check failed", where)
					}
				}
			}
		})
	}
}

func equalLines(a, b []string) bool {
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

func quoteLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%2d |%s|\n", i, l)
	}
	return b.String()
}
