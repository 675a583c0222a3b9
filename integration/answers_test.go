//go:build linux

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
		t.Run(q.name+": the old owner answers after the move", func(t *testing.T) {
			e, a, b := start(t)
			b.send(q.b) // B answers first: A answers for the session
			b.send("x")
			a.expect("x")
			e.requireSecondOwns("B typed")
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
			e.requireSecondOwns("B typed")
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

// catSession is a session running cat on a raw terminal, so a `wr send`
// puts queries in its output and the program's input shows in it as it
// comes; A and B are attached at its size, and A owns it.
func catSession(t *testing.T) (*env, *term, *term) {
	e := newEnv(t)
	a := e.term(80, 24, "attach", "s", "--", "sh", "-c", `stty raw -echo; echo READY; exec cat`)
	a.expect("READY")
	b := e.term(80, 24, "attach", "s")
	e.waitClients("s", 2)
	return e, a, b
}

// ask makes the program's output hold text (a query): cat gives back what
// it is sent.
func ask(e *env, text string, terms ...*term) {
	e.t.Helper()
	e.mustWr("send", "s", text)
	for _, tm := range terms {
		tm.expect(text)
	}
}

// An answer to a query asked while a client that has since left answered
// for the session comes from another client that was sent it, if the one
// that left had not answered; once it had, no other answer goes.
func TestAnAnswererThatLeft(t *testing.T) {
	t.Run("before it answered", func(t *testing.T) {
		e, a, b := catSession(t)
		ask(e, "Z\x1b[c", a, b)
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		e.waitClients("s", 1)
		b.send("\x1b[?6c")
		b.expect("\x1b[?6c")
		if out := string(b.output()); !strings.HasSuffix(out, "Z\x1b[c\x1b[?6c") {
			t.Fatalf("want B's answer straight after the query: %q", out[max(0, len(out)-100):])
		}
	})
	t.Run("after another answered", func(t *testing.T) {
		// B's answer came first, while A was still to answer: it is held,
		// and goes when A leaves without answering.
		e, a, b := catSession(t)
		ask(e, "Z\x1b[c", a, b)
		b.send("\x1b[?6c")
		b.send("\x1b[<64;1;1M") // the wheel, forwarded from anyone: B's answer is behind
		b.expect("\x1b[<64;1;1M")
		if out := string(b.output()); strings.Contains(out, "\x1b[?6c") {
			t.Fatalf("B's answer went while A was to answer: %q", out[max(0, len(out)-60):])
		}
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		b.expect("\x1b[?6c")
	})
	t.Run("after it answered", func(t *testing.T) {
		e, a, b := catSession(t)
		ask(e, "Z\x1b[c", a, b)
		a.send("\x1b[?1;2c")
		b.expect("\x1b[?1;2c")
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		e.waitClients("s", 1)
		b.send("\x1b[?6c")
		b.send("y")
		b.expect("y")
		if out := string(b.output()); !strings.HasSuffix(out, "Z\x1b[c\x1b[?1;2cy") {
			t.Fatalf("want A's answer alone: %q", out[max(0, len(out)-100):])
		}
	})
}

// OSC 10;?;? asks for two colours, and a terminal answers with an OSC 10
// and an OSC 11: each answer is matched with its own query, and nothing is
// left over to take a later answer.
func TestTwoColoursAskedAtOnceAreTwoAnswers(t *testing.T) {
	e, a, b := catSession(t)
	ask(e, "Z\x1b]10;?;?\x07", a, b)
	b.send("\x1b]10;rgb:eeee/eeee/eeee\x07\x1b]11;rgb:ffff/ffff/ffff\x07")
	a.send("\x1b]10;rgb:1111/1111/1111\x07\x1b]11;rgb:2222/2222/2222\x07")
	a.expect("2222/2222\x07")
	b.send("x") // B owns the size
	a.expect("x")
	ask(e, "Y\x1b]10;?\x07", a, b)
	a.send("\x1b]10;rgb:3333/3333/3333\x07")
	b.send("\x1b]10;rgb:4444/4444/4444\x07")
	b.send("y")
	a.expect("y")
	out := string(a.output())
	for _, want := range []string{"1111", "2222", "4444"} {
		if strings.Count(out, want+"/"+want+"/"+want) != 1 {
			t.Errorf("the answer %s reached the program %d times, want once: %q", want, strings.Count(out, want+"/"+want+"/"+want), out)
		}
	}
	for _, never := range []string{"eeee", "ffff", "3333"} {
		if strings.Contains(out, never) {
			t.Errorf("the answer %s reached the program: %q", never, out)
		}
	}
}

// A client that falls behind is sent a redraw in place of the output it
// missed, queries and all: it owes no answer to them, or its answer to a
// later query would be taken for one of them, and the program given two;
// and if it answered for the session, another client's answer goes.
func TestAClientThatFellBehindOwesNoAnswers(t *testing.T) {
	e, a, b := catSession(t)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.cmd.Process.Signal(syscall.SIGCONT) })
	// A's socket fills, so Q1 waits in its queue, which the rest of the
	// flood overruns: Q1 is dropped with it, unseen.
	mustSendStdin(e, strings.Repeat("a", 1<<20))
	ask(e, "Q1\x1b[c", b)
	mustSendStdin(e, strings.Repeat("b", 5<<20)+"END")
	b.expect("END")
	// A answered Q1 for the session, and never saw it: B's answer goes.
	b.send("\x1b[?6c")
	b.expect("\x1b[?6c")
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	a.expect("END") // redrawn
	b.send("x")     // B owns the size
	a.expect("x")
	e.requireSecondOwns("B typed")
	ask(e, "Q2\x1b[c", a, b)
	a.send("\x1b[?1;2c")
	a.send("\x1b[<64;1;1M") // the wheel, forwarded from anyone: A's answer is behind
	b.send("\x1b[?6c")
	b.send("y")
	afterQ2 := func() string {
		out := string(b.output())
		return out[strings.LastIndex(out, "Q2\x1b[c"):]
	}
	e.eventually("A's wheel and B's y to reach the program", func() bool {
		out := afterQ2()
		return strings.Contains(out, "\x1b[<64;1;1M") && strings.Contains(out, "y")
	})
	if out := afterQ2(); strings.Contains(out, "\x1b[?1;2c") || strings.Count(out, "\x1b[?6c") != 1 {
		t.Fatalf("after Q2 the program was given %q, want B's answer alone", out)
	}
}

