package mux

import (
	"runtime/debug"
	"sync"
	"time"
)

// Output passes through short-lived buffers (read arenas, the model's
// pending chunks, client queues), and the Go runtime keeps freed pages for
// a long while: a server that once carried a cat of a big log would stay
// that size while idle. So once a burst is over the server hands them back.
const (
	releaseBurst = 8 << 20 // output since the last release that makes one worth it
	releaseAfter = 250 * time.Millisecond
)

// memoryRelease is the server's pending release. It is armed by a session
// going quiet, not by a ticker, so an idle server has nothing to wake for.
type memoryRelease struct {
	mu       sync.Mutex
	timer    *time.Timer
	released int64 // Server.output at the last release
}

// outputQuiet is called when a session's PTY goes quiet (its reader parks
// or ends). After a burst it arms a release, pushed back by each quiet
// session that follows, so that one release follows the last of them.
func (s *Server) outputQuiet() {
	r := &s.release
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.output.Load()-r.released < releaseBurst {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(releaseAfter, s.releaseMemory)
	} else {
		r.timer.Reset(releaseAfter)
	}
}

// releaseMemory waits while a model is still behind: the output it has yet
// to draw is live until then, and a release made first would leave those
// pages with the runtime.
func (s *Server) releaseMemory() {
	r := &s.release
	if s.modelsBehind() {
		r.mu.Lock()
		r.timer.Reset(releaseAfter)
		r.mu.Unlock()
		return
	}
	out := s.output.Load()
	debug.FreeOSMemory()
	r.mu.Lock()
	r.released = out
	r.mu.Unlock()
}

// modelsBehind reports whether any session's screen model has output yet
// to draw.
func (s *Server) modelsBehind() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.model.lag.Load() > 0 {
			return true
		}
	}
	return false
}
