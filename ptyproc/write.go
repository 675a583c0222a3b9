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
	var errno syscall.Errno
	done := 0
	err := p.raw.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, e := rawWrite(fd, b)
			switch e {
			case 0:
				b = b[n:]
				done += n
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait for room
			}
			errno = e
			return true
		}
		return true
	})
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
