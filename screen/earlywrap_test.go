package screen

import (
	"strings"
	"testing"
)

// TestRestoreKeepsEarlyWrap: a wide character that did not fit in the last
// column wrapped early; a terminal fed the restore must hold the two rows
// as one line too, so that it joins them when it widens (and a model fed
// the restore captures them as one line after a resize).
func TestRestoreKeepsEarlyWrap(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"plain", "abcdefghi中xy"},
		{"coloured tail", "abcdefghi\x1b[41m\x1b[K\x1b[m中xy"},
		{"in the scrollback", "abcdefghi中xy\r\n1\r\n2\r\n3\r\n4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(10, 4, 100)
			a.Write([]byte(tc.in))
			row := -a.primary.history
			if l := a.primary.line(row); !l.wrapped || !l.early {
				t.Fatalf("the model itself did not wrap early: %+v", l)
			}
			restore := a.AppendRestore(nil)
			b := New(10, 4, 100)
			b.Write(restore)
			if l := b.primary.line(-b.primary.history); !l.wrapped || !l.early {
				t.Fatalf("restored line wrapped=%v early=%v; restore %q", l.wrapped, l.early, restore)
			}
			if d := diffModels(a, b, true); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
			}
			b.Resize(20, 4)
			text := string(b.AppendText(nil, TextOptions{Scrollback: true}))
			if !strings.Contains(text, "abcdefghi中xy\n") {
				t.Fatalf("widened restore does not hold one line:\n%s", text)
			}
		})
	}
}

// A regional indicator or a skin tone that starts the row after an early
// wrap: drawn in the last column to make the wrap again, it joined the
// cell before it (a flag, a toned emoji) instead of wrapping.
func TestRestoreEarlyWrapBeforeAJoiningCharacter(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"regional indicator", "ab\U0001F1E6中\x1b[2;1H\U0001F1E7"},
		{"skin tone", "ab中中\x1b[2;1H\U0001F3FB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(5, 3, 10)
			a.Write([]byte(tc.in))
			if l := a.primary.line(0); !l.wrapped || !l.early {
				t.Fatalf("the model itself did not wrap early: %+v", l)
			}
			restore := a.AppendRestore(nil)
			b := New(5, 3, 10)
			b.Write(restore)
			if d := diffModels(a, b, true); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s\nrestore %q", joinDiffs(d), restore)
			}
		})
	}
}
