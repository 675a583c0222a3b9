//go:build linux

package ptyproc

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"wr/internal/rawio"
)

// WaitExited blocks until the child has exited, without reaping it: its pid
// stays reserved (a zombie) until Wait, so a caller can snapshot its
// process tree first without racing a reused pid.
//
// It waits on a pidfd in the runtime's poller: a goroutine blocked in
// waitid(2) would hold an OS thread (and its stack) for every session for
// as long as the session lives. Where pidfds are missing (Linux before
// 5.10) it falls back to exactly that.
func (p *Process) WaitExited() {
	if p.waitExitedPolled() {
		return
	}
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid(), &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// waitExitedPolled waits for the exit through a non-blocking pidfd, which
// polls readable once the process has exited. It reports false if it could
// not wait that way.
func (p *Process) waitExitedPolled() bool {
	fd, err := unix.PidfdOpen(p.Pid(), unix.PIDFD_NONBLOCK)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return false
	}
	err = raw.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		// With WNOHANG and no exit yet, waitid succeeds with si_signo 0.
		return err != nil || info.Signo != 0
	})
	return err == nil
}

// Buffered is how many bytes of output are waiting to be read, or 0 when
// that cannot be told.
func (p *Process) Buffered() int {
	n := 0
	_ = p.raw.Control(func(fd uintptr) {
		n = rawio.InputQueued(fd)
	})
	return n
}

// MaxLine is the longest line a program reading lines is given: Linux
// keeps 4096 bytes of a line being typed, its end included, and drops what
// comes past them.
const MaxLine = 4095

// LineEnds returns the bytes that end a line when the terminal is in
// canonical mode (the program reads lines, as cat and the shell's read
// do): NL, CR where ICRNL makes it one, and the EOF, EOL and EOL2
// characters that are set. It returns nil when the terminal is not in
// canonical mode, or cannot be read.
func (p *Process) LineEnds() []byte {
	var t *unix.Termios
	_ = p.raw.Control(func(fd uintptr) { t, _ = unix.IoctlGetTermios(int(fd), unix.TCGETS) })
	if t == nil || t.Lflag&unix.ICANON == 0 {
		return nil
	}
	ends := []byte{'\n'}
	if t.Iflag&unix.ICRNL != 0 && t.Iflag&unix.IGNCR == 0 {
		ends = append(ends, '\r')
	}
	for _, c := range []byte{t.Cc[unix.VEOF], t.Cc[unix.VEOL], t.Cc[unix.VEOL2]} {
		if c != 0 && c != 0xff { // unset, or _POSIX_VDISABLE
			ends = append(ends, c)
		}
	}
	return ends
}
