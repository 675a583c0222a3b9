package integration

import (
	"strings"
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
