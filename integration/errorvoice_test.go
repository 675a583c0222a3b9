//go:build linux

package integration

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"wr/wire"
)

// internalName matches the name of one of wr's packages used as an error
// prefix ("attach: ", "wire: "...), which a user must never read: main
// words every error for a person (issue 23, item 1). A path such as
// /proc: or a word inside another word is not a match.
var internalName = regexp.MustCompile(`(?:^|[^\w/.-])(attach|wire|mux|proc|ptyproc|screen|rawio|rawfd):`)

// shortArgs is args for a log line, each cut to 40 bytes.
func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:40] + "..."
		}
		out[i] = a
	}
	return out
}

// leakedName returns the package name stderr shows as a prefix, or "".
// env.run checks it for every wr command of the suite.
func leakedName(stderr string) string {
	if m := internalName.FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// failure is one way a user makes wr fail, and the exit code it must give.
type failure struct {
	why   string
	vars  []string // the environment; nil: the test's
	stdin string
	args  []string
	code  int
}

// Every failure the suite provokes, and a few only a fake server can: each
// says so in exactly one line on stderr, starting "wr: ", in wr's words
// (no package name), with exit 2 for a command line wr cannot take and 1
// for anything else.
func TestErrorsSpeakWithOneVoice(t *testing.T) {
	e := newEnv(t)
	big := strings.Repeat("a", 100_000)
	huge := []string{"--"}
	for range 12 { // 1.2 MB of command: over a frame
		huge = append(huge, big)
	}
	var cases []failure
	add := func(why string, code int, args ...string) {
		cases = append(cases, failure{why: why, args: args, code: code})
	}

	// The command line.
	for _, cmd := range [][]string{
		{"attach", ".bad"}, {"new", "-d", "--", "-x"}, {"kill", "a b"}, {"wait", "../x"},
		{"send", "caf\u00e9", "x"}, {"capture", strings.Repeat("a", 65)},
	} {
		add("bad name", 2, cmd...)
	}
	add("a host and no name", 2, "new", "-d", "box:")
	for _, key := range []string{"meta-x", "ctrl-[", "ctrl-h", "ctrl-"} {
		add("bad detach key", 2, "attach", "--detach-key", key, "x")
	}
	// wr new -d took any key: nothing attaches to use it, but it is a
	// mistake all the same.
	add("bad detach key", 2, "new", "-d", "--detach-key", "ctrl-1", "x", "--", "true")
	add("bad flag", 2, "attach", "--bogus", "x")
	add("unknown command", 2, "nosuchcommand")
	add("missing name", 2, "attach")
	add("missing name", 2, "wait")
	add("extra argument", 2, "attach", "x", "extra")
	add("extra argument", 2, "ls", "extra")
	add("kill without names", 2, "kill")
	add("nothing to send", 2, "send", "x")
	add("bad timeout", 2, "send", "x", "--timeout", "soon", "hi")
	add("bad number", 2, "new", "-d", "--scrollback", "many", "x")

	// No server.
	for _, cmd := range [][]string{
		{"send", "x", "hi"}, {"capture", "x"}, {"wait", "x"}, {"kill", "x"},
		{"server", "stop"}, {"server", "status"}, {"attach", "--no-create", "x"},
	} {
		add("no server", 1, cmd...)
	}
	// Attaching inside itself is refused by the server, which knows a
	// session by its WR_SESSION_ID (a name may have moved on since): its
	// words are checked through a real session in TestAttachInsideItselfRefused.
	add("command too large", 1, append([]string{"new", "-d", "big"}, huge...)...)
	e.check(cases)

	// A server, and a session that is not there.
	e.mustWr("new", "-d", "up", "--", "sleep", "100")
	cases = nil
	for _, cmd := range [][]string{
		{"send", "nosuch", "hi"}, {"capture", "nosuch"}, {"wait", "nosuch"},
		{"kill", "nosuch"}, {"kill", "nosuch", "gone"}, {"attach", "--no-create", "nosuch"},
	} {
		add("unknown session", 1, cmd...)
	}
	add("session exists", 1, "new", "-d", "up")
	add("server already running", 1, "server", "run")
	badExe := filepath.Join(e.dir, "badexe")
	if err := os.WriteFile(badExe, []byte("\x7fELF, but not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	add("command that cannot run", 1, "new", "-d", "bad", "--", badExe)
	add("command too large", 1, append([]string{"attach", "big2"}, huge...)...)
	e.check(cases)

	// The socket's path.
	notes := filepath.Join(e.dir, "notes.md")
	if err := os.WriteFile(notes, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(e.dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	cases = nil
	for _, cmd := range [][]string{{"new", "-d", "x"}, {"server", "run"}} {
		add("not a socket", 1, append([]string{"--socket", notes}, cmd...)...)
	}
	for _, cmd := range [][]string{{"new", "-d", "x"}, {"ls"}, {"kill", "x"}, {"attach", "x"}} {
		add("unsafe socket directory", 1, append([]string{"--socket", filepath.Join(open, "s.sock")}, cmd...)...)
	}
	add("socket path too long", 1, "--socket", filepath.Join(e.dir, strings.Repeat("s", 120)), "ls")
	e.check(cases)

	// Servers this wr cannot use, played by a fake one.
	t.Run("refused", func(t *testing.T) {
		f := newEnv(t)
		fakeServer(t, f.socket, func(c net.Conn) {
			// What a server of another user answers.
			writeMessage(c, wire.TypeRefused, wire.Refused{Message: "wr: connection refused: the server belongs to another user"})
		})
		f.check([]failure{{why: "refused", args: []string{"ls"}, code: 1}, {why: "refused", args: []string{"attach", "x"}, code: 1}})
	})
	t.Run("old server", func(t *testing.T) {
		f := newEnv(t)
		fakeServer(t, f.socket, func(c net.Conn) {
			writeMessage(c, wire.TypeWelcome, wire.Welcome{Protocol: wire.ProtocolMajor, Minor: 0, Version: "0.0.1"})
		})
		f.check([]failure{{why: "send from stdin to an old server", stdin: "text", args: []string{"send", "x", "-"}, code: 1}})
	})
	t.Run("unreadable reply", func(t *testing.T) {
		f := newEnv(t)
		fakeServer(t, f.socket, func(c net.Conn) {
			writeMessage(c, wire.TypeWelcome, wire.Welcome{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: "0.0.1"})
			if _, err := wire.ReadFrame(c); err == nil {
				b, _ := wire.AppendFrame(nil, wire.TypeSessions, []byte("{"))
				_, _ = c.Write(b)
			}
		})
		f.check([]failure{{why: "malformed reply", args: []string{"ls"}, code: 1}})
	})
}

// check runs each failure and holds its stderr to the one voice.
func (e *env) check(cases []failure) {
	e.t.Helper()
	for _, c := range cases {
		vars := c.vars
		if vars == nil {
			vars = e.vars
		}
		r := e.wrIn(c.stdin, vars, c.args...)
		e.t.Logf("%s: exit %d: %s", c.why, r.code, strings.TrimSuffix(r.stderr, "\n"))
		line, rest, _ := strings.Cut(r.stderr, "\n")
		switch {
		case r.code != c.code:
			e.t.Errorf("%s: wr %q: exit %d, want %d (stderr %q)", c.why, shortArgs(c.args), r.code, c.code, r.stderr)
		case !strings.HasPrefix(line, "wr: ") || rest != "" || !strings.HasSuffix(r.stderr, "\n"):
			e.t.Errorf("%s: wr %q: stderr %q, want one line starting \"wr: \"", c.why, shortArgs(c.args), r.stderr)
		case strings.Count(line, "wr: ") != 1:
			e.t.Errorf("%s: wr %q: stderr %q says \"wr: \" twice", c.why, shortArgs(c.args), r.stderr)
		case leakedName(r.stderr) != "":
			// env.run has said so already.
		}
	}
}

// fakeServer listens on socket and, for each connection, reads the Hello
// and hands the connection to answer; it stops in t.Cleanup.
func fakeServer(t *testing.T, socket string, answer func(net.Conn)) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("fake server: %v", err)
				}
				return
			}
			if _, err := wire.ReadFrame(c); err == nil {
				answer(c)
			}
			c.Close()
		}
	}()
}

// writeMessage writes one control message.
func writeMessage(c net.Conn, t wire.Type, msg any) {
	p, _ := wire.Encode(msg)
	b, _ := wire.AppendFrame(nil, t, p)
	_, _ = c.Write(b)
}
