//go:build linux

package ptyproc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// WaitExited blocks until the child has exited, without reaping it: its pid
// stays reserved (a zombie) until Wait, so a caller can snapshot its
// process tree first without racing a reused pid.
func (p *Process) WaitExited() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid(), &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// Buffered is how many bytes of output are waiting to be read, or 0 when
// that cannot be told.
func (p *Process) Buffered() int {
	n := 0
	_ = p.raw.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return n
}
