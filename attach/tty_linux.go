package attach

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// reopenTerminal opens the terminal behind f a second time, non-blocking, so
// reads wait in Go's poller instead of in a blocking system call. A thread
// blocked in read(2) holds its P until the runtime notices, so the writer
// goroutine a keystroke wakes may wait for it; a goroutine parked in the
// poller has given its P back. The new open has its own file status flags,
// so O_NONBLOCK never reaches the shell that started wr, which shares the
// original. It returns f itself when the terminal cannot be reopened, or
// must not be: opening a PTY master's /proc path makes a new PTY, not a
// second open of that one.
//
// The descriptor is reached through Control, not (*os.File).Fd, which would
// make the shell's open blocking if it was not.
func reopenTerminal(f *os.File, flag int) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	path, master := "", false
	_ = rc.Control(func(fd uintptr) {
		path = fmt.Sprintf("/proc/self/fd/%d", fd)
		_, err := unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		master = err == nil
	})
	if path == "" || master {
		return f
	}
	g, err := os.OpenFile(path, flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return f
	}
	return g
}
