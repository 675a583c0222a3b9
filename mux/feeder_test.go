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
	"sync/atomic"
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
		m := newModel(80, 24, 100, &mu, func([]byte) {})
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
			m.pushLocked(modelOp{chunk: chunk})
			mu.Unlock()
			m.feedInline() // as fanOut does
			if i%13 == 0 {
				runtime.Gosched()
			}
		}
		last := fmt.Sprintf("r%d-line-199", round)
		deadline := time.Now().Add(time.Minute) // "never", on a loaded machine
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
	m := newModel(80, 24, 100, &mu, func([]byte) {})
	mu.Lock()
	m.pushLocked(modelOp{chunk: []byte("hello\r\n")})
	mu.Unlock()
	m.feedInline() // as fanOut does

	deadline := time.Now().Add(time.Minute) // "never", on a loaded machine
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

// fakeTimer is a feed timer that fires only when the test says so.
type fakeTimer struct {
	f     func()
	armed bool
}

func (ft *fakeTimer) Reset(time.Duration) bool { was := ft.armed; ft.armed = true; return was }
func (ft *fakeTimer) Stop() bool               { was := ft.armed; ft.armed = false; return was }

// fire runs the timer's function if it is armed, as its expiry would.
func (ft *fakeTimer) fire() {
	if ft.armed {
		ft.armed = false
		ft.f()
	}
}

// waitFed waits until the model has applied everything and its feeder has
// gone.
func waitFed(t testing.TB, m *model) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // "never", on a loaded machine
	for m.lag.Load() != 0 || m.feeding.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes were never applied (feeding=%v)", m.lag.Load(), m.feeding.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// A burst is applied in large batches, not one small batch per timer tick
// (the screen skips most of a large batch of text that scrolls away); and
// the end of a burst is applied without anyone asking for the screen. The
// timer is fired by hand after every 160 KB, more than feedBurst, as it
// would during a fast cat; the feeder is let finish before each tick, so
// a tick that kicked it would show as a pass of its own.
func TestFeederBatchesABurst(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 100, &mu, func([]byte) {})
	ft := &fakeTimer{}
	m.clock.afterFunc = func(_ time.Duration, f func()) feedTimer { ft.f = f; ft.armed = true; return ft }
	line := strings.Repeat("y", 78) + "\r\n"
	chunk := []byte(strings.Repeat(line, 50)) // 4000 bytes, one PTY read
	const total = 4 << 20
	const perTick = 40 * 4000
	for sent := 0; sent < total; sent += len(chunk) {
		mu.Lock()
		m.pushLocked(modelOp{chunk: chunk})
		mu.Unlock()
		m.feedInline() // as fanOut does
		if (sent+len(chunk))%perTick == 0 {
			for m.feeding.Load() {
				runtime.Gosched()
			}
			ft.fire()
			for m.feeding.Load() {
				runtime.Gosched()
			}
		}
	}
	// The burst is over: the timer keeps firing, as it would every
	// feedDelay, until a tick finds less than feedBurst new and kicks.
	for ft.armed {
		for m.feeding.Load() {
			runtime.Gosched()
		}
		ft.fire()
	}
	waitFed(t, m)
	// One pass per tick would be 26; one per feedBatch is 4 or 5, a few
	// more when the feeder takes what is pending while pushes go on.
	if n, want := m.passes.Load(), int64(12); n > want {
		t.Fatalf("4 MiB with a tick every %d KB took %d feeder passes, want at most %d (batches of %d KiB)", perTick/1000, n, want, feedBatch>>10)
	}
	mu.Lock()
	m.stopLocked()
	mu.Unlock()
}

// colourChunk is 4 KiB of coloured words: output the screen cannot skip.
func colourChunk() []byte {
	var line strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&line, "\x1b[3%dmword%d\x1b[0m ", i%8, i)
	}
	line.WriteString("\r\n")
	return []byte(strings.Repeat(line.String(), 4096/line.Len()))
}

