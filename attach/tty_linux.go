package attach

import (
	"fmt"
	"os"
	"syscall"
)

// reopenTerminal opens the terminal behind f a second time, non-blocking, so
// its reads and writes go through Go's poller instead of holding a thread
// in a blocking system call. A blocked read pins a thread and its P: with
// one P (see main) the goroutine it wakes would wait for the runtime to
// notice, and with several every keystroke is a thread handoff; both show
// in the echo latency. The new open has its own file status flags, so
// O_NONBLOCK never reaches the shell that started wr, which shares the
// original. It returns f itself when the terminal cannot be reopened.
func reopenTerminal(f *os.File, flag int) *os.File {
	g, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return f
	}
	return g
}
