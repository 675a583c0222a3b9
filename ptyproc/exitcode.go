package ptyproc

import (
	"os"
	"syscall"
)

// exitCode converts a finished process's state to the number a shell would
// report in $?: n for exit n, 128+s for death by signal s. A raw wait status
// (exit 7 arrives as 1792) is never what the user means.
func exitCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
	return st.ExitCode()
}
