//go:build linux

package ptyproc

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func newWatcher(t *testing.T) *Watcher {
	t.Helper()
	w, err := NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func startCat(t *testing.T) *Process {
	t.Helper()
	p, err := Start(exec.Command("cat"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.child.Kill(); _, _ = p.Wait(); _ = p.Close() })
	return p
}

// fired returns a callback and the channel it signals, once per call.
func fired() (func(), chan struct{}) {
	ch := make(chan struct{}, 8)
	return func() { ch <- struct{}{} }, ch
}

func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no callback", what)
	}
}

func never(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s: callback", what)
	case <-time.After(100 * time.Millisecond):
	}
}

// drain reads what the PTY holds now.
func drain(t *testing.T, p *Process) {
	t.Helper()
	buf := make([]byte, 4096)
	for p.Buffered() > 0 {
		if _, err := p.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
}

// A registration fires once per arming: output that came before the arming
// fires it at once, and output after a re-arming fires it again.
func TestNotifyReadableFiresOncePerArming(t *testing.T) {
	w := newWatcher(t)
	p := startCat(t)
	f, ch := fired()
	if err := p.NotifyReadable(w, f); err != nil {
		t.Fatal(err)
	}
	never(t, ch, "quiet PTY")
	if err := p.WriteAll([]byte("a\n")); err != nil { // cat echoes it back
		t.Fatal(err)
	}
	within(t, ch, "output after arming")
	never(t, ch, "output not read, not re-armed")
	// Still unread: re-arming sees it at once.
	if err := p.NotifyReadable(w, f); err != nil {
		t.Fatal(err)
	}
	within(t, ch, "output before re-arming")
	deadline := time.Now().Add(5 * time.Second)
	for p.Buffered() < 4 && time.Now().Before(deadline) { // "a\r\n" echoed, then cat's "a\r\n"
		time.Sleep(time.Millisecond)
	}
	drain(t, p)
	if err := p.NotifyReadable(w, f); err != nil {
		t.Fatal(err)
	}
	never(t, ch, "drained PTY")
	if err := p.WriteAll([]byte("b\n")); err != nil {
		t.Fatal(err)
	}
	within(t, ch, "new output")
}

// A closed PTY leaves the set: nothing fires for it, and it cannot be armed.
func TestNotifyReadableAfterClose(t *testing.T) {
	w := newWatcher(t)
	p := startCat(t)
	f, ch := fired()
	if err := p.NotifyReadable(w, f); err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
	never(t, ch, "closed PTY")
	if err := p.NotifyReadable(w, f); err != ErrClosed {
		t.Fatalf("arming a closed PTY: %v, want ErrClosed", err)
	}
}

// NotifyExit fires once the child has exited and leaves it to Wait, which
// still gets its code.
func TestNotifyExit(t *testing.T) {
	w := newWatcher(t)
	p, err := Start(exec.Command("sh", "-c", "read x; exit 7"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	f, ch := fired()
	p.NotifyExit(w, f)
	never(t, ch, "running child")
	if err := p.WriteAll([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	within(t, ch, "exited child")
	if code, err := p.Wait(); err != nil || code != 7 {
		t.Fatalf("Wait: %d, %v; want 7", code, err)
	}
	never(t, ch, "a second time")
}

// Watching many PTYs and children takes no goroutine per registration.
func TestWatcherHoldsNoGoroutinePerProcess(t *testing.T) {
	w := newWatcher(t)
	const n = 20
	before := runtime.NumGoroutine()
	for range n {
		p := startCat(t)
		if err := p.NotifyReadable(w, func() {}); err != nil {
			t.Fatal(err)
		}
		p.NotifyExit(w, func() {})
	}
	if got := runtime.NumGoroutine() - before; got > 2 {
		t.Fatalf("watching %d processes added %d goroutines", n, got)
	}
}
