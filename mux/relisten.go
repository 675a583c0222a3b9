package mux

import (
	"errors"
	"net"
	"path/filepath"
	"sync"

	"wr/wire"
)

// A server whose socket was removed from outside (a /tmp cleaner, an rm
// in the wrong directory) is alive and holds every session, but no
// client can reach it: each verb started a new server, which found the
// lock held and gave up, and the sessions were stranded until someone
// killed the old server, and them with it. So a server binds its socket
// again as soon as it sees it removed: on Linux its watch of the
// directory (inotify) sees it, and a client that finds no socket asks on
// the server's beacon (beacon_linux.go); elsewhere, on SIGUSR1, as tmux
// does (usr1_other.go). A lock file removed with it is made again too:
// without it a second server could start beside this one.

// watchSocket starts the watch of the directory and, where there is no
// beacon, the SIGUSR1 handler; stop ends them.
func (s *server) watchSocket() (stop func()) {
	s.watchDir()
	// A removal before the watch began (between the bind and now, or
	// during an upgrade's exec) was seen by no one.
	s.relisten("the socket was gone when the server began to watch it")
	stopUSR1 := s.serveUSR1()
	return func() {
		s.watch.mu.Lock()
		s.watch.closed = true
		if s.watch.stop != nil {
			s.watch.stop()
		}
		s.watch.mu.Unlock()
		stopUSR1()
	}
}

// dirWatch is the watch of the socket's directory, made again for the
// new directory when the server makes it again (rehome.go).
type dirWatch struct {
	mu     sync.Mutex
	stop   func()
	closed bool // the server stops: no new watch
	failed bool // a watch could not be made: SIGUSR1 is asked for (usr1_linux.go)
}

// unwatchDir ends the watch of the directory until watchDir makes it
// again (an upgrade: upgrade.go).
func (s *server) unwatchDir() {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	if s.watch.stop != nil {
		s.watch.stop()
		s.watch.stop = nil
	}
}

// watchDir watches the socket's directory as it is now, in place of any
// watch before.
func (s *server) watchDir() {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	if s.watch.closed {
		return
	}
	if s.watch.stop != nil {
		s.watch.stop()
	}
	name := filepath.Base(s.socket)
	stop, err := s.dir().WatchEntries(func(changed string) {
		switch changed {
		case ".":
			s.homeGone()
		case "":
			s.relisten("the directory's watch lost events")
			s.checkHomeSoon()
		case name, name + ".lock":
			s.relisten(changed + " was removed or replaced")
			s.checkHomeSoon()
		case name + ".log":
			// Removed by hand or a cleaner: the server wrote on into the
			// removed file, and the errors that name the log named none.
			// Its own rotation renames it to .log.1 and makes it again.
			s.reopenLog()
			s.checkHomeSoon()
		}
	})
	if err != nil {
		if !errors.Is(err, errors.ErrUnsupported) {
			s.logf("cannot watch %s for the socket's removal (SIGUSR1 makes the server listen again): %v", s.dir().Path(), err)
		}
		stop = func() {}
		s.watch.failed = true
	}
	s.watch.stop = stop
}

// relisten makes the socket and the lock file at their paths this
// server's again, if they are not. It does nothing while the server stops,
// and for a socket systemd passed (systemd's to bind).
func (s *server) relisten(why string) {
	// An upgrade hands the listener and the lock over: one at a time,
	// and taken before mu, as the upgrade takes them. During an upgrade
	// the look is owed: the new binary looks when it starts, and a failed
	// upgrade looks as it serves on (serveUpgrade). Waiting here instead
	// would hold the watch, and a storm of asks (SIGUSR1, the beacon)
	// would hold upgrades off.
	if !s.up.mu.TryLock() {
		s.up.relistenOwed.Store(true)
		return
	}
	defer s.up.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.activated {
		return
	}
	if s.dir().Gone() {
		// Nothing can be made in it (rehome.go).
		s.homeGone()
		return
	}
	if !s.relockLocked() {
		return
	}
	name := filepath.Base(s.socket)
	if id, err := s.dir().ID(name); err == nil && id == s.socketID {
		return
	}
	ln, err := listen(s.dir(), name, s.socket)
	if err != nil {
		s.logf("%s, and the server cannot listen again: %v", why, err)
		return
	}
	s.serveOnLocked(ln)
	s.logf("%s: listening on %s again", why, s.socket)
}

// serveOnLocked makes ln, just bound at the socket's path in s.dir(), the
// listener the accept loop serves, with mu held, and closes the one
// before. The new one is set before the old one is closed: the accept
// loop, woken by the close, takes the new one (listener).
func (s *server) serveOnLocked(ln *net.UnixListener) {
	ln.SetUnlinkOnClose(false)
	old := s.ln
	s.ln = ln
	s.socketID, _ = s.dir().ID(filepath.Base(s.socket))
	s.knocks.watchListener(ln)
	old.Close()
}

// relockLocked makes sure the lock file at its path is the one this
// server holds, with mu held, and reports whether it is. A lock file
// another server holds means that server listens at the path now, and
// this one leaves the socket alone.
func (s *server) relockLocked() bool {
	lockName := filepath.Base(s.socket) + ".lock"
	if held, err := wire.FileIDOf(s.lockFile); err == nil {
		if now, err := s.dir().ID(lockName); err == nil && now == held {
			return true
		}
	}
	f, err := lockServer(s.dir(), s.socket, 0, s.lockPid())
	if err != nil {
		s.logf("the lock file %s.lock is not this server's any more, and: %v; this server is out of reach but for the clients attached", s.socket, err)
		return false
	}
	old := s.lockFile
	s.lockFile = f
	old.Close()
	s.logf("%s.lock was not this server's lock file: made it again", s.socket)
	return true
}

// listener is the listener the accept loop serves; relisten replaces it.
func (s *server) listener() *net.UnixListener {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ln
}
