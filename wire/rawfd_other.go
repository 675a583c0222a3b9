//go:build !linux

package wire

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Elsewhere the calls go through the scheduler as usual: the reason for
// raw calls (see RawFD) was measured on Linux only.

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), b)
	return n, errnoOf(err)
}

func rawWritev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	bufs := make([][]byte, len(iov))
	for i, v := range iov {
		bufs[i] = iovBytes(v)
	}
	n, err := unix.Writev(int(fd), bufs)
	return n, errnoOf(err)
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
