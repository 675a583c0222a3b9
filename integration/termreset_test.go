//go:build linux

package integration

import (
	"strings"
	"syscall"
	"testing"
)

// Leaving a session leaves the terminal as it was found: every mode the
// session turned on is turned off again, on every way out.
func TestTerminalModesResetOnLeaving(t *testing.T) {
	const on = `printf '\033[?1049h\033[?1000h\033[?1006h\033[?2004h\033[?1004h\033[>1u\033[?25l\033[1;31m'; echo MODES-ON`
	want := []string{"\x1b[?1049l", "\x1b[?1000l", "\x1b[?1006l", "\x1b[?2004l", "\x1b[?1004l", "\x1b[<1u", "\x1b[0m", "\x1b[?25h"}
	cases := []struct {
		name  string
		leave func(e *env, tm *term)
	}{
		{"detach", func(e *env, tm *term) { tm.send("\x1c") }},
		{"session killed", func(e *env, tm *term) { e.mustWr("kill", "m") }},
		{"server lost", func(e *env, tm *term) { _ = syscall.Kill(e.serverPID(), syscall.SIGKILL) }},
		{"client terminated", func(e *env, tm *term) { _ = tm.cmd.Process.Signal(syscall.SIGTERM) }},
		{"program exits", func(e *env, tm *term) { tm.send("q\r") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tm := e.term(80, 24, "attach", "m", "--", "sh", "-c", on+"; read x")
			tm.expect("MODES-ON")
			tc.leave(e, tm)
			tm.wait()
			out := string(tm.output())
			tail := out[strings.LastIndex(out, "MODES-ON"):]
			for _, w := range want {
				if !strings.Contains(tail, w) {
					t.Errorf("after leaving, the terminal never got %q; output after the modes: %q", w, tail)
				}
			}
		})
	}
}

// A session that turned nothing on gets nothing added to its output: a
// command run through wr prints exactly what it would print directly.
func TestNoResetWhenNothingChanged(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "plain", "--", "printf", "just text\\n")
	tm.wait()
	if out := string(tm.output()); out != "just text\r\n" {
		t.Fatalf("output %q, want exactly the program's", out)
	}
}
