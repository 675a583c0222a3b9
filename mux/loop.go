package mux

import (
	"fmt"
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

// sessionID is the session's WR_SESSION_ID.
func (ss *session) sessionID() string { return strings.TrimPrefix(ss.marker, "WR_SESSION_ID=") }

// attachLoop reports the session that is shown, through attached clients,
// inside target and is the one the client runs in (inside): attaching
// would close a loop. It returns nil when there is no loop.
func (s *server) attachLoop(target *session, inside string) *session {
	if inside == "" {
		return nil
	}
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	// shows[X] lists the sessions a client running inside X is attached to.
	shows := map[string][]*session{}
	byID := map[string]*session{}
	for _, ss := range all {
		byID[ss.sessionID()] = ss
		ss.mu.Lock()
		for _, c := range ss.clients {
			if c.inside != "" && !c.record {
				shows[c.inside] = append(shows[c.inside], ss)
			}
		}
		ss.mu.Unlock()
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
