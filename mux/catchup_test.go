package mux

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wr/screen"
)

// Issue 14, item 2: lockCaughtUp draws a backlog without the session's mu.
// While it draws 8 MiB of coloured text (nothing of it can be skipped),
// the session's mu is free between its batches: a caller of the session's
// mu (wr ls, fan-out, input) sees the backlog part drawn. A chunk pushed
// meanwhile (a reader that was fanning out as the catch-up began) is drawn
// too, and lockCaughtUp returns with nothing pending, the screen at the
// fan-out position.
func TestLockCaughtUpLeavesTheSessionLockFree(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 2000, &mu, func([]byte) {})
	var line strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&line, "\x1b[3%dmword%d\x1b[0m ", i%8, i)
	}
	line.WriteString("\r\n")
	chunk := []byte(strings.Repeat(line.String(), 4096/line.Len()))
	m.mu.Lock() // no feeder draws it meanwhile
	mu.Lock()
	for n := 0; n < 8<<20; n += len(chunk) {
		m.pending = append(m.pending, modelOp{chunk: chunk})
		m.lag.Add(int64(len(chunk)))
	}
	mu.Unlock()
	total := m.lag.Load()
	m.mu.Unlock()

	began := make(chan int64, 1)
	done := make(chan struct{})
	go func() {
		m.lockCaughtUp(func(n int64) { began <- n })
		close(done)
	}()
	if n := <-began; n != total {
		t.Errorf("the catch-up began with %d bytes behind, want %d", n, total)
	}
	// Take the session's mu as a reader would, until a part of the backlog
	// is seen drawn and a part not.
	pushed := false
	for seen := false; !seen; {
		select {
		case <-done:
			t.Fatal("lockCaughtUp finished before the session's mu was seen free with a part of the backlog drawn")
		default:
		}
		if !mu.TryLock() { // lockCaughtUp may return holding it
			time.Sleep(100 * time.Microsecond)
			continue
		}
		lag := m.lag.Load()
		if lag < total && lag > 0 {
			seen = true
			if !pushed {
				// What a reader fanning out as the catch-up began pushes.
				m.pushLocked(modelOp{chunk: []byte("\x1b[0mthe-last-line\r\n")})
				pushed = true
			}
		}
		mu.Unlock()
		m.feedInline() // as fanOut does
		time.Sleep(100 * time.Microsecond)
	}
	<-done
	// lockCaughtUp returned holding both locks.
	if len(m.pending) != 0 || m.lag.Load() != 0 {
		t.Fatalf("lockCaughtUp returned with %d ops (%d bytes) pending", len(m.pending), m.lag.Load())
	}
	if m.hold.Load() != nil {
		t.Fatal("the reader is still held after the catch-up")
	}
	got := string(m.scr.AppendText(nil, screen.TextOptions{}))
	m.unlock()
	if !strings.Contains(got, "the-last-line") {
		t.Fatalf("the chunk pushed during the catch-up was not drawn:\n%s", got)
	}
}

// A session being killed stops drawing at once: a batch in the middle of
// being drawn ends at the next yield, what is left of it is dropped (and
// counted off the lag), and the model is usable afterwards.
func TestKilledModelStopsDrawing(t *testing.T) {
	var mu sync.Mutex
	var killed atomic.Bool
	m := newModel(80, 24, 2000, &mu, func([]byte) {})
	m.dropped = killed.Load
	chunk := []byte(strings.Repeat("\x1b[31mred\x1b[0m \r\n", 4096/16))
	mu.Lock()
	var ops []modelOp
	for n := 0; n < 1<<20; n += len(chunk) {
		ops = append(ops, modelOp{chunk: chunk})
		m.lag.Add(int64(len(chunk)))
	}
	ops = append(ops, modelOp{chunk: []byte("the-end\r\n")})
	m.lag.Add(9)
	mu.Unlock()
	killed.Store(true)
	m.mu.Lock()
	m.applyLocked(ops)
	got := string(m.scr.AppendText(nil, screen.TextOptions{}))
	m.mu.Unlock()
	if strings.Contains(got, "the-end") {
		t.Fatal("the killed session's batch was drawn to its end")
	}
	if lag := m.lag.Load(); lag != 0 {
		t.Fatalf("lag %d after the dropped batch, want 0", lag)
	}
	if len(m.batch) != 0 {
		t.Fatalf("applyLocked kept %d chunks", len(m.batch))
	}
}
