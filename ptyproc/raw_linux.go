//go:build linux

package ptyproc

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The master is non-blocking, so its reads, writes and readiness checks are
// made as raw system calls, which the scheduler is not told about: a call
// made the usual way wakes the runtime's monitor thread after an idle spell
// and has its P handed to another thread when it takes longer than the
// monitor's tick, and both are context switches the server pays per read.
// (wire.RawFD says the same of the client connections, and what such a
// read can still cost.)

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}

// readable reports whether fd has something to read (or has hung up), or
// true when it cannot tell.
func readable(fd uintptr) bool {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	var zero unix.Timespec
	n, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
	return e != 0 || n != 0
}
