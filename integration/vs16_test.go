//go:build linux

package integration

import (
	"strings"
	"testing"
	"time"

	"wr/screen"
)

// reattachModel detaches a, attaches a new client of cols x rows to name,
// and returns what that client drew as a terminal (x/vt, which widens a
// character a VS16 follows, as wr's model does) shows it once cond holds.
func reattachModel(t *testing.T, e *env, a *term, name string, cols, rows int, cond func(*model) bool) *model {
	t.Helper()
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
	b := e.term(cols, rows, "attach", name)
	t.Cleanup(func() { b.send("\x1c"); b.wait() })
	deadline := time.Now().Add(timeout)
	for {
		b.settled()
		m := newModelSize(t, cols, rows, b.output())
		if cond(m) || time.Now().After(deadline) {
			return m
		}
	}
}

// A VS16 after a character in the last column, with its wrap pending,
// cannot widen it: there is no room. The session's screen keeps the heart
// one column wide, and a delete then moves it into the line. Reattached,
// it must still be one column wide there; the VS16 kept with it made the
// restore draw it two columns wide, pushing "|" one column right.
func TestVS16WithoutRoomRestoresNarrow(t *testing.T) {
	e := newEnv(t)
	a := e.term(80, 24, "attach", "vs", "--", "sh", "-c",
		`printf '%079d\342\235\244\357\270\217\033[1;1H\033[5P\033[1;76H|'; exec sleep 1000`, "0")
	e.stableCapture("vs", "|")
	m := reattachModel(t, e, a, "vs", 80, 24, func(m *model) bool { return m.CellAt(75, 0).Content == "|" })
	if heart, bar := m.CellAt(74, 0), m.CellAt(75, 0); heart.Content != "\u2764" || heart.Width != 1 || bar.Content != "|" {
		t.Fatalf("reattached, columns 74 and 75 hold %q (width %d) and %q; want the heart one column wide, then |; row 0: %q",
			heart.Content, heart.Width, bar.Content, m.row(0))
	}
}

// A character widened by its VS16 (p, here) that a narrower terminal no
// longer fits after "ab" wraps early to the next row. Reattached at that
// width, the rows must read as the session's do: the restore makes such a
// wrap by drawing the character in the last column, where a "p" fits one
// column wide. The terminal here is wr's own screen model (x/vt drops a
// wide character at the last column instead of wrapping it).
func TestVS16ClusterAfterEarlyWrapRestores(t *testing.T) {
	e := newEnv(t)
	a := e.term(5, 4, "attach", "vs", "--", "sh", "-c", `printf 'abp\357\270\217\n'; exec sleep 1000`)
	e.stableCapture("vs", "ab")
	a.resize(3, 4)
	want := "ab\np\ufe0f"
	e.eventually("the session to wrap p early at 3 columns", func() bool {
		r := e.wr("capture", "vs")
		return r.code == 0 && strings.TrimRight(r.stdout, "\n") == want
	})
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
	b := e.term(3, 4, "attach", "vs")
	deadline := time.Now().Add(timeout)
	for {
		b.settled()
		s := screen.New(3, 4, 10)
		s.Write(b.output())
		got := strings.TrimRight(string(s.AppendText(nil, screen.TextOptions{Scrollback: true})), "\n")
		if got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reattached at 3 columns, the terminal reads %q; want %q, as the session does", got, want)
		}
	}
	b.send("\x1c")
	b.wait()
}
