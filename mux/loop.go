package mux

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"wr/wire"
)

// An attach loop: a client running inside session B attached to A, then a
// client inside A attaching to B. Each session's output would be drawn
// inside the other's, and a key typed in either goes round for ever. The
// client refuses the direct case (A inside A) by its own WR_SESSION; the
// server refuses the rest, because only it sees which clients run inside
// which of its sessions. A client says which with Attach.Inside, its
// WR_SESSION_ID; a rename keeps that, unlike the name.
//
// A loop may pass through other servers (A on one socket shown inside B
// on another, then a client inside B attaching to A), and no server sees
// all of it. So each records the socket its clients' sessions are held
// on (Attach.InsideSocket), answers Shown with what its own clients show,
// and a client about to attach from inside a session follows those
// answers from server to server first (attach.outsideOf) and sends what
// it found as Attach.Outside. Two attaches that close a loop at the same
// moment can each miss the other; wr detach breaks such a loop.

// sessionID is the session's WR_SESSION_ID.
func (ss *session) sessionID() string { return strings.TrimPrefix(ss.marker, "WR_SESSION_ID=") }

// showing is a session shown inside another through an attached client:
// the client runs inside the session whose WR_SESSION_ID is inside, held
// by the server on socket insideAt ("" when the client did not say).
type showing struct {
	shown    *session
	inside   string
	insideAt string
}

// showings lists every session of this server shown inside another, and
// the sessions it holds. A recorder shows nothing, so it closes no loop.
func (s *server) showings() (edges []showing, all []*session) {
	s.mu.Lock()
	all = make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.mu.Lock()
		for _, c := range ss.clients {
			if c.inside != "" && !c.record {
				edges = append(edges, showing{shown: ss, inside: c.inside, insideAt: c.insideAt})
			}
		}
		ss.mu.Unlock()
	}
	return edges, all
}

// refuseLoop answers an attach to target from inside the session inside
// that would close a loop, with the error to send, or nil. outside is
// what the client found on other servers (wire.Attach.Outside).
//
// A loop this server sees alone is worded by its own walk, which can name
// the session the client runs in; outside names every session the client
// found, this server's included.
func (s *server) refuseLoop(target *session, inside string, outside []string) *wire.Error {
	if in := s.attachLoop(target, inside); in != nil {
		return loopError(target, in)
	}
	if slices.Contains(outside, target.sessionID()) {
		return &wire.Error{Code: wire.CodeLoop, Message: fmt.Sprintf(
			"the session this terminal runs in is shown, through a session of another server, inside session %s; attaching to %s would loop",
			target.name(), target.name())}
	}
	return nil
}

// attachLoop reports the session that is shown, through attached clients,
// inside target and is the one the client runs in (inside): attaching
// would close a loop. It returns nil when there is no loop.
func (s *server) attachLoop(target *session, inside string) *session {
	if inside == "" {
		return nil
	}
	edges, _ := s.showings()
	// shows[X] lists the sessions a client running inside X is attached to.
	shows := map[string][]*session{}
	for _, e := range edges {
		shows[e.inside] = append(shows[e.inside], e.shown)
	}
	seen := map[*session]bool{}
	for next := []*session{target}; len(next) > 0; {
		ss := next[len(next)-1]
		next = next[:len(next)-1]
		if ss.sessionID() == inside {
			return ss
		}
		if !seen[ss] {
			seen[ss] = true
			next = append(next, shows[ss.sessionID()]...)
		}
	}
	return nil
}

// loopError words a refused attach.
func loopError(target, in *session) *wire.Error {
	msg := fmt.Sprintf("already inside session %s; attaching to it from inside itself would loop", target.name())
	if target != in {
		msg = fmt.Sprintf("this terminal is inside session %s, which is shown inside session %s; attaching to %s would loop", in.name(), target.name(), target.name())
	}
	return &wire.Error{Code: wire.CodeLoop, Message: msg}
}

// handleShown answers which sessions show the sessions req.IDs, however
// indirectly: those of this server, and the first of every other
// server's met on the way, for the asker to follow there.
func (s *server) handleShown(conn *net.UnixConn, req wire.Shown) {
	edges, all := s.showings()
	local := make(map[string]bool, len(all))
	for _, ss := range all {
		local[ss.sessionID()] = true
	}
	// shownIn[Y] lists the clients attached to Y from inside a session.
	shownIn := map[string][]showing{}
	for _, e := range edges {
		id := e.shown.sessionID()
		shownIn[id] = append(shownIn[id], e)
	}
	reply := wire.ShownIn{IDs: []string{}}
	seen := map[string]bool{}
	elsewhere := map[string]string{} // another server's session: its socket, if any client said
	var order []string
	for next := slices.Clone(req.IDs); len(next) > 0; {
		id := next[len(next)-1]
		next = next[:len(next)-1]
		for _, e := range shownIn[id] {
			switch {
			case !local[e.inside]:
				// Kept whichever client says it: one adopted from an
				// older server, or with no WR_SOCKET, does not.
				if at, ok := elsewhere[e.inside]; !ok {
					elsewhere[e.inside] = e.insideAt
					order = append(order, e.inside)
				} else if at == "" {
					elsewhere[e.inside] = e.insideAt
				}
			case !seen[e.inside]:
				seen[e.inside] = true
				reply.IDs = append(reply.IDs, e.inside)
				next = append(next, e.inside)
			}
		}
	}
	for _, id := range order {
		reply.Elsewhere = append(reply.Elsewhere, wire.SessionAt{ID: id, Socket: elsewhere[id]})
	}
	s.reply(conn, wire.TypeShownIn, reply)
}
