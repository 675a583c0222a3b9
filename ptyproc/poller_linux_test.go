package ptyproc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// A session waits for its child for as long as it lives. Waiting in the
// poller costs no thread; waiting in waitid(2) would cost one per session.
func TestWaitExitedHoldsNoThread(t *testing.T) {
	const n = 20
	var procs []*Process
	for i := 0; i < n; i++ {
		p, err := Start(exec.Command("cat"), 80, 24)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		t.Cleanup(func() { _ = p.child.Kill(); _, _ = p.Wait(); _ = p.Close() })
	}
	before := threads(t)
	var wg sync.WaitGroup
	returned := make(chan int, n)
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.WaitExited()
			returned <- i
		}()
	}
	// Give blocking waits every chance to show up as threads.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if got := threads(t); got-before >= n/2 {
			t.Fatalf("%d waits for running children added %d threads", n, got-before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case i := <-returned:
		t.Fatalf("WaitExited returned for child %d, which is still running", i)
	default:
	}
	// ctrl-D ends each cat; every wait returns, and the child is still
	// there to reap, with its exit code.
	for _, p := range procs {
		if err := p.WriteAll([]byte{4}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("WaitExited did not return after the children exited")
	}
	for _, p := range procs {
		if code, err := p.Wait(); err != nil || code != 0 {
			t.Fatalf("Wait after WaitExited: code %d, %v", code, err)
		}
	}
}

// ReadReady asks for a buffer only once there is output (or a hang-up) to
// read: a quiet session holds none.
func TestReadReadyAllocatesOnDemand(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "read x; echo got-$x; read y"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.child.Kill(); _, _ = p.Wait(); _ = p.Close() })
	var gets atomic.Int32
	chunks := make(chan string)
	go func() {
		defer close(chunks)
		for {
			var buf []byte
			n, err := p.ReadReady(nil, func() []byte { gets.Add(1); buf = make([]byte, 4096); return buf })
			if err != nil {
				return
			}
			chunks <- string(buf[:n])
		}
	}()
	select {
	case c := <-chunks:
		t.Fatalf("ReadReady returned %q before the program printed anything", c)
	case <-time.After(200 * time.Millisecond):
	}
	if n := gets.Load(); n != 0 {
		t.Fatalf("get was called %d times with nothing to read", n)
	}
	if err := p.WriteAll([]byte("x1\n")); err != nil {
		t.Fatal(err)
	}
	var out string
	deadline := time.After(30 * time.Second)
	for !strings.Contains(out, "got-x1") {
		select {
		case c, ok := <-chunks:
			if !ok {
				t.Fatalf("ReadReady failed; output so far %q", out)
			}
			out += c
		case <-deadline:
			t.Fatalf("no got-x1 in %q", out)
		}
	}
	if n := gets.Load(); n == 0 {
		t.Fatal("output was read without asking for a buffer")
	}
	// Once the program has gone, ReadReady reports the hang-up.
	if err := p.WriteAll([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case _, ok := <-chunks:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("ReadReady did not report the hang-up")
		}
	}
}
