package mux

import (
	"os"
	"os/signal"
	"syscall"
)

// askUSR1 asks for SIGUSR1 into s.usr1 (usr1_*.go say when).
func askUSR1(s *server) (stop func()) {
	s.usr1 = make(chan os.Signal, 1)
	signal.Notify(s.usr1, syscall.SIGUSR1)
	return func() { signal.Stop(s.usr1) }
}

// relistenOnUSR1 binds the socket again at each SIGUSR1 until stop.
func relistenOnUSR1(s *server) (stop func()) {
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
