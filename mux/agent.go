package mux

import (
	"path/filepath"
	"strings"
)

// The agent link. A shell keeps the SSH_AUTH_SOCK of the login that
// started it, so after the next login `git push` cannot reach an agent
// (tmux's update-environment only helps new windows). Every session's
// SSH_AUTH_SOCK is instead a symbolic link in the socket directory,
// SOCKET.agent-ID (ID as in WR_SESSION_ID, so a rename keeps it), which the
// server points at the agent socket of the client that last acted: the
// one that attached, or took the size, most recently. The directory is
// 0700, so no one else can redirect it. The link goes with the session.

// maxSocketAddr is the longest path a Unix socket address holds (sun_path
// less its terminating NUL): ssh connects to the link by its path.
const maxSocketAddr = 107

// agentLinkPrefix is the start of every agent link's name for socket.
func agentLinkPrefix(socket string) string { return filepath.Base(socket) + ".agent-" }

// agentPath is the path a session's SSH_AUTH_SOCK names.
func (s *server) agentPath(link string) string { return filepath.Join(s.dir().Path(), link) }

// actedLocked records that a person acted through c (it attached, or took
// the size): the session's refreshed variables become c's, and its agent
// link follows c's agent. A read-only client does not act, nor does one
// with no terminal (a script's wr attach </dev/null): its environment is a
// cron job's or a CI runner's, not the login a person came back from.
// Called with the session's mu held.
func (ss *session) actedLocked(c *client) {
	if c.readOnly || c.env == nil || !c.terminal {
		return
	}
	ss.env = c.env
	ss.pointAgentLocked(c.env["SSH_AUTH_SOCK"])
}

// pointAgentLocked points the session's agent link at target. A client
// without an agent leaves it where it was: the agent of the login before
// may still be there, and nothing would be better. Called with the
// session's mu held (or before the session is shared).
func (ss *session) pointAgentLocked(target string) {
	// A relative path would be taken from the socket directory.
	if !filepath.IsAbs(target) || target == ss.agentTarget || ss.agentLink == "" {
		return
	}
	// A client running inside another session has that session's link as
	// its agent: point at what it points at, so links never chain (and
	// two sessions attached inside each other never make a loop).
	if dir := ss.srv.dir().Path() + "/"; strings.HasPrefix(target, dir+agentLinkPrefix(ss.srv.socket)) {
		t, err := ss.srv.dir().Readlink(strings.TrimPrefix(target, dir))
		if err != nil {
			return
		}
		target = t
	}
	if err := ss.srv.dir().Symlink(target, ss.agentLink); err != nil {
		ss.srv.logf("session %s: point the agent link: %v", ss.name(), err)
		return
	}
	ss.agentTarget = target
}

// removeAgentLink removes the session's agent link once nothing the
// session started can use it.
func (ss *session) removeAgentLink() {
	if ss.agentLink == "" {
		return
	}
	if err := ss.srv.dir().Remove(ss.agentLink); err != nil && !strings.Contains(err.Error(), "no such file") {
		ss.srv.logf("session %s: remove the agent link: %v", ss.name(), err)
	}
}

// removeStaleAgentLinks removes the agent links a server that died left
// behind; called at start, with the server lock held and no session yet.
func (s *server) removeStaleAgentLinks() {
	names, err := s.dir().Names()
	if err != nil {
		return
	}
	prefix := agentLinkPrefix(s.socket)
	for _, n := range names {
		id, ok := strings.CutPrefix(n, prefix)
		id = strings.TrimSuffix(id, ".new") // a link being replaced when the server died
		// Only what an agent link's name can be, and only a symbolic
		// link (Readlink fails on anything else): a socket named
		// "s.agent-x" in the same directory, and its files, stay.
		if !ok || len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
			continue
		}
		if _, err := s.dir().Readlink(n); err == nil {
			_ = s.dir().Remove(n)
		}
	}
}
