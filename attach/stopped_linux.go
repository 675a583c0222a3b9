package attach

import (
	"bytes"
	"os"
	"strconv"
)

// canSeeStopped: /proc says whether a process is stopped.
const canSeeStopped = true

// processStopped reports whether process pid is stopped: by a signal
// (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU; its state in /proc/PID/stat is T),
// or by a debugger that traces it (t).
func processStopped(pid int) (stopped, traced bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, false
	}
	// The command name, in parentheses, may itself hold ") ": the state
	// follows the last one.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false, false
	}
	switch b[i+2] {
	case 'T':
		return true, false
	case 't':
		return true, true
	}
	return false, false
}
