//go:build !linux

package ptyproc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Elsewhere the master's calls go through the scheduler as usual (see
// raw_linux.go for why Linux does not).

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := unix.Read(int(fd), b)
	return n, errnoOf(err)
}

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := unix.Write(int(fd), b)
	return n, errnoOf(err)
}

func readable(fd uintptr) bool {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, 0)
	return err != nil || n != 0
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EIO
}
