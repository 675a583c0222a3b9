//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wr/screen"
)

// termScreen is what a client's terminal shows: its output fed to the
// project's own screen model, as the terminal.
func termScreen(tm *term, cols, rows int) *screen.Screen {
	s := screen.New(cols, rows, 0)
	_, _ = s.Write(tm.output())
	return s
}

// rowsOf is a screen's text, one string per row, trailing blanks trimmed.
func rowsOf(s *screen.Screen, rows int) []string {
	text := strings.TrimSuffix(string(s.AppendText(nil, screen.TextOptions{})), "\n")
	lines := strings.Split(text, "\n")
	if text == "" {
		lines = nil
	}
	for len(lines) < rows {
		lines = append(lines, "")
	}
	return lines[:rows]
}

// cut is columns [from, from+n) of an ASCII row, trailing blanks trimmed.
func cut(row string, from, n int) string {
	if from >= len(row) {
		return ""
	}
	row = row[from:]
	if len(row) > n {
		row = row[:n]
	}
	return strings.TrimRight(row, " ")
}

// viewportDiff says how the terminal of a client of another size (small)
// differs from the viewport of the session's screen (big, the terminal of
// a client of the session's size) that keeps the cursor in view: the
// offset is where the cursors say, and must keep the viewport in the
// screen; "" when it shows exactly that.
func viewportDiff(big *screen.Screen, bc, br int, small *screen.Screen, sc, sr int) string {
	bx, by, bv := big.Cursor()
	sx, sy, sv := small.Cursor()
	ox, oy := bx-sx, by-sy
	if ox < 0 || oy < 0 || ox > max(0, bc-sc) || oy > max(0, br-sr) {
		return fmt.Sprintf("cursor %d,%d on the screen, %d,%d on the terminal: no viewport", bx, by, sx, sy)
	}
	if bv != sv {
		return fmt.Sprintf("cursor visible %v on the screen, %v on the terminal", bv, sv)
	}
	want, got := rowsOf(big, br), rowsOf(small, sr)
	for y := range sr {
		w := ""
		if oy+y < br {
			w = cut(want[oy+y], ox, sc)
		}
		if got[y] != w {
			return fmt.Sprintf("row %d (screen row %d): want %q got %q", y, oy+y, w, got[y])
		}
	}
	return ""
}

// TestClientsOfAnotherSize: an owner at 120x35 and a watcher at 80x24; the
// watcher is drawn from the model and shows the viewport that keeps the
// cursor in view, through plain output and a full-screen program; then it
// types, takes the size, and its terminal equals the owner's (now drawn);
// a larger client sees the screen at its top left.
func TestClientsOfAnotherSize(t *testing.T) {
	e := newEnv(t)
	owner := e.term(120, 35, "attach", "s")
	owner.expect(prompt)
	watcher := e.term(80, 24, "attach", "s")
	e.waitClients("s", 2)
	e.requireSize("s", 120, 35, "the watcher attached")
	var last string
	shows := func(what string, big *term, bc, br int, small *term, sc, sr int) {
		t.Helper()
		e.eventually(what, func() bool {
			last = viewportDiff(termScreen(big, bc, br), bc, br, termScreen(small, sc, sr), sc, sr)
			return last == ""
		})
	}
	defer func() {
		if t.Failed() {
			t.Log(last)
		}
	}()

	owner.run("seq 1 200")
	shows("the watcher to show seq's end", owner, 120, 35, watcher, 80, 24)
	if got := rowsOf(termScreen(watcher, 80, 24), 24); got[0] != "179" {
		t.Fatalf("the watcher's top row is %q, want 179 (the last 24 rows: 179-200, DONE-42, the prompt)", got[0])
	}

	lines := make([]string, 300)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d %s", i+1, strings.Repeat("abcdefghij", 11))
	}
	file := filepath.Join(e.dir, "text")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	owner.send("less " + file + "\r")
	owner.expect("line 34 ")
	shows("the watcher to show less", owner, 120, 35, watcher, 80, 24)

	// The watcher types: it takes the size, is handed the program's bytes,
	// and the owner is drawn.
	watcher.send("j")
	e.eventually("the session to take the watcher's size", func() bool {
		s, _ := e.session("s")
		return s.Cols == 80 && s.Rows == 24
	})
	defer func() {
		if t.Failed() {
			t.Logf("capture:\n%s", e.mustWr("capture", "s"))
		}
	}()
	e.eventually("less to redraw at 80x24", func() bool {
		c := e.mustWr("capture", "s")
		return strings.Contains(c, "line 11 ") && !strings.Contains(c, "line 14 ")
	})
	shows("the owner to show the watcher's screen at its top left", watcher, 80, 24, owner, 120, 35)
	capture := strings.Split(strings.TrimSuffix(e.mustWr("capture", "s"), "\n"), "\n")
	for y, row := range rowsOf(termScreen(watcher, 80, 24), 24) {
		want := ""
		if y < len(capture) {
			want = strings.TrimRight(capture[y], " ")
		}
		if row != want {
			t.Fatalf("the watcher's row %d is %q, the session's %q", y, row, want)
		}
	}

	big := e.term(150, 50, "attach", "s")
	e.waitClients("s", 3)
	shows("a larger client to show the screen at its top left", watcher, 80, 24, big, 150, 50)

	// Leaving less brings the shell's screen back, on every client.
	watcher.send("q")
	watcher.run("echo back")
	shows("the owner after less", watcher, 80, 24, owner, 120, 35)
	shows("the larger client after less", watcher, 80, 24, big, 150, 50)
}

