//go:build linux

package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Issue 19: the verbs people reach for, each driven from a plain exec.Cmd
// (no terminal) as a script drives them.

// shownPrompt is the prompt as a restore draws it: trailing spaces are
// not drawn.
var shownPrompt = strings.TrimSpace(prompt)

// pipeAttach starts `wr attach NAME` with its stdin a pipe nobody writes
// and its output collected: a client with no terminal, as a script makes.
// The result arrives on the channel when it exits.
func pipeAttach(e *env, args ...string) (<-chan result, func()) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	cmd := exec.CommandContext(ctx, wrBin, args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	ch := make(chan result, 1)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		r := result{stdout: out.String(), stderr: errb.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err != nil {
			r.code = -1
		}
		ch <- r
	}()
	stop := func() { stdin.Close(); cancel() }
	e.t.Cleanup(stop)
	return ch, stop
}

// clients is how many clients session name has, by wr ls.
func clients(e *env, name string) int {
	e.t.Helper()
	s, ok := e.session(name)
	if !ok {
		e.t.Fatalf("no session %s in wr ls", name)
	}
	return s.Clients
}

func waitResult(t *testing.T, what string, ch <-chan result) result {
	t.Helper()
	r := <-ch
	if r.code == -1 {
		t.Fatalf("%s did not finish: %q", what, r.stderr)
	}
	return r
}

// Item 1: wr detach NAME... detaches every client of those sessions, each
// with its line and exit 0; bare wr detach inside a session detaches its
// own; wr attach -d detaches every other client.
func TestDetach(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "one", "--", "sh")
	e.mustWr("new", "-d", "two", "--", "sh")
	a1, _ := pipeAttach(e, "attach", "one")
	a2, _ := pipeAttach(e, "attach", "one")
	b, _ := pipeAttach(e, "attach", "two")
	tm := e.term(80, 24, "attach", "two")
	tm.expect(shownPrompt)
	e.eventually("three clients", func() bool { return clients(e, "one") == 2 && clients(e, "two") == 2 })

	e.mustWr("detach", "one", "two")
	for _, c := range []struct {
		what string
		ch   <-chan result
		name string
	}{{"first client of one", a1, "one"}, {"second client of one", a2, "one"}, {"pipe client of two", b, "two"}} {
		r := waitResult(t, c.what, c.ch)
		if r.code != 0 || !strings.Contains(r.stdout, "[detached from "+c.name+"]") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and [detached from %s]", c.what, r.code, r.stdout, r.stderr, c.name)
		}
	}
	if code := tm.wait(); code != 0 {
		t.Errorf("the terminal client exited %d, want 0", code)
	}
	tm.expect("[detached from two]")
	if n := clients(e, "one") + clients(e, "two"); n != 0 {
		t.Errorf("%d clients left after wr detach, want none", n)
	}
	// The sessions run on.
	if s, _ := e.session("one"); s.PID == 0 {
		t.Error("session one is gone after wr detach")
	}

	// A missing name detaches nothing.
	{
		c, _ := pipeAttach(e, "attach", "one")
		e.eventually("a client", func() bool { return clients(e, "one") == 1 })
		r := e.wr("detach", "one", "nosuch")
		if r.code != 1 || !strings.Contains(r.stderr, "no session named nosuch") {
			t.Errorf("wr detach one nosuch: exit %d, stderr %q", r.code, r.stderr)
		}
		if clients(e, "one") != 1 {
			t.Error("wr detach with a missing name detached the others")
		}
		e.mustWr("detach", "one")
		waitResult(t, "client", c)
	}

	// Bare detach inside a session.
	{
		tm := e.term(80, 24, "attach", "one")
		tm.expect(shownPrompt)
		tm.send(wrBin + " detach\r")
		tm.expect("[detached from one]")
		if code := tm.wait(); code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
		if r := e.wr("detach"); r.code != 2 || !strings.Contains(r.stderr, "not inside one") {
			t.Errorf("bare wr detach outside a session: exit %d, stderr %q; want 2", r.code, r.stderr)
		}
	}

	// Attach -d detaches the others.
	{
		old, _ := pipeAttach(e, "attach", "two")
		e.eventually("a client", func() bool { return clients(e, "two") == 1 })
		tm := e.term(80, 24, "attach", "-d", "two")
		tm.expect(shownPrompt)
		r := waitResult(t, "the other client", old)
		if r.code != 0 || !strings.Contains(r.stdout, "[detached from two]") {
			t.Errorf("other client: exit %d, stdout %q", r.code, r.stdout)
		}
		e.eventually("one client", func() bool { return clients(e, "two") == 1 })
		tm.run("echo STILL") // the new client types and is answered
	}
}