// mustSendStdin sends text with `wr send -`: more than an argument holds.
func mustSendStdin(e *env, text string) {
	e.t.Helper()
	if r := e.wrIn(text, e.vars, "send", "s", "-"); r.code != 0 {
		e.t.Fatalf("wr send -: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A client that falls behind still gets the output already on its way (in
// its socket), queries and all, and owes their answers: forgotten, its
// answer passed as a new owner's, and the program was given two.
func TestAQueryOnItsWayIsStillOwed(t *testing.T) {
	e, a, b := catSession(t)
	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.cmd.Process.Signal(syscall.SIGCONT) })
	ask(e, "Q2\x1b[c", a) // into B's socket: written, not queued
	a.send("\x1b[?1;2c")  // A answers for the session
	a.expect("\x1b[?1;2c")
	mustSendStdin(e, strings.Repeat("b", 5<<20)+"END") // B's queue overrun
	a.expect("END")
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	b.expect("Q2\x1b[c")
	b.expect("END") // redrawn
	b.send("x")     // B owns the size
	a.expect("x")
	b.send("\x1b[?6c") // its terminal's answer to Q2
	b.send("y")
	a.expect("y")
	if out := string(a.output()); !strings.HasSuffix(out, "xy") {
		t.Fatalf("want nothing between B's x and y: %q", out[max(0, len(out)-60):])
	}
}

// A query answered stays answered until it lapses: another terminal's late
// answer to it goes nowhere, however many queries come after it, and
// across an upgrade. Forgotten once answered, it was taken for an answer
// to nothing, and went from the client that answers now.
func TestAnAnsweredQueryStaysAnswered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(e *env, a, b *term)
	}{
		{"another query", func(e *env, a, b *term) { ask(e, "W\x1b[5n", a, b) }},
		{"an upgrade", func(e *env, a, b *term) { upgradeUnder(e, b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, a, b := catSession(t)
			ask(e, "Z\x1b[c", a, b)
			a.send("\x1b[?1;2c")
			b.expect("\x1b[?1;2c")
			b.send("x") // B owns the size
			a.expect("x")
			tc.after(e, a, b)
			b.send("\x1b[?6c") // B's late answer to Z
			b.send("y")
			a.expect("y")
			if out := string(a.output()); strings.Contains(out, "\x1b[?6c") {
				t.Fatalf("the program got a second answer to Z: %q", out[strings.LastIndex(out, "Z\x1b[c"):])
			}
		})
	}
}

