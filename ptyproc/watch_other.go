//go:build !linux

package ptyproc

// Watcher is, outside Linux, a goroutine per registration: the same
// contract as the Linux one, without its saving.
type Watcher struct{}

// NewWatcher returns a watcher; Close stops it.
func NewWatcher() (*Watcher, error) { return &Watcher{}, nil }

// Close stops the watcher.
func (w *Watcher) Close() error { return nil }

// NotifyReadable has f called once when the master has output to read or
// has hung up (or was closed); call it again for the next time.
func (p *Process) NotifyReadable(w *Watcher, f func()) error {
	if p.closed.Load() {
		return ErrClosed
	}
	go func() {
		_ = p.raw.Read(func(fd uintptr) bool { return readable(fd) })
		f()
	}()
	return nil
}

func (p *Process) unwatch() {}

// NotifyExit calls f at once: here Wait both waits and reaps.
func (p *Process) NotifyExit(w *Watcher, f func()) { go f() }