// The server runs on one P (two in a burst). A feeder drawing a large
// batch that cannot be skipped (coloured text) must park itself every
// feedSlice of drawing, so that a goroutine waiting on I/O (another
// session's reader) runs within a fraction of a millisecond rather than
// when the runtime next polls the network, 10 ms later; and it keeps doing
// so while a restore waits for it (a batch of hostile output can take a
// second). The clock here says a feedSlice passes between two looks at it,
// so the feeder must park at every yield point: once per yieldEvery bytes
// drawn.
// BenchmarkFeederLetsOthersRun measures the wait itself.
func TestFeederYieldsWhileDrawing(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 2000, &mu, func([]byte) {})
	var fake time.Time
	var parks atomic.Int64
	restored := make(chan struct{})
	m.clock.now = func() time.Time { fake = fake.Add(feedSlice); return fake }
	m.clock.sleep = func(time.Duration) {
		if parks.Add(1) == 1 {
			// A restore asks for the screen while the feeder draws.
			go func() {
				m.lockCaughtUp(nil)
				m.unlock()
				close(restored)
			}()
			for i := 0; i < 100; i++ {
				runtime.Gosched()
			}
		}
	}
	chunk := colourChunk()
	const total = feedBatch // one batch: the feeder draws all of it
	mu.Lock()
	for n := 0; n+len(chunk) <= total; n += len(chunk) {
		m.pushLocked(modelOp{chunk: chunk})
	}
	mu.Unlock()
	m.feedInline() // as fanOut does
	waitFed(t, m)
	<-restored
	if got, want := parks.Load(), int64(total/yieldEvery)*9/10; got < want {
		t.Fatalf("drawing %d KiB of coloured text parked %d times, want at least %d (about once per %d bytes)", total>>10, got, want, yieldEvery)
	}
	mu.Lock()
	m.stopLocked()
	mu.Unlock()
}

// BenchmarkFeederLetsOthersRun measures what TestFeederYieldsWhileDrawing
// makes possible: how long a ready reader waits for the one P while a
// feeder draws 8 MiB of coloured text. The byte comes from another
// process, stamped with the time it was written, so its arrival does not
// itself wait for the P. Without the yields each wait is 10 ms or more.
func BenchmarkFeederLetsOthersRun(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	chunk := colourChunk()
	var waits []time.Duration
	for i := 0; i < b.N; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		stamped := make(chan time.Duration, 1)
		go func() {
			line, _ := bufio.NewReader(r).ReadString('\n')
			ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
			if err != nil {
				stamped <- -1
				return
			}
			stamped <- time.Since(time.Unix(0, ns))
		}()
		cmd := exec.Command("sh", "-c", "sleep 0.03; date +%s%N")
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		w.Close()
		var mu sync.Mutex
		m := newModel(80, 24, 2000, &mu, func([]byte) {})
		mu.Lock()
		for n := 0; n < 8<<20; n += len(chunk) {
			m.pushLocked(modelOp{chunk: chunk})
		}
		mu.Unlock()
		m.feedInline() // as fanOut does
		d := <-stamped
		if d < 0 {
			b.Fatal("no time stamp from the writer")
		}
		waits = append(waits, d)
		_ = cmd.Wait()
		r.Close()
		waitFed(b, m)
	}
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)/2].Microseconds()), "median-wait-µs")
}

// A little output after quiet (a keystroke's echo) is drawn by the fan-out
// that sent it, with no timer armed and no feeder started; more than
// inlineFeedMax, or output behind a backlog, is still the feeder's.
func TestEchoIsDrawnByTheFanOut(t *testing.T) {
	var mu sync.Mutex
	m := newModel(80, 24, 100, &mu, func([]byte) {})
	push := func(b []byte) {
		mu.Lock()
		m.pushLocked(modelOp{chunk: b})
		mu.Unlock()
		m.feedInline()
	}
	push([]byte("typed-x"))
	mu.Lock()
	armed := m.timerSet
	mu.Unlock()
	if armed || m.feeding.Load() || m.lag.Load() != 0 || m.passes.Load() != 0 {
		t.Fatalf("an echo armed the timer (%v) or started a feeder (%v, %d passes); %d bytes left", armed, m.feeding.Load(), m.passes.Load(), m.lag.Load())
	}
	m.mu.Lock()
	got := string(m.scr.AppendText(nil, screen.TextOptions{}))
	m.mu.Unlock()
	if !strings.Contains(got, "typed-x") {
		t.Fatalf("the echo is not on the screen:\n%s", got)
	}

	push([]byte(strings.Repeat("y", inlineFeedMax+1)))
	mu.Lock()
	armed = m.timerSet
	mu.Unlock()
	if !armed && m.lag.Load() != 0 && !m.feeding.Load() {
		t.Fatalf("%d bytes of output are left with no timer and no feeder", m.lag.Load())
	}
}
