//go:build linux

package integration

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// A relay that reads slowly (a pipe into a busy consumer) still gets the
// program's bytes, all of them and nothing else: it has its own larger
// budget, and never a screen redraw.
func TestSlowRelayGetsEveryByte(t *testing.T) {
	e := newEnv(t)
	made := filepath.Join(e.dir, "made")
	cmd := exec.Command(wrBin, "attach", "r", "--", "sh", "-c",
		`head -c 20000000 /dev/zero | tr '\0' a; echo > `+made)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Read nothing until the program has written everything: all of it is
	// queued for this client meanwhile.
	e.eventually("the program to finish writing", func() bool { _, err := os.Stat(made); return err == nil })
	b, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("relay: %v", err)
	}
	if n := bytes.Count(b, []byte("a")); n != 20000000 || bytes.Contains(b, []byte("\x1b")) {
		t.Fatalf("the relay got %d of 20000000 bytes (escape codes: %v)", n, bytes.Contains(b, []byte("\x1b")))
	}
}
