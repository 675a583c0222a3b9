//go:build !linux

package mux

import (
	"os"
	"os/signal"
	"syscall"
)

// Without a watch of the directory or a beacon, SIGUSR1 asks the server
// to bind its socket again, as tmux's does; a client that finds the
// socket gone says so, with the pid from the lock file.

// notifyUSR1 asks for SIGUSR1 from the top of Run, before the server's
// pid goes into the lock file (lockServer, takeHandoff): the pid is what a
// person is told to send SIGUSR1 to. A signal that comes before the
// server listens waits in s.usr1.
func (s *server) notifyUSR1() (stop func()) {
	s.usr1 = make(chan os.Signal, 1)
	signal.Notify(s.usr1, syscall.SIGUSR1)
	return func() { signal.Stop(s.usr1) }
}

// serveUSR1 binds the socket again at each SIGUSR1 until stop.
func (s *server) serveUSR1() (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-s.usr1:
				s.relisten("SIGUSR1")
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}
