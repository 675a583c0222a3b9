//go:build linux && !(amd64 || arm64)

package mux

import (
	"os/signal"
	"syscall"
)

// ignoreAcrossExec is os/signal's Ignore where the kernel's sigaction is
// not spelled out here (sigignore_linux.go): a signal in the instant it
// takes may still end the process.
func ignoreAcrossExec(sig syscall.Signal) (restore func()) {
	signal.Ignore(sig)
	return func() { signal.Reset(sig) } // caught again, so sessions get the default
}
