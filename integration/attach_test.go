//go:build linux

package integration

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Item 1: wr attach starts the server, creates the session running $SHELL
// in the current directory with the caller's environment plus WR_SESSION
// and WR_SOCKET, puts the terminal in raw mode and relays, including size.
func TestAttachCreatesAndRelays(t *testing.T) {
	e := newEnv(t)
	tm := e.termEnv(80, 24, e.with("WR_TEST_MARK=carried"), "attach", "work")
	tm.expect(prompt)

	tm.send(`echo "S=$WR_SESSION K=$WR_SOCKET D=$PWD M=$WR_TEST_MARK T=$TERM"` + "\r")
	tm.expect(fmt.Sprintf("S=work K=%s D=%s M=carried T=xterm-256color", e.socket, e.dir))
	if !isRaw(tm.termios()) {
		t.Fatalf("the local terminal is not in raw mode while attached")
	}

	tm.send("stty size\r")
	tm.expect("24 80")
	tm.resize(100, 30)
	// SIGWINCH is asynchronous: poll the session's size rather than sleep.
	e.eventually("the session to follow the terminal's new size", func() bool {
		s, _ := e.session("work")
		return s.Cols == 100 && s.Rows == 30
	})
	tm.send("stty size\r")
	tm.expect("30 100")

	// Control characters reach the session's terminal, not wr: ctrl-C
	// interrupts the foreground program and the client keeps running.
	tm.send(`sh -c 'echo SLEEPING-$((1+1)); exec sleep 100'` + "\r")
	tm.expect("SLEEPING-2")
	tm.send("\x03")
	tm.run("true")

	// A full-screen program: the alternate screen and cursor addressing pass
	// through byte for byte.
	tm.send(`printf '\033[?1049h\033[5;10HFULL%sSCREEN\033[?1049l' -` + "\r")
	tm.expect("\x1b[?1049h\x1b[5;10HFULL-SCREEN\x1b[?1049l")

	s, ok := e.session("work")
	if !ok || len(s.Command) != 1 || s.Command[0] != "/bin/sh" || s.Cwd != e.dir {
		t.Fatalf("session = %+v, want command [/bin/sh] in %s", s, e.dir)
	}
	tm.send("exit\r")
	if code := tm.wait(); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
}

// Item 1: $SHELL unset falls back to /bin/sh.
func TestAttachWithoutShellUsesBinSh(t *testing.T) {
	e := newEnv(t)
	var vars []string
	for _, v := range e.vars {
		if v != "SHELL=/bin/sh" {
			vars = append(vars, v)
		}
	}
	tm := e.termEnv(80, 24, vars, "attach", "noshell")
	tm.expect(prompt)
	s, _ := e.session("noshell")
	if len(s.Command) != 1 || s.Command[0] != "/bin/sh" {
		t.Fatalf("command = %q, want [/bin/sh]", s.Command)
	}
	tm.send("exit\r")
	tm.wait()
}

// Item 2: the local terminal is restored on every way out.
func TestTerminalRestoredOnEveryExit(t *testing.T) {
	cases := []struct {
		name  string
		leave func(e *env, tm *term)
		code  int
	}{
		{"shell exit", func(e *env, tm *term) { tm.send("exit 4\r") }, 4},
		{"detach key", func(e *env, tm *term) { tm.send("\x1c") }, 0},
		{"wr kill", func(e *env, tm *term) { e.mustWr("kill", "s") }, 129},
		{"server killed", func(e *env, tm *term) {
			_ = syscall.Kill(e.serverPID(), syscall.SIGKILL)
		}, 1},
		{"SIGTERM to the client", func(e *env, tm *term) { _ = tm.cmd.Process.Signal(syscall.SIGTERM) }, 143},
		{"SIGHUP to the client", func(e *env, tm *term) { _ = tm.cmd.Process.Signal(syscall.SIGHUP) }, 129},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tm := e.term(80, 24, "attach", "s")
			before := *tm.termios()
			tm.expect(prompt)
			if !isRaw(tm.termios()) {
				t.Fatal("not in raw mode while attached")
			}
			tc.leave(e, tm)
			if code := tm.wait(); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			after := *tm.termios()
			if before != after {
				t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// Item 1: the session starts in the client's working directory, not the
// server's.
func TestAttachUsesCallersDirectory(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "first") // the server starts in e.dir
	sub := filepath.Join(e.dir, "sub dir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := e.wrInDir(sub, "new", "-d", "indir"); r.code != 0 {
		t.Fatalf("wr new: exit %d, %q", r.code, r.stderr)
	}
	if s, _ := e.session("indir"); s.Cwd != sub {
		t.Fatalf("cwd %q, want %q", s.Cwd, sub)
	}
}

// The attach request is written by hand, not by encoding/json (wire's
// attachjson.go): a directory and a variable with every character JSON
// escapes must reach the session as they were.
func TestAttachCarriesAwkwardValues(t *testing.T) {
	e := newEnv(t)
	const awkward = "a<b>&c\"d\\e\tf\u2028g é中"
	dir := filepath.Join(e.dir, awkward)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrBin, "attach", "odd")
	cmd.Env = e.with("WR_TEST_MARK=" + awkward + "\x01")
	cmd.Dir = dir
	tm := e.startTerm(cmd, 80, 24)
	tm.expect(prompt)
	// As hex, so the terminal's own handling of a tab or a control
	// character cannot make a wrong value look right.
	tm.send(`printf '%s|%s|%s' "$PWD" "$WR_TEST_MARK" "$WR_SESSION" | od -An -tx1 | tr -d ' \n'; echo ' HEX-END'` + "\r")
	tm.expect(hex.EncodeToString([]byte(dir+"|"+awkward+"\x01|odd")) + " HEX-END")
	if s, ok := e.session("odd"); !ok || s.Cwd != dir {
		t.Fatalf("session = %+v, %v; want one in %q", s, ok, dir)
	}
}

// A client that loses its server says so on a line of its own, not after
// the prompt or the partial line the session left the cursor on.
func TestLostServerIsSaidOnALineOfItsOwn(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "s")
	tm.expect(prompt)
	tm.send("printf partial-line\r")
	tm.expect("partial-line" + prompt)
	_ = syscall.Kill(e.serverPID(), syscall.SIGKILL)
	if code := tm.wait(); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	tm.expect("\nwr: lost the server")
}

