//go:build linux

package mux

// On Linux SIGUSR1 is left to Go's runtime, which drops a signal nobody
// asked for: the watch and the beacon put a removed socket back, and
// every goroutine counts on an idle server (idle_test.go). It is still
// caught, never ignored: an ignored signal would stay ignored in every
// session the server starts. An upgrade ignores it across its exec, where
// the default would end the process (sigignore_linux.go). A server whose
// watch could not be made asks for it after all, as elsewhere
// (usr1_other.go's twins below): the beacon alone may be out of reach.

// notifyUSR1 asks for nothing at the top of Run.
func (s *server) notifyUSR1() (stop func()) { return func() {} }

// serveUSR1 binds the socket again at each SIGUSR1, only if the watch of
// the directory failed.
func (s *server) serveUSR1() (stop func()) {
	s.watch.mu.Lock()
	failed := s.watch.failed
	s.watch.mu.Unlock()
	if !failed {
		return func() {}
	}
	stopNotify := askUSR1(s)
	stopServe := relistenOnUSR1(s)
	return func() { stopServe(); stopNotify() }
}