// A query the answering terminal was not sent, because it fell behind, is
// answered by another terminal that was sent it: all of the chunk's
// queries, in order. wr answering what it can (DA1) and that terminal the
// rest (a colour) put wr's DA1, which programs send last to know the
// answers are in, before the colour.
func TestAQueryTheAnswererMissedGoesToAnotherTerminal(t *testing.T) {
	e, a, b := catSession(t)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.cmd.Process.Signal(syscall.SIGCONT) })
	mustSendStdin(e, strings.Repeat("b", 6<<20)+"END") // A falls behind
	b.expect("END")
	ask(e, "Q\x1b]11;?\x07\x1b[c", b)
	b.send("\x1b]11;rgb:0000/0000/0000\x07\x1b[?6c")
	b.send("\x1b[<64;1;1M") // the wheel, forwarded from anyone: B's answers are behind
	b.expect("\x1b[<64;1;1M")
	out := string(b.output())
	if got := out[strings.LastIndex(out, "Q\x1b]"):]; got != "Q\x1b]11;?\x07\x1b[c\x1b]11;rgb:0000/0000/0000\x07\x1b[?6c\x1b[<64;1;1M" {
		t.Fatalf("want B's two answers, in order, and nothing else: %q", got)
	}
}

// An upgrade carries the ledger: the terminal that answered for the session
// when the query went out answers after the upgrade, though another has
// taken the size since, and the other's answer does not go.
func TestAnUpgradeCarriesWhoAnswers(t *testing.T) {
	e, a, b := catSession(t)
	ask(e, "Z\x1b[c", a, b)
	b.send("x") // B owns the size; A answers Z
	a.expect("x")
	upgradeUnder(e, b)
	b.send("\x1b[?6c")
	a.send("\x1b[?1;2c")
	a.send("\x1b[<64;1;1M") // the wheel, forwarded from anyone: A's answer is behind
	b.send("y")
	afterZ := func() string {
		out := string(b.output())
		return out[strings.LastIndex(out, "Z\x1b[c"):]
	}
	defer func() {
		if t.Failed() {
			t.Logf("after Z: %q", afterZ())
		}
	}()
	e.eventually("A's wheel and B's y to reach the program", func() bool {
		out := afterZ()
		return strings.Contains(out, "\x1b[<64;1;1M") && strings.Contains(out, "y")
	})
	if out := afterZ(); !strings.Contains(out, "\x1b[?1;2c") || strings.Contains(out, "\x1b[?6c") {
		t.Fatalf("want A's answer to Z alone: %q", out)
	}
}

// upgradeUnder upgrades the server in place, and waits until tm's client
// is the new server's.
func upgradeUnder(e *env, tm *term) {
	e.t.Helper()
	e.mustWr("server", "upgrade")
	tm.send("\x1b[<65;1;1M") // the wheel, forwarded from anyone: it reaches the new server
	tm.expect("\x1b[<65;1;1M")
}
