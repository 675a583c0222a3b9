//go:build linux

package integration

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal while the attach request is on its way ends wr at once with the
// status a signalled process reports, even when the server never answers
// (wedged, or slow to start): closing the terminal must not leave wr
// waiting. Signals are caught from before the request goes out, so this
// once hung until the handshake's 5 s deadline and then exited 1.
func TestSignalWhileOpening(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
	}{
		{"SIGTERM", syscall.SIGTERM},
		{"SIGHUP", syscall.SIGHUP},
		{"SIGINT", syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if err := os.MkdirAll(filepath.Dir(e.socket), 0o700); err != nil {
				t.Fatal(err)
			}
			// A server that accepts and reads but never answers.
			ln, err := net.Listen("unix", e.socket)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { c.Close() })
				accepted <- c
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
			tm := e.term(80, 24, "attach", "--no-create", "s")
			select {
			case <-accepted:
			case <-time.After(timeout):
				t.Fatal("wr attach never connected")
			}
			// The client is now waiting for an answer. Once it catches the
			// signal (its handlers are set up meanwhile), the signal is
			// wr's to act on, not the default action's.
			e.eventually("wr to catch "+tc.name, func() bool { return catches(tm.cmd.Process.Pid, tc.sig) })
			start := time.Now()
			_ = tm.cmd.Process.Signal(tc.sig)
			select {
			case <-tm.exited:
			case <-time.After(time.Second):
				t.Fatalf("wr attach still running %v after %v", time.Since(start), tc.sig)
			}
			if got, want := tm.wait(), 128+int(tc.sig); got != want {
				t.Fatalf("exit code %d after %v, want %d", got, tc.sig, want)
			}
		})
	}
}

// catches reports whether process pid has a handler for sig (SigCgt in
// /proc/PID/status).
func catches(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

// A server that accepts but never reads must not hold a client forever,
// even when the client's first request is larger than the socket's buffers
// (an attach carries the whole environment): the first write has the
// handshake's deadline. It once blocked in that write with no deadline.
func TestServerThatNeverReads(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(e.socket), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // accepted, never read
		}
	}()
	big := strings.Repeat("x", 100<<10)
	vars := e.vars
	for i := 0; i < 6; i++ { // 600 KiB of environment: past the socket buffers, under the frame cap
		vars = append(vars, fmt.Sprintf("WR_TEST_BIG%d=%s", i, big))
	}
	tm := e.termEnv(80, 24, vars, "attach", "--no-create", "s")
	start := time.Now()
	select {
	case <-tm.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("wr attach still waiting on a server that never reads after 30 s")
	}
	if code := tm.wait(); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	tm.expect("handshake")
	t.Logf("gave up after %v", time.Since(start))
}
