//go:build linux

package integration

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// Item 8: with stdin not a terminal, wr attach is a relay.
func TestRelayFromPipe(t *testing.T) {
	e := newEnv(t)
	r := e.wrIn("echo hi-$((40+2)); exit 3\n", e.vars, "attach", "x")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (stderr %q)", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "hi-42") {
		t.Fatalf("stdout %q lacks hi-42", r.stdout)
	}
}

// Item 8: a relay reports 0x0 and never sets the session's size; the
// session starts at 80x24.
func TestRelayReportsZeroSize(t *testing.T) {
	e := newEnv(t)
	cmd := exec.Command(wrBin, "attach", "z")
	cmd.Env = e.vars
	cmd.Dir = e.dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	e.eventually("the relay to attach", func() bool {
		s, ok := e.session("z")
		return ok && s.Clients == 1
	})
	s, _ := e.session("z")
	if a := s.Attached[0]; a.Cols != 0 || a.Rows != 0 {
		t.Fatalf("relay client reports %dx%d, want 0x0", a.Cols, a.Rows)
	}
	if s.Cols != 80 || s.Rows != 24 || s.Owner != nil {
		t.Fatalf("session %dx%d owner %v, want 80x24 and no owner", s.Cols, s.Rows, s.Owner)
	}
	if _, err := io.WriteString(stdin, "exit 4\n"); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("relay exit: %v, want 4", err)
	}
}
