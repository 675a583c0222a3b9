package attach

import (
	"fmt"
	"os"
	"syscall"
)

// reopenTerminal opens the terminal behind f a second time, non-blocking, so
// reads wait in Go's poller instead of in a blocking system call. A thread
// blocked in read(2) holds its P until the runtime notices, so the writer
// goroutine a keystroke wakes may wait for it; a goroutine parked in the
// poller has given its P back. The new open has its own file status flags,
// so O_NONBLOCK never reaches the shell that started wr, which shares the
// original. It returns f itself when the terminal cannot be reopened.
func reopenTerminal(f *os.File, flag int) *os.File {
	g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return f
	}
	return g
}
