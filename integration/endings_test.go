//go:build linux

package integration

import (
	"strings"
	"testing"
)

// An attached client says how its session ended, on a line of its own,
// so the outer prompt never lands on the session's last line.
func TestEndingsAreSaid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   func(e *env, tm *term)
		want  string
		code  int
		after string // what the terminal shows just before the line
	}{
		{"killed", func(e *env, tm *term) { e.mustWr("kill", "x") }, "\r\n[x was killed]\r\n", 129, ""},
		{"server stopped", func(e *env, tm *term) { e.mustWr("server", "stop") }, "\r\n[server stopped]\r\n", 129, ""},
		{"exited mid-line", func(e *env, tm *term) { tm.send("printf no-newline; exit 3\r") }, "no-newline\r\n[x exited]\r\n", 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tm := e.term(80, 24, "attach", "x")
			tm.expect(prompt)
			tc.end(e, tm)
			tm.expect(tc.want)
			if code := tm.wait(); code != tc.code {
				t.Errorf("wr attach exited %d, want %d", code, tc.code)
			}
		})
	}
}

// A command that exits with its cursor at the start of an empty line gets
// no closing line: the outer prompt takes that line, as without wr.
func TestCleanExitSaysNothing(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "x")
	tm.expect(prompt)
	tm.send("echo bye-$((1+1)); exit 0\r")
	tm.expect("bye-2\r\n")
	if code := tm.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out := string(tm.output()); strings.Contains(out, "[x exited") {
		t.Errorf("a clean exit printed a closing line: %q", out[max(len(out)-200, 0):])
	}
}
