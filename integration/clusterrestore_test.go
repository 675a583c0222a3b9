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

// A row that wrapped early (a wide character did not fit in the last
// column) before a character that must not be drawn in that last column
// to make the wrap again: p widened by its VS16 (after a resize to 3
// columns), which fits there one column wide; a lone regional indicator
// or a skin tone, which would join the cell before it. Reattached at the
// session's width, the rows must read as the session's do. The terminal
// here is wr's own screen model (x/vt drops a wide character at the last
// column instead of wrapping it).
func TestEarlyWrapBeforeAJoiningCharacterRestores(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		resize       int // columns after the script, when not 0
		want         string
	}{
		{"a VS16 cluster", `printf 'abp\357\270\217\n'`, 3, "ab\np\ufe0f"},
		{"a regional indicator", `printf 'ab\360\237\207\246\344\270\255\033[2;1H\360\237\207\247'`, 0, "ab\U0001F1E6\n\U0001F1E7"},
		{"a skin tone", `printf 'ab\344\270\255\344\270\255\033[2;1H\360\237\217\273'`, 0, "ab中\n\U0001F3FB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			a := e.term(5, 4, "attach", "ew", "--", "sh", "-c", tc.script+"; exec sleep 1000")
			cols := 5
			if tc.resize > 0 {
				e.stableCapture("ew", "ab")
				cols = tc.resize
				a.resize(cols, 4)
			}
			e.eventually("the session to read "+tc.want, func() bool {
				r := e.wr("capture", "ew")
				return r.code == 0 && strings.TrimRight(r.stdout, "\n") == tc.want
			})
			a.send("\x1c")
			if code := a.wait(); code != 0 {
				t.Fatalf("detach exit %d", code)
			}
			b := e.term(cols, 4, "attach", "ew")
			deadline := time.Now().Add(timeout)
			for {
				b.settled()
				s := screen.New(cols, 4, 10)
				s.Write(b.output())
				got := strings.TrimRight(string(s.AppendText(nil, screen.TextOptions{Scrollback: true})), "\n")
				if got == tc.want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("reattached at %d columns, the terminal reads %q; want %q, as the session does", cols, got, tc.want)
				}
			}
			b.send("\x1c")
			b.wait()
		})
	}
}
