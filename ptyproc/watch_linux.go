//go:build linux && !wr_nowatch

package ptyproc

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"wr/internal/rawio"
)

// Watcher waits for many PTYs to have output and many children to exit, on
// one goroutine: an idle session then costs no goroutine, and no stack, of
// its own. It is an epoll instance of its own, which is itself waited on in
// the runtime's poller, so it needs no thread either.
//
// Every registration is one-shot: a callback runs at most once per arming.
// Callbacks run on the watcher's goroutine and must not block.
type Watcher struct {
	ep  *os.File
	raw syscall.RawConn

	mu   sync.Mutex
	next int32
	fns  map[int32]func() // what each armed registration calls
}

// NewWatcher starts a watcher; Close stops it.
func NewWatcher() (*Watcher, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	// Non-blocking, so that NewFile hands it to the runtime's poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("epoll: %w", err)
	}
	ep := os.NewFile(uintptr(fd), "epoll")
	raw, err := ep.SyscallConn()
	if err != nil {
		ep.Close()
		return nil, fmt.Errorf("epoll: %w", err)
	}
	w := &Watcher{ep: ep, raw: raw, fns: map[int32]func(){}}
	go w.run()
	return w, nil
}

// Close stops the watcher; armed callbacks are never called.
func (w *Watcher) Close() error { return w.ep.Close() }

func (w *Watcher) run() {
	var evs [64]unix.EpollEvent
	for {
		var n int
		err := w.raw.Read(func(fd uintptr) bool {
			for {
				var e syscall.Errno
				n, e = epollWait(fd, evs[:])
				if e == syscall.EINTR {
					continue
				}
				return n > 0 || e != 0
			}
		})
		if err != nil {
			return // closed
		}
		for _, ev := range evs[:max(n, 0)] {
			w.mu.Lock()
			f := w.fns[ev.Fd]
			delete(w.fns, ev.Fd)
			w.mu.Unlock()
			if f != nil {
				f()
			}
		}
	}
}

// epollWait takes the ready events without waiting. It is a raw system call
// for the reason raw_linux.go gives.
func epollWait(ep uintptr, evs []unix.EpollEvent) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, ep, uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
	return int(n), e
}

// token is a new registration's name in the epoll set.
func (w *Watcher) token() int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next++
	if w.next <= 0 {
		w.next = 1
	}
	return w.next
}

// arm has f called once fd is readable (or has hung up). The first arming
// of a token adds fd to the set, later ones re-arm it; the kernel checks
// readiness at once either way, so readiness that came before the arming
// is not missed. Called with the fd kept open by the caller.
func (w *Watcher) arm(tok int32, fd int, first bool, f func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fns[tok] = f
	op := unix.EPOLL_CTL_MOD
	if first {
		op = unix.EPOLL_CTL_ADD
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: tok}
	var err error
	cerr := w.raw.Control(func(ep uintptr) {
		if e := rawio.EpollCtl(ep, op, fd, &ev); e != 0 {
			err = e
		}
	})
	if cerr != nil {
		err = cerr
	}
	if err != nil {
		delete(w.fns, tok)
		return fmt.Errorf("watch a PTY: %w", err)
	}
	return nil
}

// forget removes fd from the set. It must be called before fd is closed:
// the kernel drops a closed descriptor from the set only once every copy of
// it is closed, and until then a registration would outlive its file.
func (w *Watcher) forget(tok int32, fd int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.fns, tok)
	_ = w.raw.Control(func(ep uintptr) { _ = unix.EpollCtl(int(ep), unix.EPOLL_CTL_DEL, fd, nil) })
}

// readWatch is the master's registration: its name in watcher's set, or
// readTok 0 before NotifyReadable.
type readWatch struct {
	watcher *Watcher
	readTok int32
}

// NotifyReadable has f called once, on w's goroutine, when the master has
// output to read or has hung up; call it again for the next time. f must
// not block. It fails once the master is closed.
func (p *Process) NotifyReadable(w *Watcher, f func()) error {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if p.closed.Load() {
		return ErrClosed
	}
	first := p.watch.readTok == 0
	if first {
		p.watch.watcher, p.watch.readTok = w, w.token()
	}
	var err error
	cerr := p.raw.Control(func(fd uintptr) { err = w.arm(p.watch.readTok, int(fd), first, f) })
	if cerr != nil {
		return ErrClosed
	}
	if err != nil && first {
		p.watch.readTok = 0
	}
	return err
}

// unwatch removes the master from its watcher, before it is closed.
func (p *Process) unwatch() {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if p.watch.readTok != 0 {
		_ = p.raw.Control(func(fd uintptr) { p.watch.watcher.forget(p.watch.readTok, int(fd)) })
		p.watch.readTok = 0
	}
}

// NotifyExit has f called once the child has exited, without reaping it
// (Wait does that), so its pid stays reserved until then. f runs on w's
// goroutine and must not block. Where pidfds are missing (Linux before
// 5.3) a goroutine of its own waits instead.
func (p *Process) NotifyExit(w *Watcher, f func()) {
	fd, err := unix.PidfdOpen(p.Pid(), 0)
	if err != nil {
		go func() { p.WaitExited(); f() }()
		return
	}
	tok := w.token()
	err = w.arm(tok, fd, true, func() {
		w.forget(tok, fd)
		unix.Close(fd)
		f()
	})
	if err != nil {
		unix.Close(fd)
		go func() { p.WaitExited(); f() }()
	}
}
