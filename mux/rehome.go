package mux

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"wr/wire"
)

// A server whose socket directory went away makes it again. The default
// directory is under $XDG_RUNTIME_DIR, which logind empties and unmounts
// at a user's last logout (a dropped ssh link is one, ten seconds later)
// while the server and its sessions run on (KillUserProcesses=no,
// Debian's default): the next login's wr found a fresh directory, started
// a second server, and every session of the first was out of reach for
// good. The server notices the directory gone (its watch says so, or its
// path leads elsewhere a moment after its socket was removed: a detached
// mount sends no event), then waits for the directory's parent to be back
// (the next login's runtime directory) and makes the directory, the lock
// and the socket in it, before a client of that login would start a
// server there. It looks every rehomeEvery for rehomeFastFor, then every
// rehomeSlowEvery. If a server got there first, this one stays out of
// reach but for the clients attached, and says so in its log.

// homeChecks are the waits, one after the other, before each look
// whether the directory went, after something in it was removed.
var homeChecks = []time.Duration{300 * time.Millisecond, 3 * time.Second}

const (
	oldDirGrace     = time.Minute
	rehomeEvery     = 100 * time.Millisecond
	rehomeFastFor   = time.Minute
	rehomeSlowEvery = time.Second
)

// checkHomeSoon looks, a moment after something in the directory was
// removed, and again a while later, whether the directory itself went:
// logind removes what is in it, then detaches the mount, and the watch
// sees only the first.
func (s *server) checkHomeSoon() {
	if !s.homeCheck.CompareAndSwap(false, true) {
		return
	}
	var look func(later []time.Duration)
	look = func(later []time.Duration) {
		if s.dir().Gone() {
			s.homeGone()
		}
		if len(later) == 0 {
			s.homeCheck.Store(false)
			return
		}
		time.AfterFunc(later[0], func() { look(later[1:]) })
	}
	time.AfterFunc(homeChecks[0], func() { look(homeChecks[1:]) })
}

// homeGone starts making the directory again, once; it takes no lock.
func (s *server) homeGone() {
	if s.activated || !s.rehoming.CompareAndSwap(false, true) {
		return
	}
	s.logf("the socket directory %s is gone; the server makes it again as soon as %s is there", s.dir().Path(), filepath.Dir(s.dir().Path()))
	go func() {
		defer s.rehoming.Store(false)
		start := time.Now()
		for !s.rehome() {
			wait := rehomeEvery
			if time.Since(start) > rehomeFastFor {
				wait = rehomeSlowEvery
			}
			select {
			case <-time.After(wait):
			case <-s.stopped:
				return
			}
		}
	}()
}

// rehome makes the socket's directory, lock and socket again, and reports
// whether it is done: true too when there is nothing left to do (the
// server stops, the directory is back as it was, another server serves
// the path now); false to try again later.
func (s *server) rehome() bool {
	if s.activated {
		return true // systemd's socket: not this server's to bind
	}
	if _, err := os.Stat(filepath.Dir(filepath.Dir(s.socket))); err != nil {
		return false // the parent is not back (a runtime directory before the next login)
	}
	if !s.up.mu.TryLock() {
		return false // an upgrade hands the listener over; after it
	}
	defer s.up.mu.Unlock()
	s.mu.Lock()
	if s.stopping || !s.dir().Gone() {
		s.mu.Unlock()
		return true
	}
	dir, err := wire.PrepareDir(s.socket)
	if err != nil {
		s.mu.Unlock()
		return false
	}
	lock, err := lockServer(dir, s.socket, 0, s.lockPid())
	if err != nil {
		dir.Close()
		s.mu.Unlock()
		if errors.Is(err, ErrRunning) {
			s.logf("another server serves %s now; this one is out of reach but for the clients attached to it", s.socket)
			return true
		}
		return false
	}
	name := filepath.Base(s.socket)
	ln, err := listen(dir, name, s.socket)
	if err != nil {
		lock.Close()
		dir.Close()
		s.mu.Unlock()
		s.logf("made %s again but cannot listen there: %v", dir.Path(), err)
		return false
	}
	// The old directory is closed a while later: a goroutine may be
	// using it now (an agent link being pointed). Open, it would keep a
	// detached mount, and what was made in it, alive.
	old := s.dir()
	time.AfterFunc(oldDirGrace, func() { old.Close() })
	s.dirP.Store(dir)
	oldLock := s.lockFile
	s.lockFile = lock
	oldLock.Close()
	s.serveOnLocked(ln)
	sessions := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()

	s.moveLog(dir)
	s.watchDir()
	// The agent links went with the directory: each running session's
	// is made again, pointing where it pointed.
	for _, ss := range sessions {
		ss.mu.Lock()
		if !ss.exited.Load() {
			target := ss.agentTarget
			ss.agentTarget = ""
			ss.pointAgentLocked(target)
		}
		ss.mu.Unlock()
	}
	s.logf("made the socket directory %s again; listening on %s", dir.Path(), s.socket)
	return true
}

// moveLog points the server's log (when it is a daemon's, serverLog) at
// dir, opening the log file there again.
func (s *server) moveLog(dir *wire.Dir) {
	if l, ok := s.log.Writer().(interface{ rehome(*wire.Dir) }); ok {
		l.rehome(dir)
	}
}

// reopenLog makes the log file again if it was removed, in the directory
// as it is.
func (s *server) reopenLog() {
	if l, ok := s.log.Writer().(interface{ reopenIfGone() }); ok {
		l.reopenIfGone()
	}
}
