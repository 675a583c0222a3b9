//go:build linux && !wr_nowatch

package ptyproc

import (
	"os/exec"
	"runtime"
	"testing"
)

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
