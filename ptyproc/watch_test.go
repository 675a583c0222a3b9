//go:build linux

package ptyproc

// The tests of what every Watcher does, on Linux (they read Buffered,
// which only Linux answers); watch_linux_test.go has what only the epoll
// one does. `go test -tags wr_nowatch ./ptyproc` runs these on the
// portable one too.

import (
	"errors"
	"os"
	"os/exec"
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

// A reader parks after its read deadline has passed, and that deadline is
// still set when it arms: a quiet PTY must not fire for it, and a read of
// the master, as a drain after the child's exit does, must not wait behind
// the arming.
func TestNotifyReadableAfterReadDeadline(t *testing.T) {
	w := newWatcher(t)
	p := startCat(t)
	buf := make([]byte, 64)
	if err := p.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read of a quiet PTY: %v, want a deadline", err)
	}
	f, ch := fired()
	if err := p.NotifyReadable(w, f); err != nil {
		t.Fatal(err)
	}
	never(t, ch, "quiet PTY past its read deadline")
	read := make(chan error, 1)
	go func() {
		_ = p.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := p.Read(buf)
		read <- err
	}()
	select {
	case err := <-read:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read while armed: %v, want a deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read of the master waited behind the arming")
	}
	if err := p.WriteAll([]byte("c\n")); err != nil {
		t.Fatal(err)
	}
	within(t, ch, "output after arming")
}
