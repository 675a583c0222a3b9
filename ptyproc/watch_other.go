//go:build !linux || wr_nowatch

package ptyproc

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Watcher is, outside Linux, a goroutine per registration: the same
// contract as the Linux one, without its saving. (Build with the tag
// wr_nowatch to run this one on Linux, as its tests do.)
type Watcher struct{}

// NewWatcher returns a watcher; Close stops it.
func NewWatcher() (*Watcher, error) { return &Watcher{}, nil }

// Close stops the watcher.
func (w *Watcher) Close() error { return nil }

// readWatch is a second descriptor for the master, made on the first
// NotifyReadable, that only waits. Waiting on the master itself would go
// wrong twice: its read deadline (the one that made the reader park) has
// passed, so the wait would end at once and the session would wake every
// few milliseconds forever; and the wait would hold the master's read
// lock, so a reader draining it after the child's exit would block behind
// it for as long as the PTY stayed quiet.
type readWatch struct {
	copy *os.File
	raw  syscall.RawConn
}

// NotifyReadable has f called once, on a goroutine of its own, when the
// master has output to read or has hung up (or was closed); call it again
// for the next time. It fails once the master is closed.
func (p *Process) NotifyReadable(w *Watcher, f func()) error {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if p.closed.Load() {
		return ErrClosed
	}
	if p.watch.copy == nil {
		if err := p.watch.open(p.raw); err != nil {
			return err
		}
	}
	raw := p.watch.raw
	go func() {
		_ = raw.Read(func(fd uintptr) bool { return readable(fd) })
		f()
	}()
	return nil
}

func (rw *readWatch) open(master syscall.RawConn) error {
	var fd int
	var err error
	cerr := master.Control(func(m uintptr) { fd, err = unix.FcntlInt(m, unix.F_DUPFD_CLOEXEC, 0) })
	if cerr != nil {
		return ErrClosed
	}
	if err != nil {
		return fmt.Errorf("watch a PTY: %w", err)
	}
	// The copy shares the master's file description, which is already
	// non-blocking, so NewFile hands it to the runtime's poller.
	f := os.NewFile(uintptr(fd), "ptmx-watch")
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return fmt.Errorf("watch a PTY: %w", err)
	}
	rw.copy, rw.raw = f, raw
	return nil
}

// unwatch closes the copy, which ends a wait on it (and calls its f), before
// the master is closed.
func (p *Process) unwatch() {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if p.watch.copy != nil {
		_ = p.watch.copy.Close()
		p.watch = readWatch{}
	}
}

// NotifyExit calls f at once, on a goroutine of its own: here WaitExited
// and Wait do the waiting.
func (p *Process) NotifyExit(w *Watcher, f func()) { go f() }
