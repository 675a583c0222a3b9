//go:build linux

package mux

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"

	"wr/wire"
)

// beaconAnswerMax bounds how long the server works at an answer: under
// the client's own wait (attach's beaconWait), so a "no" comes in time.
const beaconAnswerMax = time.Second

// listenBeacon listens on the server's beacon (wire.BeaconName) until the
// server stops (the listener closes as it begins to stop, so the next
// server can bind the name), answering each connection of this user once
// the socket is in place again: a client that found no socket asks so
// before it starts a server (see attach's Dial). While the name is taken
// (a server for the same path in its last moments, or another user's
// squatting) it tries again, each time later, up to once a minute.
func (s *server) listenBeacon() {
	name := wire.BeaconName(s.socket)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err == nil {
		go s.serveBeacon(ln)
		return
	}
	// The retries wait in a goroutine of their own, only while they last.
	s.logf("no beacon yet (its name is taken: a server for this path on its way out, or another user's): %v", err)
	go func() {
		for wait := time.Second; ; wait = min(2*wait, time.Minute) {
			select {
			case <-time.After(wait):
			case <-s.stopped:
				return
			}
			if ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"}); err == nil {
				s.logf("listening on the beacon")
				s.serveBeacon(ln)
				return
			}
		}
	}()
}

func (s *server) serveBeacon(ln *net.UnixListener) {
	// Closed by shutdownLocked: a goroutine waiting for the stop would
	// be one more on an idle server.
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		ln.Close()
		return
	}
	s.beacon = ln
	s.mu.Unlock()
	var fails acceptFailures
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors: wait, as the main accept loop does.
			select {
			case <-time.After(fails.failed(s, err)):
			case <-s.stopped:
				return
			}
			continue
		}
		fails.backoff = 0
		go s.answerBeacon(conn)
	}
}

// answerBeacon makes the socket right, then answers one byte: 1 when it
// is in place, 0 when it cannot be (the runtime directory is not back:
// the client from a cron job, or from inside one of the server's own
// sessions, should fail as fast as with no server at all).
func (s *server) answerBeacon(conn *net.UnixConn) {
	defer conn.Close()
	if uid, err := wire.PeerUID(conn); err != nil || uid != os.Getuid() {
		return
	}
	deadline := time.Now().Add(beaconAnswerMax)
	_ = conn.SetDeadline(deadline.Add(time.Second))
	switch {
	case s.activated:
		// systemd's socket: not this server's to bind.
	case s.dir().Gone():
		s.homeGone()
		parent := filepath.Dir(filepath.Dir(s.socket))
		// rehome yields to an upgrade and to itself: try again briefly.
		for s.dir().Gone() && time.Now().Before(deadline) {
			if _, err := os.Stat(parent); err != nil {
				break
			}
			if !s.rehome() {
				time.Sleep(5 * time.Millisecond)
			}
		}
	default:
		s.relisten("a client found no socket")
	}
	answer := byte(1)
	if s.dir().Gone() || s.activated {
		answer = 0
	}
	_, _ = conn.Write([]byte{answer})
}
