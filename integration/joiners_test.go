//go:build linux

package integration

import (
	"strings"
	"testing"
)

// captureRow is row y (0-based) of `wr capture NAME`, "" past its end.
func captureRow(e *env, name string, y int) string {
	rows := strings.Split(e.mustWr("capture", name), "\n")
	if y >= len(rows) {
		return ""
	}
	return rows[y]
}

// A lone skin tone two columns right of a wide character, which is then
// printed to its left, is a cell of its own on the session's screen: it
// was printed with nothing before it. Drawn left to right, as a reattach
// and a client of another size drew it, it came right after the wide
// character and joined it, in the client's terminal as in wr's own model,
// and the rest of the row moved two columns left. A combining acute that
// the program then puts on the skin tone, and a Z it prints two columns
// right of the Y, show where the two differ: a row's text alone does not,
// the shift moved only blanks. (A client of another size drew the acute's
// cell again, and with it the row up to the Y, shifted as before; not the
// Z's.)
func TestAJoinerPrintedApartIsDrawnApart(t *testing.T) {
	e := newEnv(t)
	const script = `stty -echo; ` +
		`printf '\033[2;3H\360\237\217\275\033[2;10HY\033[2;1H\344\270\226\033[5;1HREADY'; read x; ` +
		`printf '\033[2;5H\314\201\033[2;12HZ\033[6;1HDONE'; exec sleep 1000`
	e.mustWr("new", "-d", "j", "--", "sh", "-c", script)
	e.eventually("the program to draw its row", func() bool {
		return captureRow(e, "j", 4) == "READY"
	})
	owner := e.term(80, 24, "attach", "j") // a reattach: the restore
	owner.expect("READY")
	watcher := e.term(60, 20, "attach", "j") // another size: the view
	e.waitClients("j", 2)
	e.requireSize("j", 80, 24, "the watcher attached")
	e.eventually("the watcher to draw READY", func() bool { return rowsOf(termScreen(watcher, 60, 20), 20)[4] == "READY" })

	e.mustWr("send", "j", "--key", "Enter")
	const want = "\u4e16\U0001F3FD\u0301     Y Z"
	if got := captureRow(e, "j", 1); got != want {
		t.Fatalf("wr capture's second row is %+q, want %+q", got, want)
	}
	var got string
	rowOf := func(tm *term, cols, rows int) string {
		got = rowsOf(termScreen(tm, cols, rows), rows)[1]
		return got
	}
	defer func() {
		if t.Failed() {
			t.Logf("the second row last read: %+q", got)
		}
	}()
	owner.expect("DONE")
	if rowOf(owner, 80, 24) != want {
		t.Fatalf("the reattached client's second row is %+q, want %+q", got, want)
	}
	e.eventually("the watcher to show the acute and the Z", func() bool { return rowOf(watcher, 60, 20) == want })
}
