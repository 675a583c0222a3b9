//go:build linux

package rawio

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2) of fd into b.
func Read(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Write is write(2) of b to fd.
func Write(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Writev is writev(2) of iov to fd; iov must hold at most IOV_MAX entries.
func Writev(fd uintptr, iov []syscall.Iovec) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(unsafe.SliceData(iov))), uintptr(len(iov)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// Readable reports whether fd has something to read (or has hung up), or
// true when it cannot tell: a ppoll(2) that does not wait.
func Readable(fd uintptr) bool {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	var zero unix.Timespec
	n, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
	return e != 0 || n != 0
}

// EpollCtl is epoll_ctl(2), which never waits: the watcher re-arms a PTY
// after each wake-up it reads itself, and the usual call would wake the
// monitor thread each time.
func EpollCtl(ep uintptr, op int, fd int, ev *unix.EpollEvent) syscall.Errno {
	_, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_CTL, ep, uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	return e
}

// InputQueued is the number of bytes fd's terminal or socket has waiting
// to be read (the TIOCINQ ioctl), or 0 when it cannot tell.
func InputQueued(fd uintptr) int {
	var n int32
	if _, _, e := syscall.RawSyscall(unix.SYS_IOCTL, fd, unix.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0
	}
	return int(n)
}

// closeOnExecRange marks every descriptor above stderr close-on-exec in one
// call (close_range(2), Linux 5.11); false where the kernel lacks it.
func closeOnExecRange() bool {
	return unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil
}
