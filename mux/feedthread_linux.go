package mux

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// feederNice is how much lower than the rest of the server the feeder's
// thread runs.
const feederNice = 10

// backgroundThread runs the calling goroutine on a thread of its own at a
// lower priority, until the returned function is called. The feeder draws
// a session's screen off the critical path; on a machine whose cores are
// all busy the kernel then runs a keystroke's echo (another of the
// server's threads, the shell, the client) before it, instead of sharing
// the core evenly. If the priority cannot be put back, the thread is left
// locked, and ends with the goroutine.
func backgroundThread() (restore func()) {
	runtime.LockOSThread()
	tid := unix.Gettid()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid) // the kernel's 20 - nice
	if err != nil {
		runtime.UnlockOSThread()
		return func() {}
	}
	nice := 20 - prio
	if unix.Setpriority(unix.PRIO_PROCESS, tid, min(nice+feederNice, 19)) != nil {
		runtime.UnlockOSThread()
		return func() {}
	}
	return func() {
		if unix.Setpriority(unix.PRIO_PROCESS, tid, nice) == nil {
			runtime.UnlockOSThread()
		}
	}
}
