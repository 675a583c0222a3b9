//go:build !linux

package mux

// Without a watch of the directory or a beacon, SIGUSR1 asks the server
// to bind its socket again, as tmux's does; a client that finds the
// socket gone says so, with the pid from the lock file.

// notifyUSR1 asks for SIGUSR1 from the top of Run, before the server's
// pid goes into the lock file (lockServer, takeHandoff): the pid is what a
// person is told to send SIGUSR1 to. A signal that comes before the
// server listens waits in s.usr1.
func (s *server) notifyUSR1() (stop func()) { return askUSR1(s) }

// serveUSR1 binds the socket again at each SIGUSR1 until stop.
func (s *server) serveUSR1() (stop func()) { return relistenOnUSR1(s) }
