package mux

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Output passes through short-lived buffers (read arenas, the model's
// pending chunks, client queues), and the Go runtime keeps freed pages for
// a long while: a server that once carried a cat of a big log would stay
// that size while idle. So once a burst is over the server hands them back.
const (
	releaseBurst = 8 << 20 // output since the last release that makes one worth it
	releaseCrowd = 64      // attached clients gone since the last release that make one worth it
	releaseAfter = 250 * time.Millisecond
)

// A client that is behind when a release is made holds what it has yet to
// write (its queue, its writer's batch: up to maxQueued), and once it has
// written it, that is garbage a quiet server may keep for good. So a
// release made while a client held at least releaseHeld is made again once
// that client has caught up, or has gone (client.owesRelease).
const releaseHeld = 256 << 10

// A crowd of clients leaves the same way: each held a reader's buffer, a
// queue and two goroutines' stacks, and a server that once had three
// thousand attached would stay that size for minutes after they left.

// memoryRelease is the server's pending release. It is armed by a session
// going quiet or a client leaving, not by a ticker, so an idle server has
// nothing to wake for.
type memoryRelease struct {
	mu       sync.Mutex   // guards the fields below; taken alone, never with another lock of mux
	timer    *time.Timer  // armed by armReleaseLocked, fires releaseMemory
	released int64        // server.output at the last release
	left     int64        // attached clients that have left
	leftMark int64        // left at the last release
	count    atomic.Int64 // releases made, for wr server status

	// starts counts the session starts whose garbage is still to be
	// given back: see sessionStarted.
	starts atomic.Int64
	// freeOS is debug.FreeOSMemory, or a test's stand-in (nil: the real one).
	freeOS func()
}

// Starting a session leaves garbage several times its own size (the
// request and the client's environment, the exec's copies of both). Left
// to the runtime it would be collected only once the heap had doubled,
// and even collected, its pages would stay with the runtime: an idle
// server of many sessions would hold them all, a few KiB a session. So
// each start is followed by a release, at once: the next session's
// objects then fill the holes this one's garbage left, not fresh spans
// among new garbage, which a release made only after a burst would find
// still in use and keep (a server of idle sessions started one after
// another held a KiB more for each). Starts that come while a release runs
// share the next one: a hundred at once pay for a few collections, not a
// hundred.
func (s *server) sessionStarted() {
	if s.release.starts.Add(1) == 1 {
		go s.releaseStarts()
	} // else the running release goes again for this one
}

// releaseStarts releases memory until no start has come during the last
// release.
func (s *server) releaseStarts() {
	r := &s.release
	free := r.freeOS
	if free == nil {
		free = debug.FreeOSMemory
	}
	for {
		n := r.starts.Load()
		free()
		if r.starts.Add(-n) == 0 {
			return
		}
	}
}

// outputQuiet is called when a session's PTY goes quiet (its reader parks
// or ends). After a burst it arms a release, pushed back by each quiet
// session that follows, so that one release follows the last of them.
func (s *server) outputQuiet() {
	r := &s.release
	r.mu.Lock()
	defer r.mu.Unlock()
	s.armReleaseLocked()
}

// clientLeft is called when an attached client leaves. After a crowd has
// left it arms a release, pushed back by each one that follows.
func (s *server) clientLeft() {
	r := &s.release
	r.mu.Lock()
	defer r.mu.Unlock()
	r.left++
	s.armReleaseLocked()
}

// armReleaseLocked arms (or pushes back) the release if enough output has passed
// or enough clients have left since the last one. Called with r.mu held.
func (s *server) armReleaseLocked() {
	r := &s.release
	if s.output.Load()-r.released < releaseBurst && r.left-r.leftMark < releaseCrowd {
		return
	}
	s.armTimerLocked()
}

// clientCaughtUp is called by a client's writer once it has written what
// it held through a release (or has stopped writing, gone): that output is
// garbage now, and goes back with the next release.
func (s *server) clientCaughtUp() {
	r := &s.release
	r.mu.Lock()
	defer r.mu.Unlock()
	s.armTimerLocked()
}

// armTimerLocked arms the release timer, or pushes it back. Called with
// r.mu held.
func (s *server) armTimerLocked() {
	r := &s.release
	if r.timer == nil {
		r.timer = time.AfterFunc(releaseAfter, s.releaseMemory)
	} else {
		r.timer.Reset(releaseAfter)
	}
}

// releaseMemory waits while a model is still behind: the output it has yet
// to draw is live until then, and a release made first would leave those
// pages with the runtime.
func (s *server) releaseMemory() {
	r := &s.release
	if s.modelsBehind() {
		r.mu.Lock()
		r.timer.Reset(releaseAfter)
		r.mu.Unlock()
		return
	}
	out := s.output.Load()
	r.mu.Lock()
	left := r.left
	r.mu.Unlock()
	debug.FreeOSMemory()
	r.count.Add(1)
	r.mu.Lock()
	r.released, r.leftMark = out, left
	r.mu.Unlock()
	// After the release, not before: a client marked here and caught up
	// since is owed the one that follows; one that caught up before the
	// mark held nothing by then.
	s.markClientsHolding(releaseHeld)
}

// markClientsHolding marks each attached client that holds at least n
// bytes of output as owing a release (client.holdsMuch).
func (s *server) markClientsHolding(n int) {
	s.mu.Lock()
	sessions := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions { // no session lock under s.mu
		ss.mu.Lock()
		for _, c := range ss.clients {
			c.holdsMuch(n)
		}
		ss.mu.Unlock()
	}
}

// modelsBehind reports whether any session's screen model has output yet
// to draw.
func (s *server) modelsBehind() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.model.lag.Load() > 0 {
			return true
		}
	}
	return false
}
