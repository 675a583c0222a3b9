package ptyproc

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// WriteAll writes all of b to the PTY, looping over short writes and waiting
// out EAGAIN, so a large paste arrives whole and in order even when the
// application reads slowly. It returns early only when the PTY is closed
// (ErrClosed) or broken.
func (p *Process) WriteAll(b []byte) error {
	for len(b) > 0 {
		n, err := p.master.Write(b)
		b = b[n:]
		if err == nil {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
			// The poller normally absorbs EAGAIN; if the descriptor ever
			// reports it anyway, back off briefly instead of spinning.
			time.Sleep(time.Millisecond)
			continue
		}
		if errors.Is(err, os.ErrClosed) {
			return ErrClosed
		}
		return err
	}
	return nil
}
