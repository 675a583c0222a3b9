package mux

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"wr/screen"
)

// The model's feeder runs only while something is pending. Whatever the
// interleaving of pushes, timer kicks and batch kicks, every op is applied
// without anyone asking for the screen: a lost kick would leave a query
// unanswered until the program printed something else.
func TestFeederAppliesEverything(t *testing.T) {
	for round := 0; round < 20; round++ {
		var mu sync.Mutex
		m := newModel(80, 24, 100, &mu, func() bool { return false }, func([]byte) {})
		var want strings.Builder
		for i := 0; i < 200; i++ {
			line := fmt.Sprintf("r%d-line-%d\r\n", round, i)
			want.WriteString(line)
			chunk := []byte(line)
			if i%97 == 0 {
				// a chunk big enough to kick the feeder at once
				chunk = append(chunk, strings.Repeat("x", feedBatch)+"\r\n"...)
			}
			mu.Lock()
			m.push(modelOp{chunk: chunk})
			mu.Unlock()
			if i%13 == 0 {
				runtime.Gosched()
			}
		}
		last := fmt.Sprintf("r%d-line-199", round)
		deadline := time.Now().Add(10 * time.Second)
		for m.lag.Load() != 0 || m.feeding.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d bytes still pending, feeding=%v", round, m.lag.Load(), m.feeding.Load())
			}
			time.Sleep(time.Millisecond)
		}
		m.mu.Lock()
		got := string(m.scr.AppendText(nil, screen.TextOptions{}))
		m.mu.Unlock()
		if !strings.Contains(got, last) {
			t.Fatalf("round %d: the screen lacks %q:\n%s", round, last, got)
		}
	}
}

// With nothing pending, no feeder goroutine is left behind.
func TestFeederLeavesWhenIdle(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 100, &mu, func() bool { return false }, func([]byte) {})
	mu.Lock()
	m.push(modelOp{chunk: []byte("hello\r\n")})
	mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for m.lag.Load() != 0 || m.feeding.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the feeder did not finish")
		}
		time.Sleep(time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if strings.Contains(stacks, "(*model).feed") {
		t.Fatalf("a feeder goroutine is still there:\n%s", stacks)
	}
}

// A burst is applied in large batches, not one small batch per timer tick
// (the screen skips most of a large batch of text that scrolls away); and
// the end of a burst is applied without anyone asking for the screen.
func TestFeederBatchesABurst(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 100, &mu, func() bool { return false }, func([]byte) {})
	line := strings.Repeat("y", 78) + "\r\n"
	chunk := []byte(strings.Repeat(line, 50)) // 4000 bytes, one PTY read
	const total = 4 << 20
	start := time.Now()
	for sent := 0; sent < total; sent += len(chunk) {
		mu.Lock()
		m.push(modelOp{chunk: chunk})
		mu.Unlock()
		// 10 MiB/s: a burst, and slow enough that a feeder paced by the
		// timer alone would run on every tick, even under -race.
		for time.Since(start) < time.Duration(sent)*time.Second/(10<<20) {
			runtime.Gosched()
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.lag.Load() != 0 || m.feeding.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of the burst were never applied", m.lag.Load())
		}
		time.Sleep(time.Millisecond)
	}
	// One pass per feedDelay would be about 200; one per feedBatch is 4 or 5.
	if n := m.passes.Load(); n > 12 {
		t.Fatalf("4 MiB at 10 MiB/s took %d feeder passes, want batches near %d KiB", n, feedBatch>>10)
	}
}

// The server runs on one P. A feeder drawing a large batch that cannot be
// skipped (coloured text) must let a goroutine waiting on I/O (another
// session's reader) run within a few milliseconds, not hold the P until
// the runtime preempts it and polls the network 10 ms later. The byte comes
// from another process, stamped with the time it was written, so its
// arrival does not itself wait for the P.
func TestFeederLetsOthersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var line strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&line, "\x1b[3%dmword%d\x1b[0m ", i%8, i)
	}
	line.WriteString("\r\n")
	chunk := []byte(strings.Repeat(line.String(), 4096/line.Len()))
	var waits []time.Duration
	for round := 0; round < 3; round++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stamped := make(chan time.Duration, 1)
		go func() {
			b, _ := bufio.NewReader(r).ReadString('\n')
			ns, err := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
			if err != nil {
				stamped <- -1
				return
			}
			stamped <- time.Since(time.Unix(0, ns))
		}()
		// Written while the feeder draws: drawing 8 MiB takes 50 ms or
		// more, under -race ten times that.
		cmd := exec.Command("sh", "-c", "sleep 0.03; date +%s%N")
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		var mu sync.Mutex
		m := newModel(80, 24, 2000, &mu, func() bool { return false }, func([]byte) {})
		mu.Lock()
		for n := 0; n < 8<<20; n += len(chunk) {
			m.push(modelOp{chunk: chunk})
		}
		mu.Unlock()
		select {
		case d := <-stamped:
			if d < 0 {
				t.Fatal("no time stamp from the writer")
			}
			waits = append(waits, d)
		case <-time.After(30 * time.Second):
			t.Fatal("the reader never ran")
		}
		_ = cmd.Wait()
		r.Close()
		for m.lag.Load() != 0 || m.feeding.Load() {
			time.Sleep(time.Millisecond)
		}
	}
	// The median: a GC cycle (or, under -race, the detector) can make one
	// wait long. Without the yields each wait is 10 ms or more.
	slices.Sort(waits)
	t.Logf("waits for a ready reader while the feeder drew: %v", waits)
	if med := waits[len(waits)/2]; med > 3*time.Millisecond {
		t.Fatalf("a ready reader waited %v (median) while the feeder drew", med)
	}
}
