//go:build linux

package mux

// On Linux SIGUSR1 is left to Go's runtime, which drops a signal nobody
// asked for: the watch and the beacon put a removed socket back, and
// every goroutine counts on an idle server (idle_test.go). It is still
// caught, never ignored: an ignored signal would stay ignored in every
// session the server starts. An upgrade ignores it across its exec, where
// the default would end the process (sigignore_linux.go).

// notifyUSR1 asks for nothing.
func (s *server) notifyUSR1() (stop func()) { return func() {} }

// serveUSR1 serves nothing.
func (s *server) serveUSR1() (stop func()) { return func() {} }
