package rawio

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExecInherited marks every descriptor above stderr close-on-exec.
// Go opens everything close-on-exec, so the ones it changes were inherited
// (a shell's `exec 5>file` before starting wr): a process that starts
// others (the client starting the server, the server starting a session)
// calls it so that they get nothing of it but their stdio. Descriptors are
// left open. It uses close_range(2) where the kernel has it, else lists
// /proc/self/fd or /dev/fd; where neither can be read it does nothing.
func CloseOnExecInherited() {
	if closeOnExecRange() {
		return
	}
	for _, list := range []string{"/proc/self/fd", "/dev/fd"} {
		ents, err := os.ReadDir(list)
		if err != nil {
			continue
		}
		for _, e := range ents {
			fd, err := strconv.Atoi(e.Name())
			if err != nil || fd <= 2 {
				continue
			}
			// The listing's own descriptor is closed by now: EBADF.
			if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
				_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
			}
		}
		return
	}
}