// Item 2: wr has exits 0 for a session that exists, running or exited,
// and 1 for one that does not, and prints nothing either way.
func TestHas(t *testing.T) {
	e := newEnv(t)
	check := func(name string, want int) {
		t.Helper()
		r := e.wr("has", name)
		if r.code != want || r.stdout != "" || r.stderr != "" {
			t.Errorf("wr has %s: exit %d, stdout %q, stderr %q; want exit %d and nothing printed", name, r.code, r.stdout, r.stderr, want)
		}
	}
	check("x", 1) // no server at all
	e.mustWr("new", "-d", "x", "--", "sh")
	check("x", 0)
	check("y", 1)
	e.mustWr("new", "-d", "done", "--", "sh", "-c", "exit 3")
	e.eventually("done exited", func() bool {
		return strings.Contains(e.mustWr("ls"), "exited 3")
	})
	check("done", 0)
	if r := e.wr("has", "-bad"); r.code != 2 {
		t.Errorf("wr has -bad: exit %d, want 2", r.code)
	}
}

// Item 3: wr rename: attached clients, a blocked wr wait and wr kill keep
// working; the new name follows the rule; a taken one is refused.
func TestRename(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "old")
	tm.expect(prompt)
	e.mustWr("new", "-d", "taken", "--", "sh")
	// The wait must be under way before the rename: it is once the server
	// holds a socket it did not hold before (the wait's request is in the
	// same write as the connection's greeting). Without this, a loaded
	// machine ran the rename first, and the wait found no session named
	// old. Sockets, not a count: a connection that ended just before may
	// still be closing.
	pid := strconv.Itoa(e.serverPID())
	before := sockets(t, pid)
	waiter := bgWr(e, nil, "wait", "old")
	e.eventually("wr wait to connect", func() bool {
		for s := range sockets(t, pid) {
			if !before[s] {
				return true
			}
		}
		return false
	})

	if r := e.wr("rename", "old", "taken"); r.code != 1 || !strings.Contains(r.stderr, "a session named taken already exists") {
		t.Errorf("rename onto a taken name: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.wr("rename", "old", ".bad"); r.code != 2 || !strings.Contains(r.stderr, "invalid session name") {
		t.Errorf("rename to a bad name: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.wr("rename", "nosuch", "other"); r.code != 1 || !strings.Contains(r.stderr, "no session named nosuch") {
		t.Errorf("rename of a missing session: exit %d, stderr %q", r.code, r.stderr)
	}
	e.mustWr("rename", "old", "new")
	if _, ok := e.session("old"); ok {
		t.Error("wr ls still lists old")
	}
	if s, ok := e.session("new"); !ok || s.Clients != 1 {
		t.Errorf("wr ls: new %+v, %v; want it with its one client", s, ok)
	}
	// The attached client carries on, and its shell keeps the name it
	// started with (its environment cannot change from outside).
	tm.send(`echo "WR_SESSION=$WR_SESSION"` + "\r")
	tm.expect("WR_SESSION=old")
	e.mustWr("send", "new", "--enter", "echo SENT-$((40+2))")
	tm.expect("SENT-42")
	// Attaching to it from inside refuses, though WR_SESSION says old.
	tm.send(wrBin + " attach new; echo CODE=$?\r")
	tm.expect("already inside session new")
	tm.expect("CODE=1")
	// wr kill by the new name ends it; the wait blocked before the rename
	// gets its code, and so does the client.
	e.mustWr("kill", "new")
	if r := waitResult(t, "wr wait", waiter); r.code != 129 {
		t.Errorf("wr wait old (blocked before the rename): exit %d, stderr %q; want 129", r.code, r.stderr)
	}
	if code := tm.wait(); code != 129 {
		t.Errorf("attached client exit %d, want 129", code)
	}

	// Detach line says the new name.
	{
		c, _ := pipeAttach(e, "attach", "taken")
		e.eventually("a client", func() bool { return clients(e, "taken") == 1 })
		e.mustWr("rename", "taken", "renamed")
		e.mustWr("detach", "renamed")
		if r := waitResult(t, "client", c); !strings.Contains(r.stdout, "[detached from renamed]") {
			t.Errorf("stdout %q, want [detached from renamed]", r.stdout)
		}
	}
}

// Item 5: wr wait --timeout exits 124 when the time passes first, and
// leaves the session as it was: a later wait still gets its code.
func TestWaitTimeout(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "w", "--", "sh")
	r := e.wr("wait", "--timeout", "200ms", "w")
	if r.code != 124 || !strings.Contains(r.stderr, "still running") {
		t.Fatalf("wr wait --timeout on a running session: exit %d, stderr %q; want 124", r.code, r.stderr)
	}
	e.mustWr("send", "w", "--enter", "exit 7")
	e.eventually("w exited", func() bool { return strings.Contains(e.mustWr("ls"), "exited 7") })
	// The timed-out wait collected nothing: the code is still there.
	if r := e.wr("wait", "--timeout", "10s", "w"); r.code != 7 {
		t.Errorf("wr wait after the session ended: exit %d, stderr %q; want 7", r.code, r.stderr)
	}
	if r := e.wr("wait", "--timeout", "soon", "w"); r.code != 2 || !strings.Contains(r.stderr, "--timeout") {
		t.Errorf("wr wait --timeout soon: exit %d, stderr %q; want 2 naming --timeout", r.code, r.stderr)
	}
}

