//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ptySize reads the session's terminal size the way `stty size` inside it
// would: from its PTY, found through the session command's stdin.
func (e *env) ptySize(name string) (cols, rows int) {
	e.t.Helper()
	s, ok := e.session(name)
	if !ok {
		e.t.Fatalf("no session %s", name)
	}
	tty, err := os.Readlink(filepath.Join("/proc", fmt.Sprint(s.PID), "fd", "0"))
	if err != nil {
		e.t.Fatal(err)
	}
	fd, err := unix.Open(tty, unix.O_RDONLY|unix.O_NOCTTY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	defer unix.Close(fd)
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		e.t.Fatal(err)
	}
	return int(ws.Col), int(ws.Row)
}

func (e *env) requireSize(name string, cols, rows int, after string) {
	e.t.Helper()
	if c, r := e.ptySize(name); c != cols || r != rows {
		e.t.Fatalf("after %s the session is %dx%d, want %dx%d", after, c, r, cols, rows)
	}
}

// requireSecondOwns fails the test unless the client that attached second
// to session "s" owns its size.
func (e *env) requireSecondOwns(after string) {
	e.t.Helper()
	if s, _ := e.session("s"); s.Owner == nil || *s.Owner != s.Attached[1].ID {
		e.t.Fatalf("owner %v after %s, want the second client (%d)", s.Owner, after, s.Attached[1].ID)
	}
}

// visibleApp runs in the session and shows every byte it receives, in
// caret notation, so a test sees what was forwarded and in what order.
var visibleApp = []string{"sh", "-c", "stty raw -echo; echo READY; exec cat -v"}

// twoClients starts A (80x24, attached first: the owner) and B (100x30) on
// one session running visibleApp.
func twoClients(t *testing.T) (*env, *term, *term) {
	e := newEnv(t)
	a := e.term(80, 24, append([]string{"attach", "s", "--"}, visibleApp...)...)
	a.expect("READY")
	b := e.term(100, 30, "attach", "s")
	e.waitClients("s", 2)
	e.requireSize("s", 80, 24, "B attached (attaching does not steal)")
	return e, a, b
}

// Input that is not a person acting never moves the size. After each, a
// wheel event from B (forwarded from anyone) marks the point the server has
// reached in B's input, so the check is not racing the server.
func TestNonActingInputKeepsSize(t *testing.T) {
	cases := []struct {
		name   string
		send   []string // written one after another (a report split across writes)
		reachs bool     // the app sees it (it is passive, or B answers)
	}{
		{"focus in", []string{"\x1b[I"}, false},
		{"focus out", []string{"\x1b[O"}, false},
		{"cursor position report", []string{"\x1b[12;40R"}, false},
		{"DA1 answer split across two writes", []string{"\x1b[?62;", "22c"}, false},
		{"kitty keyboard flags report", []string{"\x1b[?1u"}, false},
		{"OSC colour answer", []string{"\x1b]11;rgb:0000/0000/0000\x1b\\"}, false},
		{"title report in UTF-8, 0x9c inside", []string{"\x1b]l日本\x1b\\"}, false},
		{"kitty's remote control answer", []string{"\x1bP@kitty-cmd{\"ok\":true}\x1b\\"}, false},
		{"XTSMGRAPHICS answer", []string{"\x1b[?1;0;256S"}, false},
		{"DECREPTPARM answer", []string{"\x1b[2;1;1;112;112;1;0x"}, false},
		{"XTQMODKEYS answer", []string{"\x1b[>4;2m"}, false},
		{"DECLRP answer", []string{"\x1b[1;0;10;5;0&w"}, false},
		{"mouse wheel", []string{"\x1b[<64;5;5M"}, true},
		{"buttonless motion", []string{"\x1b[<35;6;6M"}, true},
	}
	e, a, b := twoClients(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for j, part := range tc.send {
				if j > 0 {
					// Not synchronisation: a pause so the parts reach wr in
					// two reads, and so two Input frames.
					time.Sleep(50 * time.Millisecond)
				}
				b.send(part)
			}
			marker := fmt.Sprintf("\x1b[<65;%d;1M", 10+i) // inside the screen: past its edge, dropped
			b.send(marker)
			a.expect(fmt.Sprintf("^[[<65;%d;1M", 10+i))
			e.requireSize("s", 80, 24, tc.name+" from B")
			out := string(a.output())
			seen := strings.Contains(out, strings.ReplaceAll(strings.Join(tc.send, ""), "\x1b", "^["))
			if seen != tc.reachs {
				t.Errorf("%s from a client that does not answer: reached the app = %v, want %v", tc.name, seen, tc.reachs)
			}
		})
	}
}