// A combining character that comes in a later read than its base joins
// the cluster in place, and the cell keeps its number: a client of another
// size, drawn from the model, must be drawn that cell again, or it keeps
// showing the base with the first mark only.
func TestAClientOfAnotherSizeSeesAClusterGrow(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "g", "--", "sh", "-c", `stty -echo; printf 'abc e\314\201'; read x; printf '\314\203'; exec sleep 1000`)
	owner := e.term(80, 24, "attach", "g")
	owner.expect("abc e\u0301")
	watcher := e.term(60, 20, "attach", "g")
	e.waitClients("g", 2)
	e.requireSize("g", 80, 24, "the watcher attached")
	var got string
	rowOf := func(tm *term, cols, rows int) string {
		got = rowsOf(termScreen(tm, cols, rows), rows)[0]
		return got
	}
	defer func() {
		if t.Failed() {
			t.Logf("the first row last read: %+q", got)
		}
	}()
	e.eventually("the watcher to show the first mark", func() bool { return rowOf(watcher, 60, 20) == "abc e\u0301" })
	e.mustWr("send", "g", "--key", "Enter")
	want := "abc e\u0301\u0303"
	e.eventually("the owner to show the second mark", func() bool { return rowOf(owner, 80, 24) == want })
	e.eventually("the watcher to show the second mark", func() bool { return rowOf(watcher, 60, 20) == want })
}

// TestASmallerClientIsPlacedAsTmuxPlacesIt: a client smaller than the
// session shows the part tmux would show it, from the cursor alone. After
// a command line wider than the client the prompt is in view again (the
// view used to stay scrolled right and never show it again); with the
// cursor hidden, as top leaves it in the last row, the top left is.
func TestASmallerClientIsPlacedAsTmuxPlacesIt(t *testing.T) {
	e := newEnv(t)
	owner := e.term(100, 30, "attach", "s")
	owner.expect(prompt)
	watcher := e.term(50, 20, "attach", "s")
	e.waitClients("s", 2)
	e.requireSize("s", 100, 30, "the watcher attached")
	var last []string
	defer func() {
		if t.Failed() {
			t.Logf("the watcher shows:\n%s", strings.Join(last, "\n"))
		}
	}()

	owner.send("echo " + strings.Repeat("x", 60))
	e.eventually("the watcher to scroll right with the cursor", func() bool {
		sc := termScreen(watcher, 50, 20)
		last = rowsOf(sc, 20)
		_, y, _ := sc.Cursor()
		return strings.HasSuffix(last[y], "xxx") && !strings.Contains(last[y], "PROMPT")
	})
	owner.run("")
	e.eventually("the watcher to show the prompt from its first column", func() bool {
		sc := termScreen(watcher, 50, 20)
		last = rowsOf(sc, 20)
		x, y, _ := sc.Cursor()
		return x == len(prompt) && last[y] == strings.TrimSpace(prompt)
	})

	owner.send(`printf '\033[?25l\033[2J\033[HHEADER\033[30;100H'; read x` + "\r")
	e.eventually("the watcher to show the top left under a hidden cursor", func() bool {
		last = rowsOf(termScreen(watcher, 50, 20), 20)
		return last[0] == "HEADER"
	})
}

// A client of another size is drawn from the model, and its terminal is
// set up to send what the program asked for: kitty's keyboard flags and
// modifyOtherKeys change what a key sends, and that client's first key,
// which takes the size, reaches the program before the client is sent its
// bytes. They were sent only once the client had taken the size, and the
// window title never.
func TestAClientOfAnotherSizeGetsTheKeyboardModesAndTitle(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "k", "--", "sh", "-c",
		`stty -echo; printf '\033[>5u\033[>4;2m\033]2;the title\007READY'; read x; printf '\033[<u\033[>4;0m\033]2;\007GONE'; exec sleep 1000`)
	owner := e.term(80, 24, "attach", "k")
	owner.expect("READY")
	drawn := e.term(100, 30, "attach", "k") // the session is 80x24: drawn
	drawn.expect("READY")
	drawn.expect("\x1b[=5;1u")
	drawn.expect("\x1b[>4;2m")
	drawn.expect("\x1b]2;the title\x1b\\")
	e.mustWr("send", "k", "--key", "Enter")
	drawn.expect("GONE")
	drawn.expect("\x1b[=0;1u")
	drawn.expect("\x1b[>4;0m")
	drawn.expect("\x1b]2;\x1b\\")
}
