//go:build !linux

package mux

// listenBeacon: abstract sockets are Linux's alone.
func (s *server) listenBeacon() {}