// A keystroke, a click and a bracketed paste each claim the size for the
// client that made them, and the size is applied before the input arrives.
func TestActingInputClaimsSize(t *testing.T) {
	cases := []struct {
		name, send, shows string
	}{
		{"keystroke", "k", "k"},
		{"click", "\x1b[<0;3;3M", "^[[<0;3;3M"},
		{"drag", "\x1b[<32;4;3M", "^[[<32;4;3M"},
		{"bracketed paste", "\x1b[200~pasted\x1b[201~", "^[[200~pasted^[[201~"},
	}
	e, a, b := twoClients(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a.send("a") // A takes the size back
			a.expect("a")
			e.requireSize("s", 80, 24, "a keystroke from A")
			b.send(tc.send)
			a.expect(tc.shows)
			e.requireSize("s", 100, 30, tc.name+" from B")
			e.requireSecondOwns(tc.name + " from B")
		})
	}
}

// The application sees the claimer's size before its keystroke: a program
// that prints the terminal size as it reads each byte shows the new size
// for the byte that claimed it.
func TestSizeAppliedBeforeInput(t *testing.T) {
	e := newEnv(t)
	app := `stty raw -echo; echo READY; while :; do c=$(dd bs=1 count=1 2>/dev/null); printf 'GOT %s SIZE %s\r\n' "$c" "$(stty size)"; done`
	a := e.term(80, 24, "attach", "s", "--", "sh", "-c", app)
	a.expect("READY")
	b := e.term(100, 30, "attach", "s")
	e.waitClients("s", 2)
	b.send("x")
	a.expect("GOT x SIZE 30 100")
	a.send("y")
	a.expect("GOT y SIZE 24 80")
}

// When the owner detaches and exactly one client is left, its size
// applies at once.
func TestOwnerDetachSnapsToRemaining(t *testing.T) {
	e, a, _ := twoClients(t)
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
	e.eventually("the remaining client to own the size", func() bool {
		c, r := e.ptySize("s")
		return c == 100 && r == 30
	})
}

// The owner leaving makes the one remaining client that could own the size
// its owner, beside a read-only watcher or a recorder, which never can.
// They used to count as clients: the session kept the size of the window
// that left until someone pressed a key.
func TestOwnerDetachSnapsPastWatchers(t *testing.T) {
	for _, watcher := range []string{"read-only", "recorder"} {
		t.Run(watcher, func(t *testing.T) {
			e, a, _ := twoClients(t)
			switch watcher {
			case "read-only":
				e.term(50, 10, "attach", "-r", "s")
			case "recorder":
				rec := exec.Command(wrBin, "record", "s", filepath.Join(e.dir, "s.cast"))
				rec.Env, rec.Dir = e.vars, e.dir
				if err := rec.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = rec.Process.Kill(); _ = rec.Wait() })
			}
			e.waitClients("s", 3)
			a.send("\x1c")
			if code := a.wait(); code != 0 {
				t.Fatalf("detach exit %d", code)
			}
			e.eventually("the remaining terminal to own the size", func() bool {
				c, r := e.ptySize("s")
				return c == 100 && r == 30
			})
		})
	}
}

