//go:build linux

package integration

import (
	"strings"
	"testing"
	"time"
)

// A session's lines hold cells only as far as something was drawn on them
// (an idle prompt's line would otherwise hold its whole width, most of an
// idle session's memory). Reattaching must still show such lines as they
// are: one ending in coloured blanks is coloured only that far, and a
// short line under a cursor whose wrap is pending (saved with the cursor,
// the lines scrolled down under it) restores instead of failing the
// attach.
func TestShortLinesRestore(t *testing.T) {
	e := newEnv(t)
	script := `printf 'ab\033[41m   \033[m\r\n'; ` +
		`printf 'cd\r\n%080d\0337\033[T\0338' 0; exec sleep 1000`
	a := e.term(80, 24, "attach", "short", "--", "sh", "-c", script)
	// The scroll down moved the first two rows down one.
	e.stableCapture("short", "00000")
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}

	b := e.term(80, 24, "attach", "short")
	var m *model
	deadline := time.Now().Add(timeout)
	for {
		b.settled()
		m = newModel(t, b.output())
		if strings.HasPrefix(m.row(1), "ab") || time.Now().After(deadline) {
			break
		}
	}
	if got := m.row(1); got != "ab" {
		t.Fatalf("row 1 after reattach is %q, want %q; the screen:\n%s", got, "ab", m.String())
	}
	if got := m.row(2); got != "cd" {
		t.Fatalf("row 2 after reattach is %q, want %q; the screen:\n%s", got, "cd", m.String())
	}
	red := m.CellAt(3, 1).Style
	if red.Bg == nil {
		t.Fatalf("the coloured blanks after ab lost their colour: %+v", red)
	}
	for x := 5; x < 80; x++ {
		if st := m.CellAt(x, 1).Style; st.Bg != nil {
			t.Fatalf("column %d of row 1, past the coloured blanks, has background %v", x, st.Bg)
		}
	}
	// The cursor is where the session left it: at the end of row 2, the
	// short line, whose wrap is pending.
	if pos := m.CursorPosition(); pos.X != 79 || pos.Y != 2 {
		t.Fatalf("cursor at %d,%d after reattach, want 79,2", pos.X, pos.Y)
	}
	b.send("\x1c")
	if code := b.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
}

// A wrapped line is one logical line with the next, whatever was drawn on
// it: widened, the session joins the two again with the columns between
// kept. Here a wide character wraps early from the last column of a blank
// row, and "ab" is drawn on that row afterwards; at 20 columns the row
// reads "ab", seven blanks, then the wide character (the early wrap's last
// column is not part of the line).
func TestWrappedShortLineReflows(t *testing.T) {
	e := newEnv(t)
	a := e.term(10, 5, "attach", "wrap", "--", "sh", "-c",
		`printf '\033[1;10H中\033[Hab'; exec sleep 1000`)
	e.stableCapture("wrap", "中")
	a.resize(20, 5)
	const want = "ab       中"
	e.eventually("the row to reflow to "+want, func() bool {
		r := e.wr("capture", "wrap")
		return r.code == 0 && strings.HasPrefix(r.stdout, want+"\n")
	})
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
}
