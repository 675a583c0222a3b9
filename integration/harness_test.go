//go:build linux

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// timeout is how long any one expectation may take. Generous: the machines
// are shared and the binary may be built with -race.
var timeout = 20 * time.Second

// prompt is the test shell's prompt, set through PS1.
const prompt = "PROMPT> "

// env is one test's world: its own socket, home and shell settings.
type env struct {
	t      testing.TB
	dir    string
	socket string
	vars   []string
}

// newEnv makes a fresh socket directory; its server and every process that
// names it are stopped in t.Cleanup, whether the test passed or not.
func newEnv(t testing.TB) *env {
	t.Helper()
	seeBuildInputs()
	dir, err := os.MkdirTemp(suiteRoot, "t")
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, socket: filepath.Join(dir, "run", "s.sock")}
	e.vars = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"SHELL=/bin/sh",
		"PS1=" + prompt,
		"TERM=xterm-256color",
		"LANG=C",
		"WR_SOCKET=" + e.socket,
		// A -race binary otherwise sleeps a second at every exit.
		"GORACE=atexit_sleep_ms=0",
	}
	if p := os.Getenv("WR_CPUPROFILE"); p != "" {
		e.vars = append(e.vars, "WR_CPUPROFILE="+p) // profile the wr processes too
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, wrBin, "server", "stop")
		cmd.Env = e.vars
		_ = cmd.Run()
		if left := waitNoProcesses(e.dir, 3*time.Second); len(left) > 0 {
			t.Errorf("processes still running after cleanup (killing them): %v", left)
			killProcesses(e.dir)
		}
		// The daemon's stderr is its log: a data race it hit is only there.
		if log, err := os.ReadFile(e.socket + ".log"); err == nil && bytes.Contains(log, []byte("DATA RACE")) {
			t.Errorf("the server hit a data race:\n%s", log)
		}
	})
	return e
}

// with returns a copy of the environment with extra variables.
func (e *env) with(kv ...string) []string {
	return append(append([]string(nil), e.vars...), kv...)
}

// result is a finished non-interactive wr command.
type result struct {
	stdout, stderr string
	code           int
}

// wr runs a wr command with no terminal and waits for it.
func (e *env) wr(args ...string) result {
	e.t.Helper()
	return e.wrIn("", e.vars, args...)
}

// wrInDir runs a wr command in another working directory.
func (e *env) wrInDir(dir string, args ...string) result {
	e.t.Helper()
	return e.run(dir, "", e.vars, args...)
}

// wrIn runs a wr command with stdin from a string and the given environment.
func (e *env) wrIn(stdin string, vars []string, args ...string) result {
	e.t.Helper()
	return e.run(e.dir, stdin, vars, args...)
}

func (e *env) run(dir, stdin string, vars []string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrBin, args...)
	cmd.Env = vars
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	r, err := runCmd(cmd)
	if err != nil {
		e.t.Fatalf("wr %v: %v", args, err)
	}
	if ctx.Err() != nil {
		e.t.Fatalf("wr %v did not finish within %v; stdout %q stderr %q", args, timeout, r.stdout, r.stderr)
	}
	// Whatever a test provokes, the user reads wr's words, never the name
	// of one of its packages (see errorvoice_test.go).
	if name := leakedName(r.stderr); name != "" {
		e.t.Errorf("wr %q: stderr shows the package name %q: %q", shortArgs(args), name, r.stderr)
	}
	return r
}

// runCmd runs cmd with its output captured. A non-zero exit is the
// result's code; err is only for a command that could not run.
func runCmd(cmd *exec.Cmd) (result, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		return r, err
	}
	return r, nil
}

