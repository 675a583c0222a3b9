package screen

import (
	"strings"
	"testing"
)

// A view made with ViewAt is up to date: the next update sends nothing
// until the screen changes, and then only the change, never a drawing
// from scratch.
func TestViewAtIsUpToDate(t *testing.T) {
	s := New(80, 24, 0)
	for i := range 40 {
		s.Write([]byte("line " + string(rune('a'+i%26)) + "\r\n"))
	}
	old := NewView(60, 10)
	s.AppendViewUpdate(nil, old)
	x, y := old.Offset()
	v := s.ViewAt(60, 10, x, y)
	if b := s.AppendViewUpdate(nil, v); len(b) != 0 {
		t.Fatalf("an update right after ViewAt sent %q", b)
	}
	s.Write([]byte("more"))
	b := string(s.AppendViewUpdate(nil, v))
	if b == "" || strings.Contains(b, "\x1b[2J") {
		t.Fatalf("the update after a change: %q, want the change alone", b)
	}
	if vx, vy := v.Offset(); vx != x || vy != y {
		t.Errorf("offset %d,%d, want %d,%d", vx, vy, x, y)
	}
}

// A view taken over in an upgrade from a server that did not mirror the
// keyboard modes and the title to drawn terminals gets them at its next
// update.
func TestViewAtSendsTheKeyboardModesAndTitle(t *testing.T) {
	s := New(80, 24, 0)
	s.Write([]byte("\x1b[>5u\x1b[>4;2m\x1b]2;the title\x07hello"))
	v := s.ViewAt(60, 10, 0, 0)
	b := string(s.AppendViewUpdate(nil, v))
	for _, want := range []string{"\x1b[=5;1u", "\x1b[>4;2m", "\x1b]2;the title\x1b\\"} {
		if !strings.Contains(b, want) {
			t.Errorf("the update after ViewAt sent %q, without %q", b, want)
		}
	}
	if b := s.AppendViewUpdate(nil, v); len(b) != 0 {
		t.Errorf("the update after that sent %q, want nothing", b)
	}
}
