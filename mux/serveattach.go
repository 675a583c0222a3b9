package mux

import (
	"errors"
	"fmt"
	"net"

	"wr/wire"
)

// errStopping refuses a new session while the server is shutting down; the
// client starts a fresh server and tries again.
var errStopping = errors.New("the server is shutting down; try again")

// getOrCreate finds the session name, creating it from cfg when create is
// set. A created session is not yet running: the caller registers its first
// client, if any, then calls run.
func (s *server) getOrCreate(name string, create, exclusive bool, cfg wire.SessionConfig) (*session, bool, *wire.Error) {
	if wire.CheckName(name) != nil {
		return nil, false, &wire.Error{Code: wire.CodeBadName, Message: fmt.Sprintf("invalid session name %q: %s", name, wire.NameRule)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A session whose command has exited but whose output is still being
	// drained is running for everyone. An exited (kept) one is found, to be
	// shown, but an exclusive create replaces it: the new session takes the
	// name, and the old one is dropped.
	old, ok := s.sessions[name]
	if ok && (!exclusive || !old.exited.Load()) {
		if exclusive {
			return nil, false, &wire.Error{Code: wire.CodeExists, Message: fmt.Sprintf("a session named %s already exists", name)}
		}
		return old, false, nil
	}
	if !create {
		return nil, false, &wire.Error{Code: wire.CodeNoSession, Message: fmt.Sprintf("no session named %s", name)}
	}
	if s.stopping || s.draining {
		return nil, false, &wire.Error{Code: wire.CodeStopping, Message: errStopping.Error()}
	}
	ss, err := s.startSession(name, cfg)
	if err != nil {
		return nil, false, &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	if old != nil {
		if old.expiry != nil {
			old.expiry.Stop()
			old.expiry = nil
		}
		s.logf("session %s (exited, code %d) replaced by a new session of its name", name, old.code)
	}
	s.sessions[name] = ss
	s.hadSession = true
	s.logf("session %s started: pid %d, %q", name, ss.pid, ss.command)
	return ss, true, nil
}

// serveAttach runs an attached connection until the client detaches, goes
// away, or the session ends.
func (s *server) serveAttach(conn *net.UnixConn, req wire.Attach) {
	cfg := req.Config
	cfg.Cols, cfg.Rows = req.Cols, req.Rows
	ss, created, werr := s.getOrCreate(req.Name, req.Create, req.Exclusive, cfg)
	if werr != nil {
		s.reply(conn, wire.TypeError, *werr)
		return
	}
	// A recorder shows nothing, so it closes no loop. A client that does
	// not say where it runs (one before 1.3, or before 1.6 attaching to
	// another server than its own) is known by its environment.
	inside, insideAt := req.Inside, req.InsideSocket
	if inside == "" {
		inside, _ = wire.LookupIn(req.Config.Env)("WR_SESSION_ID")
		insideAt, _ = wire.LookupIn(req.Config.Env)("WR_SOCKET")
	}
	if !created && !req.Record {
		if werr := s.refuseLoop(ss, inside, req.Outside); werr != nil {
			s.reply(conn, wire.TypeError, *werr)
			return
		}
	}
	s.mu.Lock()
	s.nextClient++
	id := s.nextClient
	s.mu.Unlock()

	cols, rows := clientSize(req.Cols, req.Rows)
	c := newClient(id, conn, req.ReadOnly || req.Record, cols, rows)
	if req.Record {
		c.record, c.cols, c.rows = true, 0, 0
	}
	c.restoreAsk = restoreRequestOf(req)
	c.env = req.Env
	c.inside, c.insideAt = inside, insideAt
	c.acksExit = req.AckExit && !req.Record
	// The connection is closed here as well: the writer leaves it open
	// for a client's ExitSeen (closeAwaitingSeen).
	defer c.conn.Close()
	go c.writeLoop(func() { ss.resync(c) }, s.clientCaughtUp)
	res := ss.attach(c, wire.Attached{Name: ss.name(), ClientID: id, Created: created, ID: ss.sessionID()}, !created)
	if created {
		ss.run()
	}
	switch res {
	case attachGone:
		p, _ := wire.Encode(wire.Error{Code: wire.CodeNoSession, Message: fmt.Sprintf("session %s has ended", ss.name())})
		c.close(wire.TypeError, p)
		<-c.done
		return
	case attachExited:
		// Its code and last screen are on their way: seen. Collected
		// before the client can read them, so that once it has, wr ls
		// no longer lists the session; for a client that confirms the
		// code, once it has (it waits for the connection to close). A
		// recorder, like wr capture, leaves it.
		switch {
		case c.acksExit:
			// Settled first: an upgrade must not wait on a client
			// whose ExitSeen is held up by a stalled link. Its exec
			// closes the connection, and the session, still exited,
			// goes to the new server.
			s.up.settle(conn)
			s.awaitSeen(ss, c, wire.NewReaderSize(c.frameSource(), clientReadBuffer))
		case !req.Record:
			s.collect(ss, "seen by wr attach")
		}
		<-c.done
		return
	}
	if req.DetachOthers {
		ss.detachClients(c)
	}
	s.up.settle(conn) // attached: an upgrade hands it over (upgrade.go)
	s.readClient(ss, c)
	ss.detach(c)
	<-c.done
}

// readClient handles frames from an attached client until it detaches or
// its connection fails.
func (s *server) readClient(ss *session, c *client) {
	// A small buffer: input is keystrokes, and a large paste is read
	// straight into its frame's payload. Thousands of attached clients
	// must not cost 128 KiB each.
	fr := wire.NewReaderSize(c.frameSource(), clientReadBuffer)
	s.knocks.watch(c.conn) // an adopted one was not accepted here (knock_linux.go)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if s.inputHeld(c, fr, err) { // an upgrade stopped the reader (upgrade.go)
				continue
			}
			if errors.Is(err, wire.ErrFrameTooLarge) {
				s.logf("client %d of %s: %v", c.id, ss.name(), err)
				p, _ := wire.Encode(wire.Error{Code: wire.CodeBadFrame, Message: fmt.Sprintf("frame too large: this client sent one over %d bytes", wire.MaxPayload)})
				c.close(wire.TypeError, p)
			}
			return
		}
		switch f.Type {
		case wire.TypeInput:
			if err := ss.input(c, f.Payload); err != nil && !c.acksExit {
				// The PTY is gone. A client that confirms the exit code
				// is read on, for its ExitSeen: keys typed as the
				// session ended must not cut that short.
				return
			}
		case wire.TypeResize:
			var r wire.Resize
			if wire.Decode(f, &r) == nil {
				ss.resize(c, r.Cols, r.Rows)
			}
		case wire.TypeDetach:
			return
		case wire.TypeExitSeen:
			s.collect(ss, "seen by wr attach")
			return
		default:
			// A newer client's frame this server does not know: ignore it.
		}
	}
}

// awaitSeen reads what a client shown an exited session sends until its
// ExitSeen, which collects the session, or until its connection ends,
// which leaves the session kept for the next attach or wr wait.
func (s *server) awaitSeen(ss *session, c *client, fr *wire.Reader) {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if f.Type == wire.TypeExitSeen {
			s.collect(ss, "seen by wr attach")
			return
		}
	}
}
