package attach

import (
	"bytes"
	"os"
	"strconv"
)

// processStopped reports whether process pid is stopped (SIGSTOP, SIGTSTP,
// SIGTTIN or SIGTTOU): its state in /proc/PID/stat is T.
func processStopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The command name, in parentheses, may itself hold ") ": the state
	// follows the last one.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'T'
}