// mustWr runs a wr command that must succeed.
func (e *env) mustWr(args ...string) string {
	e.t.Helper()
	r := e.wr(args...)
	if r.code != 0 {
		e.t.Fatalf("wr %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// sessionInfo is one element of wr ls --json.
type sessionInfo struct {
	Name     string   `json:"name"`
	PID      int      `json:"pid"`
	Clients  int      `json:"clients"`
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Created  string   `json:"created"`
	Command  []string `json:"command"`
	Cwd      string   `json:"cwd"`
	Owner    *int     `json:"owner"`
	Attached []struct {
		ID       int  `json:"id"`
		Cols     int  `json:"cols"`
		Rows     int  `json:"rows"`
		ReadOnly bool `json:"read_only"`
	} `json:"attached"`
	Behind int64 `json:"behind"`
}

func (e *env) ls() []sessionInfo {
	e.t.Helper()
	out := e.mustWr("ls", "--json")
	var s []sessionInfo
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		e.t.Fatalf("wr ls --json printed %q: %v", out, err)
	}
	return s
}

func (e *env) session(name string) (sessionInfo, bool) {
	e.t.Helper()
	for _, s := range e.ls() {
		if s.Name == name {
			return s, true
		}
	}
	return sessionInfo{}, false
}

// waitClients waits until wr ls lists n clients attached to session name.
func (e *env) waitClients(name string, n int) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("%d clients on %s", n, name), func() bool { s, _ := e.session(name); return s.Clients == n })
}

// eventually polls cond until it holds or the deadline passes.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serverPID reads the running server's pid from wr server status.
func (e *env) serverPID() int {
	e.t.Helper()
	return e.status("pid")
}

// status reads one number from wr server status.
func (e *env) status(field string) int {
	e.t.Helper()
	out := e.mustWr("server", "status")
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, field+" "); ok {
			return atoi(e.t, v)
		}
	}
	e.t.Fatalf("no %s in wr server status: %q", field, out)
	return 0
}

// term is a wr client running under its own PTY, like a person's terminal.
type term struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File

	mu     sync.Mutex
	out    []byte
	mark   int // expect searches from here on
	grew   chan struct{}
	exited chan struct{}
	eof    chan struct{} // the reader has read everything the client wrote
	code   int
}

// attach starts `wr ARGS...` on a new PTY of the given size.
func (e *env) term(cols, rows int, args ...string) *term {
	e.t.Helper()
	return e.termEnv(cols, rows, e.vars, args...)
}

func (e *env) termEnv(cols, rows int, vars []string, args ...string) *term {
	e.t.Helper()
	cmd := exec.Command(wrBin, args...)
	cmd.Env = vars
	cmd.Dir = e.dir
	return e.startTerm(cmd, cols, rows)
}

// startTerm starts cmd on a new PTY of the given size, reads everything it
// writes, and kills it in t.Cleanup.
func (e *env) startTerm(cmd *exec.Cmd, cols, rows int) *term {
	e.t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		e.t.Fatal(err)
	}
	tm := &term{t: e.t, cmd: cmd, pty: f, grew: make(chan struct{}, 1), exited: make(chan struct{}), eof: make(chan struct{})}
	go tm.read()
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			tm.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				tm.code = 128 + int(ws.Signal())
			}
		}
		close(tm.exited)
	}()
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-tm.exited
		f.Close()
	})
	return tm
}

