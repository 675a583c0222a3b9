//go:build linux

package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 14, item 4: a crowd of clients attaches and leaves; the server's
// heap goes back to about what it was within a few seconds, not minutes
// (the runtime alone hands freed pages back slowly). The clients are raw
// connections from the test, speaking the protocol.
func TestCrowdMemoryGoesBack(t *testing.T) {
	const crowd = 1000
	e := newEnv(t)
	e.mustWr("new", "-d", "crowd", "--", "sh", "-c", "echo crowd-ready; exec sleep 1000")
	e.eventually("the session to start", func() bool { _, ok := e.session("crowd"); return ok })
	base := e.status("heap-kib")

	clients := make([]*rawClient, 0, crowd)
	for i := 0; i < crowd; i++ {
		clients = append(clients, rawAttach(t, e.socket, "crowd", 80, 24))
	}
	for i, c := range clients {
		select {
		case <-c.attached:
		case <-time.After(timeout):
			t.Fatalf("client %d was not accepted", i)
		}
	}
	e.waitClients("crowd", crowd)
	peak := e.status("heap-kib")

	for _, c := range clients {
		c.conn.Close()
	}
	e.waitClients("crowd", 0)
	const limit = 4 << 10 // KiB
	deadline := time.Now().Add(5 * time.Second)
	for {
		heap := e.status("heap-kib")
		if heap-base <= limit {
			t.Logf("server heap %d KiB before %d clients, %d with them, %d after they left", base, crowd, peak, heap)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after %d clients left the server's heap is %d KiB, was %d before them (%d with them)", crowd, heap, base, peak)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Issue 14, item 4: a server out of descriptors fails every accept; it
// says so at most about once a second and does not spin, and accepts again
// once descriptors are free. The server's limit is lowered (prlimit) to a
// few more descriptors than it has open, and more connections than that
// are made.
func TestAcceptFailuresLoggedOncePerSecond(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "fd", "--", "sleep", "1000")
	pid := e.serverPID()
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		t.Fatal(err)
	}
	low := unix.Rlimit{Cur: uint64(len(fds) + 8), Max: old.Max}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &low, nil); err != nil {
		t.Fatal(err)
	}
	// Registered after the connections' cleanups, so it runs before them
	// (and before the server is stopped).
	defer func() { _ = unix.Prlimit(pid, unix.RLIMIT_NOFILE, &old, nil) }()
	var conns []*rawClient
	for i := 0; i < 30; i++ {
		conns = append(conns, rawAttach(t, e.socket, "fd", 80, 24))
	}
	logPath := e.socket + ".log"
	count := func() int {
		b, _ := os.ReadFile(logPath)
		return bytes.Count(b, []byte("accept: "))
	}
	e.eventually("an accept to fail", func() bool { return count() > 0 })
	// The window the log is counted over: at least 3 s of failures.
	first := time.Now()
	for time.Since(first) < 3*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	n, window := count(), time.Since(first)
	// One line as the window opened, then at most one a second (and one
	// more for rounding).
	if most := 2 + int(window/time.Second); n > most {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("%d accept failures logged over %v, want at most %d; the log:\n%s", n, window, most, tailOf(b, 2000))
	}
	t.Logf("%d accept failures logged over %v", n, window)

	// Free the descriptors: the server accepts again.
	_ = unix.Prlimit(pid, unix.RLIMIT_NOFILE, &old, nil)
	for _, c := range conns {
		c.conn.Close()
	}
	if ss := e.ls(); len(ss) != 1 {
		t.Fatalf("wr ls listed %d sessions after the descriptors came back, want 1", len(ss))
	}
}

func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