// The detach key pressed before the terminal is raw (a server slow to
// answer: here stopped) reaches wr as SIGQUIT from the terminal. It
// detaches once the attach is through, exit 0, as a moment later; it used
// to quit with 131. Meanwhile wr still ends at once on SIGTERM; and an
// exited session, which the server collects as it shows it, is shown.
func TestDetachKeyBeforeRawMode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command []string // of the session, which has exited when it ends
		then    func(tm *term)
		code    int
		says    string
	}{
		{"detaches", nil, nil, 0, "[detached from s]"},
		{"a SIGTERM meanwhile still ends wr", nil, func(tm *term) { _ = tm.cmd.Process.Signal(syscall.SIGTERM) }, 143, ""},
		{"an exited session is shown", []string{"sh", "-c", "exit 7"}, nil, 7, "[s exited with 7]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			command := tc.command
			if command == nil {
				command = []string{"sh"}
			}
			e.mustWr(append([]string{"new", "-d", "s", "--"}, command...)...)
			if tc.command != nil {
				e.eventually("s to exit", func() bool { return strings.Contains(e.mustWr("ls"), "exited 7") })
			}
			server := e.serverPID()
			if err := syscall.Kill(server, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(server, syscall.SIGCONT) })
			tm := e.term(80, 24, "attach", "s")
			// Every thread asleep, and none has run since the last look:
			// wr waits on the server, and has set up its signals (a
			// SIGQUIT before that is Go's own: exit 2). Asleep at one
			// look alone was not enough under load: the threads are read
			// one after another, and signal.Notify's handshake between
			// two of them could pass for sleep.
			pid, last := tm.cmd.Process.Pid, ""
			e.eventually("wr to wait on the stopped server", func() bool {
				ran := cpuTimes(pid)
				still := ran != "" && ran == last
				last = ran
				return still && hasSocketTo(pid) && allAsleep(pid)
			})
			tm.send("\x1c") // the terminal is cooked: SIGQUIT
			e.eventually("the SIGQUIT to be taken", func() bool { return !signalPending(tm.cmd.Process.Pid, syscall.SIGQUIT) })
			if tc.then != nil {
				tc.then(tm)
			} else if err := syscall.Kill(server, syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			if code := tm.wait(); code != tc.code {
				t.Fatalf("exit code %d, want %d; the terminal shows %q", code, tc.code, tm.tail())
			}
			if tc.says != "" {
				tm.expect(tc.says)
			}
		})
	}
}

// hasSocketTo reports whether process pid holds a Unix socket.
func hasSocketTo(pid int) bool {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, d := range ents {
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, d.Name())); strings.HasPrefix(l, "socket:") {
			return true
		}
	}
	return false
}

// cpuTimes is the time each thread of process pid has run, in ns (from
// /proc/PID/task/TID/schedstat), as one string: equal at two looks when
// no thread ran between them. "" if it cannot be read.
func cpuTimes(pid int) string {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return ""
	}
	var b strings.Builder
	for _, task := range tasks {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		f := strings.Fields(string(st))
		if err != nil || len(f) == 0 {
			return ""
		}
		b.WriteString(task.Name() + ":" + f[0] + " ")
	}
	return b.String()
}

// allAsleep reports whether every thread of process pid is asleep: none
// running or waiting to run, so no goroutine of it has work to do.
func allAsleep(pid int) bool { return allInState(pid, 'S') }

// allInState reports whether every thread of process pid is in state (as
// /proc shows it: 'S' asleep, 'T' stopped).
func allInState(pid int, state byte) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// The state follows the command, which is in parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != state {
			return false
		}
	}
	return true
}

// signalPending reports whether sig is pending for process pid (for the
// process or for any of its threads' masks taken together).
func signalPending(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != "ShdPnd" && k != "SigPnd" {
			continue
		}
		var mask uint64
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%x", &mask); err == nil && mask&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}
