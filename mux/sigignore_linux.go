//go:build linux && (amd64 || arm64)

package mux

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelSigaction is the kernel's struct sigaction on amd64 and arm64.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const sigIgn = 1 // SIG_IGN

// ignoreAcrossExec sets sig to be ignored, in the kernel and at once, for
// an exec that follows, and returns what puts Go's handler back if the
// exec fails. Not os/signal's Ignore: it marks Go's handler off before it
// sets SIG_IGN, and a signal that lands between the two is taken by Go's
// handler as one it does not handle, with the default it inherited, which
// for SIGUSR1 ends the process (a storm of kill -USR1 during an upgrade
// killed the server 1 time in 10). Ignored, the signal stays ignored
// across the exec until the new binary's runtime catches it.
func ignoreAcrossExec(sig syscall.Signal) (restore func()) {
	act := kernelSigaction{handler: sigIgn}
	var old kernelSigaction
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(&act)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	if errno != 0 {
		return func() {}
	}
	return func() {
		_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig),
			uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	}
}