// A terminal answer reaches the application once, however many clients'
// terminals answer it: only the owner's answer goes through. The clients
// are all of the session's size, so all are sent the program's bytes, the
// query included (a client of another size is drawn from the model, and a
// drawing never holds a query).
func TestQueryAnsweredOnce(t *testing.T) {
	e := newEnv(t)
	out := filepath.Join(e.dir, "answers")
	app := fmt.Sprintf(`stty raw -echo min 0 time 20; echo READY; read go; printf '\033[c'; cat > %s; echo COLLECTED`, out)
	clients := []*term{e.term(80, 24, "attach", "q", "--", "sh", "-c", app)}
	clients[0].expect("READY")
	clients = append(clients, e.term(80, 24, "attach", "q"), e.term(80, 24, "attach", "q"))
	e.waitClients("q", 3)
	clients[0].send("\r") // the owner acts: the app sends its query now
	for i, c := range clients {
		c.expect("\x1b[c")
		// Each terminal answers, as real ones do.
		c.send(fmt.Sprintf("\x1b[?62;%dc", 20+i))
	}
	clients[0].expect("COLLECTED")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\x1b[?62;"); got != 1 || !strings.Contains(string(b), "\x1b[?62;20c") {
		t.Fatalf("the application got %q: want exactly one answer, the owner's", b)
	}
}

// A read-only client sees everything, its input is dropped, it never owns
// the size, and its detach key still works.
func TestReadOnlyClient(t *testing.T) {
	e := newEnv(t)
	a := e.term(80, 24, append([]string{"attach", "s", "--"}, visibleApp...)...)
	a.expect("READY")
	ro := e.term(120, 40, "attach", "-r", "s")
	e.waitClients("s", 2)
	ro.send("ignored")
	a.send("typed")
	ro.expect("typed") // the watcher sees the session's output
	if strings.Contains(string(a.output()), "ignored") {
		t.Fatal("a read-only client's input reached the application")
	}
	e.requireSize("s", 80, 24, "read-only input")
	s, _ := e.session("s")
	if !s.Attached[1].ReadOnly || s.Attached[1].Cols != 120 {
		t.Fatalf("ls shows %+v", s.Attached)
	}
	// With the owner gone, the read-only client is the one left: it still
	// does not own.
	a.send("\x1c")
	a.wait()
	e.waitClients("s", 1)
	if s, _ := e.session("s"); s.Owner != nil {
		t.Fatalf("a read-only client owns the size: %+v", s)
	}
	e.requireSize("s", 80, 24, "the owner left a read-only client")
	ro.send("\x1c")
	if code := ro.wait(); code != 0 {
		t.Fatalf("read-only detach exit %d", code)
	}
}

// Every client sees the same output, and input from any client reaches the
// application.
func TestManyClientsShareOutput(t *testing.T) {
	e := newEnv(t)
	first := e.term(80, 24, append([]string{"attach", "m", "--"}, visibleApp...)...)
	first.expect("READY")
	clients := []*term{first}
	for i := 0; i < 3; i++ {
		clients = append(clients, e.term(70+i, 20+i, "attach", "m"))
	}
	e.waitClients("m", 4)
	for i, c := range clients {
		c.send(fmt.Sprintf("<from %d>", i))
		for _, other := range clients {
			other.expect(fmt.Sprintf("<from %d>", i))
		}
	}
	s, _ := e.session("m")
	owner := -1
	for i, a := range s.Attached {
		if s.Owner != nil && a.ID == *s.Owner {
			owner = i
		}
	}
	if len(s.Attached) != 4 || owner < 0 || s.Attached[owner].Cols != 72 {
		t.Fatalf("ls --json: %+v (the last client to type, 72x22, owns the size)", s)
	}
	if c, r := e.ptySize("m"); c != 72 || r != 22 {
		t.Fatalf("size %dx%d, want the last typer's 72x22", c, r)
	}
}

// A modified F3 is a key from any client, and claims the size: xterm sends
// Shift+F3 as CSI 1;2R, which is also a cursor position report for row 1.
// It used to be taken for a report always, and dropped from a client that
// does not answer for the session. It is a report only while the client's
// terminal owes an answer to a cursor query the program sent.
func TestModifiedF3IsAKey(t *testing.T) {
	t.Run("from a client of another size", func(t *testing.T) {
		e, a, b := twoClients(t)
		b.send("\x1b[1;2R")
		a.expect("^[[1;2R")
		e.requireSize("s", 100, 30, "Shift+F3 from B")
	})
	t.Run("after the answers to a query", func(t *testing.T) {
		e := newEnv(t)
		a := e.term(80, 24, "attach", "s", "--", "sh", "-c", `stty -echo; echo READY; read go; stty raw; printf '\033[6n'; exec cat -v`)
		a.expect("READY")
		b := e.term(80, 24, "attach", "s") // the session's size: sent the query too
		e.waitClients("s", 2)
		a.send("\r")
		a.expect("\x1b[6n")
		b.expect("\x1b[6n")
		// Both terminals answer with the cursor in row 1: the owner's
		// answer goes through, B's is dropped, and B's Shift+F3 after it
		// is a key.
		a.send("\x1b[1;5R")
		a.expect("^[[1;5R")
		b.send("\x1b[1;5R")
		b.send("\x1b[1;2R")
		a.expect("^[[1;2R")
		if got := strings.Count(string(a.output()), "^[[1;5R"); got != 1 {
			t.Errorf("the program was given %d answers, want the owner's alone", got)
		}
		e.requireSecondOwns("B's Shift+F3")
	})
}

// Alt with _ ^ X P or ] sends ESC and a string's introducer (bash's M-_,
// Emacs's M-^ and M-x), and a string ends only at ST: every key after it
// was held as the string's body, forever, and dropped as a report from a
// client that does not answer. The same held string, left in an owner's
// input, swallowed its keys once another client took the size.
func TestAltStringIntroducersAreKeys(t *testing.T) {
	t.Run("from a client that does not own the size", func(t *testing.T) {
		e, a, b := twoClients(t)
		b.send("\x1b_x") // Alt+_ and x in one read
		b.send("hello\r")
		a.expect("^[_xhello")
		e.requireSize("s", 100, 30, "B's keys")
	})
	// What the owner typed went through at once; once B has taken the
	// size, A's next keys reach the program and take it back.
	for _, tc := range []struct{ name, held, shown, next, what string }{
		{"after the owner's Alt+^", "\x1b^", "^[^", "hello\r", "A's keys"},
		{"a key after the owner's Escape claims", "\x1b", "^[", "i", "A's i after its Escape"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, a, b := twoClients(t)
			a.send(tc.held)
			a.expect(tc.shown)
			b.send("b")
			a.expect("b")
			e.requireSize("s", 100, 30, "B's key")
			a.send(tc.next)
			a.expect(strings.TrimSuffix(tc.next, "\r"))
			e.requireSize("s", 80, 24, tc.what)
		})
	}
	t.Run("keys after rxvt-unicode's answer, ended by an 8-bit ST", func(t *testing.T) {
		e, a, b := twoClients(t)
		b.send("\x1b]l日本\x9chello\r") // a title report, then typing
		a.expect("hello")
		if strings.Contains(string(a.output()), "^[]l") {
			t.Errorf("the report reached the program from a client that does not answer: %q", a.output())
		}
		e.requireSize("s", 100, 30, "B's keys")
	})
	t.Run("Alt+[ alone is a key", func(t *testing.T) {
		e, a, b := twoClients(t)
		b.send("\x1b[")
		a.expect("^[[") // the lone-escape wait is over: it was typed
		e.requireSize("s", 100, 30, "B's Alt+[")
	})
}

