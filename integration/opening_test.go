//go:build linux

package integration

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
			accepted := silentServer(t, e, true) // reads, never answers
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
			// No time limit but the suite's: the exit code tells the fix
			// from the bug, which waited out the handshake and exited 1.
			start := time.Now()
			_ = tm.cmd.Process.Signal(tc.sig)
			select {
			case <-tm.exited:
			case <-time.After(timeout):
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
	silentServer(t, e, false) // accepts, never reads
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
	tm.expect("the server did not answer within 5s")
	t.Logf("gave up after %v", time.Since(start))
}

// silentServer listens on e's socket in place of a wr server: it accepts
// connections and never answers, reading (and dropping) what arrives only
// if read is set. Each accepted connection is also sent on the returned
// channel. Everything is closed when the test ends.
func silentServer(t *testing.T, e *env, read bool) <-chan net.Conn {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.socket), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case accepted <- c:
			default:
			}
			if read {
				go func() { _, _ = io.Copy(io.Discard, c) }()
			}
		}
	}()
	return accepted
}
