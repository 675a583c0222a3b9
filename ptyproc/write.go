package ptyproc

import (
	"errors"
	"os"
	"syscall"
)

// WriteAll writes all of b to the PTY, looping over short writes and waiting
// in the poller while the terminal's input queue is full, so a large paste
// arrives whole and in order even when the application reads slowly. It
// returns early only when the PTY is closed (ErrClosed) or broken.
func (p *Process) WriteAll(b []byte) error {
	var errno syscall.Errno
	err := p.raw.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, e := rawWrite(fd, b)
			switch e {
			case 0:
				b = b[n:]
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
		return ErrClosed
	case err != nil:
		return err
	case errno != 0:
		return &os.PathError{Op: "write", Path: p.master.Name(), Err: errno}
	}
	return nil
}
