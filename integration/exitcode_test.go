//go:build linux

package integration

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
)

// Item 3: wr attach exits with the session's exit code (design section 8).
func TestExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		keys string
		want int
	}{
		{"exit 7 typed in the shell", []string{"attach", "s"}, "exit 7\r", 7},
		{"exit 0", []string{"attach", "s"}, "exit\r", 0},
		{"killed by SIGTERM", []string{"attach", "s", "--", "sh", "-c", "kill -TERM $$"}, "", 143},
		{"killed by SIGKILL", []string{"attach", "s", "--", "sh", "-c", "kill -KILL $$"}, "", 137},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tm := e.term(80, 24, tc.args...)
			if tc.keys != "" {
				tm.expect(prompt)
				tm.send(tc.keys)
			}
			if code := tm.wait(); code != tc.want {
				t.Fatalf("wr attach exited %d, want %d", code, tc.want)
			}
		})
	}
}

// Item 3: wr kill from another terminal makes the attached client exit 129.
func TestKilledSessionExits129(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "work")
	tm.expect(prompt)
	e.mustWr("kill", "work")
	if code := tm.wait(); code != 129 {
		t.Fatalf("exit %d, want 129", code)
	}
}

// Item 3: the detach key exits 0, says so, and leaves the same shell
// running for the next attach.
func TestDetachAndReattach(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "work")
	tm.expect(prompt)
	tm.send("echo PID=$$ X\r")
	tm.expect("PID=")
	out := tm.output()
	pid := string(out[bytes.LastIndex(out, []byte("PID=")):])
	pid = strings.Fields(pid)[0]

	tm.send("\x1c")
	if code := tm.wait(); code != 0 {
		t.Fatalf("detach exited %d, want 0", code)
	}
	tm.expect("[detached from work]")
	if s, ok := e.session("work"); !ok || s.Clients != 0 {
		t.Fatalf("after detach: session %+v present=%v, want it running with 0 clients", s, ok)
	}

	again := e.term(80, 24, "attach", "work")
	again.send("\r")
	again.expect(prompt)
	again.send("echo PID=$$ X\r")
	again.expect(pid + " X")
	again.send("exit\r")
	again.wait()
}

// Item 3: the kitty keyboard form of the detach key detaches too, and
// --detach-key none / WR_DETACH_KEY=none turn detaching off.
func TestDetachKeyForms(t *testing.T) {
	t.Run("kitty CSI 92;5u", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tm := e.term(80, 24, "attach", "k")
		tm.expect(prompt)
		tm.send("\x1b[92;5u")
		if code := tm.wait(); code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		tm.expect("[detached from k]")
	})
	t.Run("custom key ctrl-a", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		tm := e.term(80, 24, "attach", "--detach-key", "ctrl-a", "k")
		tm.expect(prompt)
		tm.send("\x1c") // ctrl-\ no longer detaches: it reaches the shell
		tm.run("true")
		tm.send("\x01")
		if code := tm.wait(); code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
	})
	for _, how := range []string{"flag", "env"} {
		t.Run("none by "+how, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			args := []string{"attach", "k"}
			vars := e.vars
			if how == "flag" {
				args = []string{"attach", "--detach-key", "none", "k"}
			} else {
				vars = e.with("WR_DETACH_KEY=none")
			}
			tm := e.termEnv(80, 24, vars, args...)
			tm.expect(prompt)
			// ctrl-\ is SIGQUIT for the foreground job now, not a detach.
			tm.send(`sh -c 'echo QUITME-$((1+1)); exec sleep 100'` + "\r")
			tm.expect("QUITME-2")
			tm.send("\x1c")
			tm.run("true")
			tm.send("exit 9\r")
			if code := tm.wait(); code != 9 {
				t.Fatalf("exit %d, want 9 (the client must not have detached)", code)
			}
		})
	}
}

// Item 3: Exited comes after the last output: 1 MiB printed then exit 3
// shows every byte, then exits 3.
func TestExitedAfterLastOutput(t *testing.T) {
	e := newEnv(t)
	const n = 1 << 20
	tm := e.term(80, 24, "attach", "big", "--", "sh", "-c",
		`head -c 1048576 /dev/zero | tr '\0' x; printf 'END-%s\n' $((1+2)); exit 3`)
	if code := tm.wait(); code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	tm.expect("END-3")
	if got := bytes.Count(tm.output(), []byte("x")); got != n {
		t.Fatalf("saw %d of %d bytes before the exit", got, n)
	}
}

// A session ends when its command exits even though a background process
// that ignores SIGHUP still holds the terminal open: the server drains what
// is left with a deadline instead of waiting for a hang-up that never comes.
func TestSessionEndsWhileBackgroundHoldsTerminal(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "bg", "--", "sh", "-c", `trap "" HUP; sleep 1021 & echo BG-$((1+1)); exit 5`)
	tm.expect("BG-2")
	var pids map[string]int
	e.eventually("the background sleep to start", func() bool {
		pids = e.sleepers("1021")
		return len(pids) == 1
	})
	t.Cleanup(func() { _ = syscall.Kill(pids["1021"], syscall.SIGKILL) })
	if code := tm.wait(); code != 5 {
		t.Fatalf("exit %d, want 5", code)
	}
}
