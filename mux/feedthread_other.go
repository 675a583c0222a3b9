//go:build !linux

package mux

// backgroundThread does nothing outside Linux, where a thread's priority
// is not its own.
func backgroundThread() (restore func()) { return func() {} }
