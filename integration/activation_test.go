//go:build linux

package integration

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// systemdListener binds a listening socket at path the way a systemd
// socket unit does (SocketMode=0600 unless mode says otherwise), in a
// 0700 directory, and closes it in t.Cleanup (registered after newEnv's,
// so it runs first: the cleanup's wr server stop must not dial a socket
// nothing will ever answer).
func systemdListener(t *testing.T, path string, mode os.FileMode) *os.File {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); ln.Close(); os.Remove(path) })
	return f
}

// activatedServer starts wr server run as systemd does under socket
// activation: the listener as descriptor 3, LISTEN_FDS=1 and LISTEN_PID
// naming the server's own pid (sh sets it, then execs wr in its place).
func activatedServer(t *testing.T, e *env, ln *os.File) (*exec.Cmd, *bytes.Buffer, <-chan error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" server run`, wrBin)
	cmd.ExtraFiles = []*os.File{ln}
	// A session the server started may hold its stderr; do not wait for it.
	cmd.WaitDelay = time.Second
	cmd.Env = e.vars
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() { done <- cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	return cmd, &stderr, done
}

// A server systemd started serves on the socket it was given: sessions
// work, the socket outlives the server (systemd starts the next one on
// it), the next one serves too, and no session sees the LISTEN_ variables.
func TestSocketActivation(t *testing.T) {
	e := newEnv(t)
	ln := systemdListener(t, e.socket, 0o600)

	first, log, done := activatedServer(t, e, ln)
	e.mustWr("new", "-d", "x", "--", "sh", "-c", `echo "fds[$LISTEN_FDS] pid[$LISTEN_PID]"; read line`)
	if pid := e.serverPID(); pid != first.Process.Pid {
		t.Fatalf("wr server status says pid %d; the activated server is %d (log: %s)", pid, first.Process.Pid, log)
	}
	e.eventually("the session's first line", func() bool {
		return strings.Contains(e.wr("capture", "x").stdout, "fds[] pid[]")
	})
	e.mustWr("kill", "x")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the activated server exited with %v; log:\n%s", err, log)
		}
	case <-time.After(timeout):
		t.Fatalf("the activated server did not exit with its last session; log:\n%s", log)
	}
	if fi, err := os.Lstat(e.socket); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("the server removed systemd's socket: %v", err)
	}

	second, log2, _ := activatedServer(t, e, ln)
	e.mustWr("new", "-d", "y", "--", "sh", "-c", "read line")
	if pid := e.serverPID(); pid != second.Process.Pid {
		t.Fatalf("the second activation is not the server: status pid %d, want %d (log: %s)", pid, second.Process.Pid, log2)
	}
}

// A socket systemd passed that is not the one wr would serve on is
// refused with the reason, and the server does not start.
func TestSocketActivationRefusesWrongSocket(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(e *env) string
		mode os.FileMode
		want string
	}{
		{"another path", func(e *env) string { return filepath.Join(e.dir, "other", "o.sock") }, 0o600, "not on "},
		{"others may connect", func(e *env) string { return e.socket }, 0o666, "may be used by group or others"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ln := systemdListener(t, tc.path(e), tc.mode)
			_, log, done := activatedServer(t, e, ln)
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Fatalf("server exited with %v, want exit 1; log:\n%s", err, log)
				}
			case <-ctx.Done():
				t.Fatalf("the server served on a socket it must refuse; log:\n%s", log)
			}
			if !strings.Contains(log.String(), tc.want) || !strings.Contains(log.String(), "systemd") {
				t.Errorf("stderr %q does not say why (want %q)", log, tc.want)
			}
		})
	}
}

// The server log stays bounded: past 1 MiB it moves to SOCKET.log.1
// (one old copy) and a new one begins.
func TestServerLogRotates(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(e.socket), 0o700); err != nil {
		t.Fatal(err)
	}
	old := bytes.Repeat([]byte("an old line of the server log\n"), (1<<20)/30+1)
	if err := os.WriteFile(e.socket+".log", old, 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustWr("new", "-d", "x", "--", "sh", "-c", "read line")
	e.mustWr("kill", "x")
	prev, err := os.ReadFile(e.socket + ".log.1")
	if err != nil || !bytes.Equal(prev, old) {
		t.Fatalf("SOCKET.log.1 is %d bytes (%v), want the old log's %d", len(prev), err, len(old))
	}
	cur, err := os.ReadFile(e.socket + ".log")
	if err != nil || len(cur) >= 1<<20 || !bytes.Contains(cur, []byte("listening on")) {
		t.Fatalf("the new log is %d bytes (%v), want a small one that starts with the server's first line: %.200q", len(cur), err, cur)
	}
}

// Starting a server leaves no lock file behind: the socket directory holds
// the socket, its server lock and its log, and a start file an earlier wr
// left is removed.
func TestNoStartFileLeft(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(e.socket), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.socket+".start", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustWr("new", "-d", "x", "--", "sh", "-c", "read line")
	entries, err := os.ReadDir(filepath.Dir(e.socket))
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), ".start") {
			t.Errorf("%s is left in the socket directory", de.Name())
		}
	}
}