// A query is answered once even when no client owns the size: by the
// earliest client whose terminal was sent it, or by wr when none was. The
// answerer used to be the earliest client that may type, who may be drawn
// from the model at a size of its own (never sent a query) or a relay with
// no terminal: the program got no answer, and a shell reading its cursor
// position hung.
func TestQueryAnsweredWithNoOwner(t *testing.T) {
	const app = `stty -echo; echo READY; read go; stty raw; printf 'Q\033[6n'; exec cat -v`
	t.Run("only clients of other sizes", func(t *testing.T) {
		e := newEnv(t)
		a := e.term(80, 24, "attach", "s", "--", "sh", "-c", app)
		a.expect("READY")
		e.term(100, 30, "attach", "s")
		e.term(40, 10, "attach", "s")
		e.waitClients("s", 3)
		a.send("\x1c")
		if code := a.wait(); code != 0 {
			t.Fatalf("detach: exit code %d", code)
		}
		if s, _ := e.session("s"); s.Owner != nil {
			t.Fatalf("owner %d with two clients of other sizes left, want none", *s.Owner)
		}
		e.mustWr("send", "s", "--key", "Enter")
		e.eventually("the program to be answered", func() bool {
			return regexp.MustCompile(`Q\^\[\[\d+;\d+R`).MatchString(e.mustWr("capture", "s"))
		})
	})
	t.Run("a relay attached first", func(t *testing.T) {
		e := newEnv(t)
		a := e.term(80, 24, "attach", "s", "--", "sh", "-c", app)
		a.expect("READY")
		relay := exec.Command(wrBin, "attach", "--no-create", "s") // no terminal
		relay.Env, relay.Dir = e.vars, e.dir
		if err := relay.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = relay.Process.Kill(); _ = relay.Wait() })
		e.waitClients("s", 2)
		b := e.term(80, 24, "attach", "s")
		e.waitClients("s", 3) // B before C: the earliest answers
		c := e.term(80, 24, "attach", "s")
		e.waitClients("s", 4)
		a.send("\x1c")
		if code := a.wait(); code != 0 {
			t.Fatalf("detach: exit code %d", code)
		}
		defer func() {
			if t.Failed() {
				t.Logf("the session shows:\n%s\nls: %+v", e.mustWr("capture", "s"), e.ls())
			}
		}()
		e.mustWr("send", "s", "--key", "Enter")
		b.expect("\x1b[6n")
		c.expect("\x1b[6n")
		c.send("\x1b[6;6R")
		c.send("\x1b[<64;1;1M") // the wheel, forwarded from anyone: C's answer is behind
		b.send("\x1b[5;5R")
		e.eventually("B's answer and C's wheel to reach the program", func() bool {
			out := e.mustWr("capture", "s")
			return strings.Contains(out, "^[[5;5R") && strings.Contains(out, "^[[<64;1;1M")
		})
		if out := e.mustWr("capture", "s"); strings.Contains(out, "^[[6;6R") {
			t.Fatalf("the program was given C's answer too:\n%s", out)
		}
	})
}

