package ptyproc

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// WriteAll writes all of b to the PTY, looping over short writes and waiting
// in the poller while the terminal's input queue is full, so a large paste
// arrives whole and in order even when the application reads slowly. It
// returns early only when the PTY is closed (ErrClosed) or broken.
func (p *Process) WriteAll(b []byte) error {
	_, err := p.writeAll(b)
	return err
}

// WriteAllBy is WriteAll that gives up at deadline (the zero time: never),
// returning how many bytes of b the PTY took; a deadline that passed is an
// error that satisfies errors.Is(err, os.ErrDeadlineExceeded). The deadline
// is the master's, so the caller must be the only writer meanwhile, as
// every WriteAll caller must anyway for the bytes to stay in order.
func (p *Process) WriteAllBy(b []byte, deadline time.Time) (int, error) {
	if deadline.IsZero() {
		// Every deadline set below is cleared before the return, so there
		// is none to clear: a keystroke costs no two trips to the poller.
		return p.writeAll(b)
	}
	if err := p.master.SetWriteDeadline(deadline); err != nil {
		switch {
		case p.closed.Load() || errors.Is(err, os.ErrClosed):
			return 0, ErrClosed
		case errors.Is(err, os.ErrNoDeadline):
			// A master the poller cannot wait on (where a system's
			// kqueue refuses PTYs): no deadline rather than no write.
			return p.writeAll(b)
		}
		return 0, err
	}
	defer p.master.SetWriteDeadline(time.Time{})
	return p.writeAll(b)
}

func (p *Process) writeAll(b []byte) (int, error) {
	if p.raw == nil {
		return 0, ErrClosed // the empty Process of an adopted exited session
	}
	p.wbuf, p.wdone, p.werrno = b, 0, 0
	err := p.raw.Write(p.writeFn)
	done, errno := p.wdone, p.werrno
	p.wbuf = nil // hold no buffer past the call
	switch {
	case err != nil && (p.closed.Load() || errors.Is(err, os.ErrClosed)):
		return done, ErrClosed
	case err != nil:
		return done, err
	case errno != 0:
		return done, &os.PathError{Op: "write", Path: p.master.Name(), Err: errno}
	}
	return done, nil
}

// writeReady is writeAll's call, made by the poller when the master may
// have room.
func (p *Process) writeReady(fd uintptr) bool {
	for len(p.wbuf) > 0 {
		n, e := rawWrite(fd, p.wbuf)
		switch e {
		case 0:
			p.wbuf = p.wbuf[n:]
			p.wdone += n
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait for room
		}
		p.werrno = e
		return true
	}
	return true
}
