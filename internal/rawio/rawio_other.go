//go:build !linux

package rawio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Elsewhere the calls go through the scheduler as usual (see the package
// doc).

// Read is read(2) of fd into b.
func Read(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := unix.Read(int(fd), b)
	return n, errnoOf(err)
}

// Write is write(2) of b to fd.
func Write(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := unix.Write(int(fd), b)
	return n, errnoOf(err)
}

// Writev is writev(2) of iov to fd; iov must hold at most IOV_MAX entries.
func Writev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	bufs := make([][]byte, len(iov))
	for i, v := range iov {
		bufs[i] = unsafe.Slice(v.Base, v.Len)
	}
	n, err := unix.Writev(int(fd), bufs)
	return n, errnoOf(err)
}

// Readable reports whether fd has something to read (or has hung up), or
// true when it cannot tell: a poll(2) that does not wait.
func Readable(fd uintptr) bool {
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

// closeOnExecRange: no close_range(2) here; the caller lists /dev/fd.
func closeOnExecRange() bool { return false }
