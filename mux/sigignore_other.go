//go:build linux && !(amd64 || arm64)

package mux

import (
	"os"
	"os/signal"
	"syscall"
)

// ignoreAcrossExec is os/signal's Ignore where the kernel's sigaction is
// not spelled out here (sigignore_linux.go): a signal in the instant it
// takes may still end the process.
func ignoreAcrossExec(sig syscall.Signal) (restore func()) {
	signal.Ignore(sig)
	return func() {
		// Caught again, so that sessions get the default: Reset alone
		// leaves SIG_IGN in the kernel for SIGUSR1, and Notify puts Go's
		// handler back (helper-59). After Stop, Go drops it.
		c := make(chan os.Signal, 1)
		signal.Notify(c, sig)
		signal.Stop(c)
	}
}
