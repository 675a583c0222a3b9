//go:build linux

package mux

import (
	"net"
	"os"
	"time"

	"wr/wire"
)

// listenBeacon listens on the server's beacon (wire.BeaconName) and
// answers each connection of this user once the socket is in place again:
// a client that found no socket asks so before it starts a server (see
// attach's Dial). It returns what stops it. A beacon already bound (a
// second server for the same path, in its last moments) is done without.
func (s *server) listenBeacon() (stop func()) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: wire.BeaconName(s.socket), Net: "unix"})
	if err != nil {
		s.logf("no beacon (a client after a logout may start a second server): %v", err)
		return func() {}
	}
	go func() {
		for {
			conn, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			go s.answerBeacon(conn)
		}
	}()
	return func() { ln.Close() }
}

// answerBeacon makes the socket right, then says so with one byte.
func (s *server) answerBeacon(conn *net.UnixConn) {
	defer conn.Close()
	if uid, err := peerUID(conn); err != nil || uid != os.Getuid() {
		return
	}
	deadline := time.Now().Add(handshakeTimeout)
	_ = conn.SetDeadline(deadline)
	if s.dir().Gone() {
		s.homeGone()
		// The client made the directory's parent's child, or at least
		// found the parent there: make it now, not at the next poll.
		// rehome yields to an upgrade and to itself; try again briefly.
		for s.dir().Gone() && !s.rehome() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	} else {
		s.relisten("a client found no socket")
	}
	_, _ = conn.Write([]byte{1})
}
