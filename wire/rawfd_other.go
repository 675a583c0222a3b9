//go:build !linux

package wire

import "syscall"

// Elsewhere the calls go through the scheduler as usual: the reason for
// raw calls (see RawFD) was measured on Linux only.

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), b)
	return n, errnoOf(err)
}

func rawWritev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	b := iovBytes(iov[0]) // one buffer per call is enough where this is not measured
	n, err := syscall.Write(int(fd), b)
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
