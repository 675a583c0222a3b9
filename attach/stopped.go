package attach

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrServerStopped is matched by a StoppedError.
var ErrServerStopped = errors.New("attach: the server is stopped")

// StoppedError is a server that did not greet this client because it is
// stopped (kill -STOP, or a ctrl-Z in the terminal of a `wr server run`):
// it answers nothing until it is continued, so the client says so as soon
// as it sees it instead of waiting out the greeting's 5 s, and every verb
// of a script fails at once rather than 5 s each.
type StoppedError struct {
	Socket string
	PID    int
	Traced bool // stopped by a debugger, which alone lets it go on
}

func (e *StoppedError) Error() string {
	if e.Traced {
		return fmt.Sprintf("the server on %s (pid %d) is stopped in a debugger, so it answers nothing until the debugger lets it go on", e.Socket, e.PID)
	}
	return fmt.Sprintf("the server on %s (pid %d) is stopped, so it answers nothing; `kill -CONT %d` resumes it", e.Socket, e.PID, e.PID)
}

func (e *StoppedError) Is(target error) bool { return target == ErrServerStopped }

// stoppedServer returns the error for the server holding socket's lock if
// it is stopped, or nil.
func stoppedServer(socket string) *StoppedError {
	held, pid := lockHolder(socket)
	if !held || pid <= 0 {
		return nil
	}
	if stopped, traced := processStopped(pid); stopped {
		return &StoppedError{Socket: socket, PID: pid, Traced: traced}
	}
	return nil
}

// stoppedLookEvery is how often a greeting not yet answered looks at the
// server's state: a server that is running but busy is waited for, up to
// the 5 s, and looking costs it nothing.
const stoppedLookEvery = 200 * time.Millisecond

// noticeStopped looks at the server's state, as the lock file names it,
// every stoppedLookEvery while the handshake is under way. With cutShort,
// each time it finds the server stopped it ends the connection's waits
// (again, in case a wait began since); without, it only remembers, for
// the error once the wait times out. Nothing runs until the first look is
// due: a timer, not a goroutine, so a prompt answer wakes no thread.
func (c *Conn) noticeStopped(cutShort bool) *stopWatch {
	w := &stopWatch{c: c, cutShort: cutShort}
	if c.socket == "" || !canSeeStopped {
		w.done = true // on another machine ssh bounds the wait; elsewhere, the 5 s
		return w
	}
	w.mu.Lock()
	w.t = time.AfterFunc(stoppedLookEvery, w.look)
	w.mu.Unlock()
	return w
}

// stopWatch is noticeStopped's timer and what it found.
type stopWatch struct {
	c        *Conn
	cutShort bool
	mu       sync.Mutex
	t        *time.Timer
	done     bool          // stop was called: look does nothing more
	found    *StoppedError // the server, stopped when last looked at
}

func (w *stopWatch) look() {
	serr := stoppedServer(w.c.socket)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.found = serr
	if serr != nil && w.cutShort {
		_ = w.c.c.SetDeadline(time.Now())
	}
	w.t.Reset(stoppedLookEvery)
}

// stoppedNow reports whether the server was stopped when last looked at.
func (w *stopWatch) stoppedNow() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.found != nil
}

// stop ends the looking and returns the error for the server found
// stopped, or nil.
func (w *stopWatch) stop() *StoppedError {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.t != nil {
		w.t.Stop()
	}
	return w.found
}