func (tm *term) read() {
	defer close(tm.eof)
	buf := make([]byte, 64<<10)
	for {
		n, err := tm.pty.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.out = append(tm.out, buf[:n]...)
			tm.mu.Unlock()
			select {
			case tm.grew <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// expect waits for s to appear after the previous match and moves past it.
func (tm *term) expect(s string) {
	tm.t.Helper()
	deadline := time.After(timeout)
	for {
		tm.mu.Lock()
		i := bytes.Index(tm.out[tm.mark:], []byte(s))
		if i >= 0 {
			tm.mark += i + len(s)
			tm.mu.Unlock()
			return
		}
		tail := tm.tail()
		tm.mu.Unlock()
		select {
		case <-tm.grew:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			tm.t.Fatalf("timed out waiting for %q; output ends with %q", s, tail)
		}
	}
}

// tail is the last part of the output, for failure messages. Call with mu.
func (tm *term) tail() string {
	b := tm.out
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return string(b)
}

// settled waits until some output has arrived and then none for 100 ms
// (or the deadline passes): the point at which to render a screen.
func (tm *term) settled() {
	deadline := time.Now().Add(timeout)
	last := -1
	for time.Now().Before(deadline) {
		tm.mu.Lock()
		n := len(tm.out)
		tm.mu.Unlock()
		if n > 0 && n == last {
			return
		}
		last = n
		select {
		case <-tm.grew:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// output returns everything the terminal has shown.
func (tm *term) output() []byte {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return append([]byte(nil), tm.out...)
}

// send types s.
func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(s)); err != nil {
		tm.t.Fatalf("send %q: %v", s, err)
	}
}

// run types a command line and waits for a marker it prints. The marker is
// computed by the shell, so the echo of the typed line cannot match it.
func (tm *term) run(cmdline string) {
	tm.t.Helper()
	tm.send(cmdline + "; echo DONE-$((6*7))\r")
	tm.expect("DONE-42")
}

// resize changes the terminal's size; the kernel sends wr SIGWINCH.
func (tm *term) resize(cols, rows int) {
	tm.t.Helper()
	if err := pty.Setsize(tm.pty, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		tm.t.Fatal(err)
	}
}

// wait waits for the client to exit and returns its exit code.
func (tm *term) wait() int {
	tm.t.Helper()
	select {
	case <-tm.exited:
		// The last bytes the client wrote may still sit in the PTY: read
		// to the end before anyone looks at the output.
		select {
		case <-tm.eof:
		case <-time.After(timeout):
		}
		return tm.code
	case <-time.After(timeout):
		tm.mu.Lock()
		tail := tm.tail()
		tm.mu.Unlock()
		tm.t.Fatalf("wr did not exit within %v; output ends with %q", timeout, tail)
		return -1
	}
}

// termios reads the terminal's current settings (the PTY master reports the
// line discipline it shares with the client's side).
func (tm *term) termios() *unix.Termios {
	tm.t.Helper()
	var tio *unix.Termios
	var ierr error
	raw, err := tm.pty.SyscallConn()
	if err != nil {
		tm.t.Fatal(err)
	}
	_ = raw.Control(func(fd uintptr) { tio, ierr = unix.IoctlGetTermios(int(fd), unix.TCGETS) })
	if ierr != nil {
		tm.t.Fatal(ierr)
	}
	return tio
}

func isRaw(tio *unix.Termios) bool { return tio.Lflag&(unix.ICANON|unix.ECHO) == 0 }

func atoi(t testing.TB, s string) int {
	t.Helper()
	var n int
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// background is a wr command with no terminal that runs while the test
// goes on (a recorder, a wr wait); the cleanup kills it if it still runs.
type background struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan error // its Wait's result, once
	err    error
	ended  bool
}

// startBackground starts wr args in the test's directory, its stdout to
// stdout (nil: none).
func (e *env) startBackground(stdout io.Writer, args ...string) *background {
	e.t.Helper()
	b := &background{cmd: exec.Command(wrBin, args...), done: make(chan error, 1)}
	b.cmd.Env, b.cmd.Dir, b.cmd.Stdout, b.cmd.Stderr = e.vars, e.dir, stdout, &b.stderr
	if err := b.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	e.t.Cleanup(func() {
		if !b.ended {
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	})
	return b
}

// wait waits for the command to end and returns Wait's error; past the
// deadline the test fails.
func (b *background) wait(t testing.TB) error {
	t.Helper()
	if !b.ended {
		select {
		case b.err = <-b.done:
			b.ended = true
		case <-time.After(timeout):
			t.Fatalf("wr %v did not end within %v; stderr %q", b.cmd.Args[1:], timeout, b.stderr.String())
		}
	}
	return b.err
}