// The wheel over a client drawn at another size points at the cell that
// client shows: a smaller terminal shows the screen from an offset (the
// cursor kept in view), so its row 3 is the screen's row 17 here. Its
// coordinates went to the program as they came, and scrolled whatever
// was at the top instead; a larger terminal's blank edge, past the
// screen, has nothing for the program.
func TestWheelFromADrawnClientPointsWhereItShows(t *testing.T) {
	e := newEnv(t)
	a := e.term(80, 24, "attach", "s", "--", "sh", "-c", `stty raw -echo; printf '\033[20;1HREADY'; exec cat -v`)
	a.expect("READY")
	small := e.term(40, 10, "attach", "s") // shows rows 15-24: the cursor's row 20 in view
	small.expect("READY")
	big := e.term(100, 30, "attach", "s")
	big.expect("READY")
	e.waitClients("s", 3)
	small.send("\x1b[<64;5;3M")
	a.expect("^[[<64;5;17M")
	big.send("\x1b[<65;90;5M") // right of the screen: dropped
	big.send("\x1b[<65;7;5M")
	a.expect("^[[<65;7;5M")
	if out := string(a.output()); strings.Contains(out, ";90;5M") {
		t.Errorf("a wheel past the screen's edge reached the program: %q", out)
	}
	e.requireSize("s", 80, 24, "the wheel from drawn clients")
}
