package mux

import (
	"fmt"
	"runtime"
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
