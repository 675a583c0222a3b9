package integration

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// An answer goes where its query went: it is the program's if the client
// answered for the session when the query was sent, whoever answers when
// the answer comes. It was decided when the answer came, so a size that
// moved between a program's query and the answers gave the program none
// (the old owner's answer came after the move, the new owner's before it)
// or two (the old owner's before, the new owner's after).
func TestAnAnswerGoesWhereItsQueryWent(t *testing.T) {
	queries := []struct {
		name, query, a, b, shownA, shownB string
	}{
		{"device attributes", `\033[c`, "\x1b[?1;2c", "\x1b[?6c", "^[[?1;2c", "^[[?6c"},
		{"background colour", `\033]11;?\007`, "\x1b]11;rgb:0000/0000/0000\x1b\\", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\",
			"^[]11;rgb:0000/0000/0000^[\\", "^[]11;rgb:ffff/ffff/ffff^[\\"},
	}
	for _, q := range queries {
		// A owns the size when the program asks; both terminals are sent
		// the query. Then B types, and owns the size.
		start := func(t *testing.T) (*env, *term, *term) {
			e := newEnv(t)
			a := e.term(80, 24, "attach", "s", "--", "sh", "-c",
				`stty -echo; echo READY; read go; stty raw; printf 'Q`+q.query+`'; exec cat -v`)
			a.expect("READY")
			b := e.term(80, 24, "attach", "s")
			e.waitClients("s", 2)
			a.send("\r")
			a.expect("Q")
			b.expect("Q")
			return e, a, b
		}
		bOwns := func(e *env) {
			t.Helper()
			if s, _ := e.session("s"); s.Owner == nil || *s.Owner != s.Attached[1].ID {
				t.Fatalf("owner %v after B typed, want B (%d)", s.Owner, s.Attached[1].ID)
			}
		}
		t.Run(q.name+": the old owner answers after the move", func(t *testing.T) {
			e, a, b := start(t)
			b.send(q.b) // B answers first: A answers for the session
			b.send("x")
			a.expect("x")
			bOwns(e)
			a.send(q.a)
			a.expect(q.shownA)
			b.send("y")
			a.expect("y")
			if out := string(a.output()); strings.Contains(out, q.shownB) {
				t.Fatalf("the program was given B's answer too: %q", out)
			}
		})
		t.Run(q.name+": the new owner answers after the move", func(t *testing.T) {
			e, a, b := start(t)
			a.send(q.a)
			a.expect(q.shownA)
			b.send("x")
			a.expect("x")
			bOwns(e)
			b.send(q.b) // asked before B owned the size: A's answer counts
			b.send("y")
			a.expect("y")
			if out := string(a.output()); strings.Contains(out, q.shownB) {
				t.Fatalf("the program was given B's answer too: %q", out)
			}
		})
	}
}

// A query the answering terminal was never sent is answered by wr: a client
// that falls behind is sent a redraw in place of the output it missed, and
// a query in that output reached no terminal. The program waited for an
// answer forever, as wr answered only with no terminal attached.
func TestAQueryTheAnswererMissedIsAnswered(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "s", "--", "sh", "-c",
		`stty -echo; read x; head -c 16777216 /dev/zero | tr '\000' x; printf 'Q\033[6n'; stty raw; exec cat -v`)
	a := e.term(80, 24, "attach", "s") // the owner, so the answerer
	e.waitClients("s", 1)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.cmd.Process.Signal(syscall.SIGCONT) })
	e.mustWr("send", "s", "--key", "Enter")
	answered := regexp.MustCompile(`Q\^\[\[\d+;\d+R`)
	e.eventually("wr to answer the query the stopped client missed", func() bool {
		return answered.MatchString(e.mustWr("capture", "s"))
	})
	if s, _ := e.session("s"); len(s.Attached) != 1 || s.Owner == nil {
		t.Fatalf("the stopped client left or lost the size: %+v", s)
	}
}
