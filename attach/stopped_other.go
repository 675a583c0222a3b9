//go:build !linux

package attach

// canSeeStopped: only Linux says whether a process is stopped; elsewhere
// a stopped server is met by the greeting's 5 s timeout, and nothing
// looks.
const canSeeStopped = false

func processStopped(pid int) (stopped, traced bool) { return false, false }