// The composed script of issue 19, run by sh as a script runs it.
func TestScriptComposesTheVerbs(t *testing.T) {
	e := newEnv(t)
	script := `wr has x || wr new -d x -- sh; wr send x --enter 'exit 5'; wr wait --timeout 10s x; test $? = 5`
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(e.with(), "PATH="+filepath.Dir(wrBin)+":"+strings.TrimPrefix(e.vars[0], "PATH="))
	cmd.Dir = e.dir
	r, err := runCmd(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 0 {
		t.Fatalf("the script exited %d; stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := e.wr("has", "x"); r.code != 1 {
		t.Errorf("x still exists after wr wait collected it: wr has exit %d", r.code)
	}
}

// sockets is the set of sockets (as "socket:[inode]") process pid holds.
func sockets(t *testing.T, pid string) map[string]bool {
	t.Helper()
	dir := "/proc/" + pid + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			set[l] = true
		}
	}
	return set
}

// Sessions may be named h or help, as in tmux: the parser took those
// words for its help subcommand, so wr kill h printed help and exited 0
// with the session running, and wr has help said yes with no such session.
// --help still shows a verb's help.
func TestSessionsNamedHelp(t *testing.T) {
	e := newEnv(t)
	if r := e.wr("has", "help"); r.code != 1 || r.stdout != "" {
		t.Fatalf("wr has help with no such session: exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
	}
	e.mustWr("new", "-d", "h", "--", "sh", "-c", "read line; echo got-$line; exec sleep 1000")
	e.mustWr("new", "-d", "help", "--", "sh", "-c", "exit 7")
	if r := e.wr("has", "h"); r.code != 0 || r.stdout != "" {
		t.Fatalf("wr has h: exit %d, stdout %q", r.code, r.stdout)
	}
	e.mustWr("send", "h", "--enter", "x")
	e.eventually("h to show what was sent", func() bool { return strings.Contains(e.mustWr("capture", "h"), "got-x") })
	if r := e.wr("wait", "help"); r.code != 7 {
		t.Fatalf("wr wait help: exit %d, stderr %q; want 7", r.code, r.stderr)
	}
	e.mustWr("rename", "h", "help")
	e.mustWr("kill", "help")
	if r := e.wr("has", "help"); r.code != 1 {
		t.Fatalf("wr has help after wr kill help: exit %d", r.code)
	}
	if out := e.mustWr("kill", "--help"); !strings.Contains(out, "wr kill") {
		t.Fatalf("wr kill --help: %q", out)
	}
}

// A wr wait whose server dies says it lost the server, not "the server
// closed the connection during Wait: EOF".
func TestWaitSaysItLostTheServer(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "w", "--", "sleep", "1000")
	pid := e.serverPID()
	wait := e.startBackground(nil, "wait", "w")
	e.eventually("wr wait to be connected and asleep", func() bool {
		return hasSocketTo(wait.cmd.Process.Pid) && allAsleep(wait.cmd.Process.Pid)
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := wait.wait(t)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(wait.stderr.String(), "lost the server while waiting for w") {
		t.Fatalf("wr wait when its server died: %v, stderr %q; want exit 1 saying it lost the server", err, wait.stderr.String())
	}
}
