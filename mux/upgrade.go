package mux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"wr/wire"
)

// wr server upgrade: the server hands itself over to a new binary in its
// own process (handoff.go has the state that crosses, handoff_linux.go the
// exec). Before anything is written down, everything that moves is held
// at a clean point, in this order:
//
//  1. accepting (the listener's deadline; the accept loop waits in
//     awaitUpgrade; connections that arrive meanwhile wait in the backlog,
//     which the new server accepts from);
//  2. the PTY readers, each between two chunks, with everything it read
//     fanned out (holdForUpgrade, at the top of readLoop); a parked PTY
//     stays parked, and one the watcher wakes meanwhile is held at once;
//     reaping too (waitLoop's awaitUpgrade), so the new server reaps;
//  3. each attached client's input, between two frames as far as the
//     session is concerned: the connection's read deadline stops its
//     reader, which keeps the bytes of a partly read frame (wire.Reader's
//     Pending); then what its input classifier holds (an unfinished
//     sequence, an open bracketed paste) is written down to cross, and a
//     pending lone-ESC timer is stopped (the new server, or resume, starts
//     it again);
//  4. each client's writer, between two writes: what it had not written
//     of a batch, and the queue, cross as bytes owed to the connection,
//     so the stream stays frame-aligned (writeHeld).
//
// Any failure before the exec undoes the holds in the reverse order
// (resume), and the server serves on as if nothing happened.

// readHeld is the reader state of a session whose reader an upgrade holds:
// resume starts it again, the new server starts its own.
const readHeld = readDone + 1

// Bounds on the hold: past them the upgrade gives up and says why.
const (
	holdReadersMax = 3 * time.Second // a session ending drains for up to drainMax
	holdInputMax   = time.Second     // a paste the program is slow to take
	holdWritersMax = time.Second
	// A request under way when accepting stops (wr ls, an attach being
	// registered) is let finish; one that takes longer than this (a
	// streaming wr send) refuses the upgrade: its connection is not
	// handed over, and the rest of its request would be lost.
	holdRequestsMax = time.Second
	holdPoll        = 200 * time.Microsecond
)

// upgradeState is the server's part in an upgrade.
type upgradeState struct {
	mu sync.Mutex // held for a whole upgrade: one at a time
	// relistenOwed: relisten was asked for while an upgrade held mu
	// (relisten.go); a failed upgrade does it.
	relistenOwed atomic.Bool
	// gate, while not nil, is closed when the hold ends (resume): the
	// accept loop, held readers of input and reaping wait on it. Stored
	// before anything is held, cleared by resume once everything goes on.
	gate atomic.Pointer[chan struct{}]
	// readersHeld holds the PTY readers: set once the requests under way
	// are over, so output flows while they finish.
	readersHeld atomic.Bool
	// acceptHeld is set by the accept loop once it stopped accepting:
	// every connection it accepted has been counted (begin) by then.
	acceptHeld atomic.Bool

	parkedMu sync.Mutex
	parked   map[*client][]byte          // clients whose input reader is held, with the bytes it had read
	inputs   map[*client]classifierState // what each held client's classifier holds

	// connMu guards the connections below. requests is every connection
	// between its accept and the end of its request, or until it settles
	// into a state a hand-off carries (attached, waiting, the upgrade's
	// own), with what it is doing: an upgrade lets them finish before it
	// holds anything. waiters is every wr wait waiting, with its session.
	connMu   sync.Mutex
	requests map[*net.UnixConn]string
	waiters  map[*net.UnixConn]*session
}

// begin records a connection whose request is under way.
func (u *upgradeState) begin(conn *net.UnixConn) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	if u.requests == nil {
		u.requests = map[*net.UnixConn]string{}
	}
	u.requests[conn] = "a connection is still in its handshake"
}

// doing records what a connection's request is, to name it if it
// refuses an upgrade.
func (u *upgradeState) doing(conn *net.UnixConn, what string) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	if _, ok := u.requests[conn]; ok {
		u.requests[conn] = what
	}
}

// settle records that the connection's request is over, or that it is in
// a state a hand-off carries. It may be called more than once.
func (u *upgradeState) settle(conn *net.UnixConn) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	delete(u.requests, conn)
}

// pendingRequests counts the connections begin recorded and settle did
// not, and names one of them.
func (u *upgradeState) pendingRequests() (int, string) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	one := ""
	for _, what := range u.requests {
		if one == "" || what < one {
			one = what
		}
	}
	return len(u.requests), one
}

// waiting records a wr wait on ss; waited, its end.
func (u *upgradeState) waiting(conn *net.UnixConn, ss *session) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	delete(u.requests, conn)
	if u.waiters == nil {
		u.waiters = map[*net.UnixConn]*session{}
	}
	u.waiters[conn] = ss
}

func (u *upgradeState) waited(conn *net.UnixConn) {
	u.connMu.Lock()
	defer u.connMu.Unlock()
	delete(u.waiters, conn)
}

// awaitUpgrade waits while an upgrade holds the server; it returns at once
// otherwise. After a successful upgrade it never returns (the exec ends
// the process's goroutines).
func (s *server) awaitUpgrade() {
	if g := s.up.gate.Load(); g != nil {
		<-*g
	}
}

// holdForUpgrade is the PTY reader's, between two chunks: while an upgrade
// holds the server it leaves the reader held and reports true, and the
// reader returns. A session whose child has exited is not held: it drains
// and ends, and the upgrade waits for that.
func (ss *session) holdForUpgrade() bool {
	if !ss.srv.up.readersHeld.Load() || ss.exitedAt.Load() != 0 {
		return false
	}
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	// Again under readMu: resume clears it before it looks for held
	// readers to start.
	if !ss.srv.up.readersHeld.Load() {
		return false
	}
	ss.reader = readHeld
	return true
}

// inputHeld is an attached client's reader's, on a read error: a deadline
// an upgrade set stops it, with the bytes of any frame it was part way
// through kept in fr. It waits while the upgrade lasts and reports true
// (read on), or false for any other error.
func (s *server) inputHeld(c *client, fr *wire.Reader, err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	g := s.up.gate.Load()
	if g == nil {
		// An upgrade that gave up cleared the deadline just after it
		// passed: read on.
		return true
	}
	s.up.parkedMu.Lock()
	if s.up.parked != nil {
		s.up.parked[c] = fr.Pending()
	}
	s.up.parkedMu.Unlock()
	<-*g
	return true
}

// frameSource is what the client's frames are read from: after a
// hand-off, first the bytes the old server had read and not handled.
func (c *client) frameSource() io.Reader {
	if len(c.carriedIn) > 0 {
		in := c.carriedIn
		c.carriedIn = nil
		return io.MultiReader(bytes.NewReader(in), c.reader())
	}
	return c.reader()
}

// writeHeld is the writer's, on a write error: a deadline an upgrade set
// interrupts a write the client is slow to take. What the write had not
// written of bufs goes back to the front of the queue, as the rest of a
// frame (no header: the peer has it), and the writer, held, reports true.
func (c *client) writeHeld(err error, bufs net.Buffers, written int64) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	rest := unwritten(bufs, written)
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if len(rest) > 0 {
		c.queue = append([]frame{{t: wire.TypeOutput, p: rest, rest: true}}, c.queue...)
	}
	c.writing = false
	if !c.held {
		// An upgrade that gave up cleared the deadline just after it
		// passed: the writer goes on with the queue.
		c.wakeWriter()
	}
	return true
}

// unwritten is a copy of what a write of bufs that wrote n bytes left
// unwritten: the end of the frame it was part way through, and the frames
// after it.
func unwritten(bufs net.Buffers, n int64) []byte {
	var rest []byte
	for _, b := range bufs {
		if n >= int64(len(b)) {
			n -= int64(len(b))
			continue
		}
		rest = append(rest, b[n:]...)
		n = 0
	}
	return rest
}

// upgradeHold is what quiesce held, for resume to undo.
type upgradeHold struct {
	at       time.Time // when the PTY readers were told to stop: output stands still from here
	sessions []*session
	clients  []*client  // every attached client whose input and writer are held
	reaping  []*session // sessions whose reapMu is held, so no child is reaped before the exec
	waiters  []*net.UnixConn
	check    bool // only for the new binary's check: nothing is held
}

// quiesce holds the server as the top of this file says, and returns what
// it held; on an error what it held is still returned, for resume.
func (s *server) quiesce() (*upgradeHold, error) {
	h := &upgradeHold{}
	s.up.parkedMu.Lock()
	s.up.parked = map[*client][]byte{}
	s.up.inputs = map[*client]classifierState{}
	s.up.parkedMu.Unlock()
	gate := make(chan struct{})
	s.up.gate.Store(&gate)
	s.up.acceptHeld.Store(false)
	_ = s.ln.SetDeadline(time.Now())
	for deadline := time.Now().Add(holdRequestsMax); !s.up.acceptHeld.Load(); {
		if time.Now().After(deadline) {
			return h, errors.New("the server did not stop accepting connections")
		}
		time.Sleep(holdPoll)
	}
	for deadline := time.Now().Add(holdRequestsMax); ; {
		n, what := s.up.pendingRequests()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			// Its connection is not handed over: the exec would cut it.
			if n > 1 {
				what = fmt.Sprintf("%s (and %d more requests)", what, n-1)
			}
			return h, errors.New(what)
		}
		time.Sleep(holdPoll)
	}

	s.mu.Lock()
	if s.stopping || s.draining {
		s.mu.Unlock()
		return h, errors.New("the server is stopping")
	}
	for _, ss := range s.sessions {
		h.sessions = append(h.sessions, ss)
	}
	s.mu.Unlock()

	// 2. The PTY readers, and sessions that are ending.
	h.at = time.Now()
	s.up.readersHeld.Store(true)
	for _, ss := range h.sessions {
		ss.kickReader() // one waiting without a deadline (setReadDeadline)
	}
	deadline := time.Now().Add(holdReadersMax)
	for _, ss := range h.sessions {
		for !ss.heldStill() {
			if ss.killed.Load() {
				return h, fmt.Errorf("session %s is being killed", ss.name())
			}
			if time.Now().After(deadline) {
				return h, fmt.Errorf("session %s did not stop reading its output (it may be ending)", ss.name())
			}
			time.Sleep(holdPoll)
		}
	}

	// A drawn client's pending frame is let go out (the readers being
	// held, it is the last), so that its view is up to date and crosses;
	// one still pending is drawn afresh by the new server.
	deadline = time.Now().Add(frameInterval * 4)
	for _, ss := range h.sessions {
		for ss.framePending() && time.Now().Before(deadline) {
			time.Sleep(holdPoll)
		}
	}

	// 3. Input. A client that leaves meanwhile is left out.
	var live []*session
	for _, ss := range h.sessions {
		if !ss.exited.Load() {
			live = append(live, ss)
		}
	}
	now := time.Now()
	for _, ss := range live {
		ss.mu.Lock()
		for _, c := range ss.order {
			_ = c.conn.SetReadDeadline(now)
		}
		ss.mu.Unlock()
	}
	deadline = time.Now().Add(holdInputMax)
	for _, ss := range live {
		for {
			ss.mu.Lock()
			waiting := ""
			for _, c := range ss.order {
				s.up.parkedMu.Lock()
				_, ok := s.up.parked[c]
				s.up.parkedMu.Unlock()
				if !ok {
					waiting = fmt.Sprintf("client %d of session %s", c.id, ss.name())
					break
				}
			}
			ss.mu.Unlock()
			if waiting == "" {
				break
			}
			if time.Now().After(deadline) {
				return h, fmt.Errorf("the input of %s is not handled yet (is the program reading it?)", waiting)
			}
			time.Sleep(holdPoll)
		}
	}
	for _, ss := range live {
		ss.mu.Lock()
		clients := append([]*client(nil), ss.order...)
		ss.mu.Unlock()
		for _, c := range clients {
			if err := s.holdClassifier(ss, c, deadline); err != nil {
				return h, err
			}
		}
	}

	// 4. Writers.
	for _, ss := range live {
		ss.mu.Lock()
		h.clients = append(h.clients, ss.order...)
		ss.mu.Unlock()
	}
	now = time.Now()
	for _, c := range h.clients {
		c.queueMu.Lock()
		c.held = true
		c.queueMu.Unlock()
		_ = c.conn.SetWriteDeadline(now)
		c.wakeWriter()
	}
	deadline = time.Now().Add(holdWritersMax)
	for _, c := range h.clients {
		for {
			c.queueMu.Lock()
			writing := c.writing
			c.queueMu.Unlock()
			if !writing || isClosed(c.done) {
				break
			}
			if time.Now().After(deadline) {
				return h, fmt.Errorf("client %d's writer did not stop", c.id)
			}
			time.Sleep(holdPoll)
		}
	}
	return h, nil
}

// framePending reports whether a drawn client of the session has a frame
// to come.
func (ss *session) framePending() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, c := range ss.order {
		if c.frameArmed {
			return true
		}
	}
	return false
}

// heldStill reports whether the session's PTY reader is held or parked,
// and the session is not ending: or it has ended (exited, or gone).
func (ss *session) heldStill() bool {
	select {
	case <-ss.done:
		return true
	default:
	}
	if ss.exitedAt.Load() != 0 {
		return false // draining: it ends soon
	}
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	// readDone with the child not reaped: it exited and hung up, and its
	// reaping waits for the upgrade.
	return ss.reader == readIdle || ss.reader == readHeld || ss.reader == readDone
}

// holdClassifier writes down what the client's classifier holds, for the
// hand-off, and stops its lone-ESC timer so that nothing changes it before
// the exec. Its reader being held, only the timer takes inMu: one that
// fired and waits for the program to take the ESC is waited for, up to
// deadline.
func (s *server) holdClassifier(ss *session, c *client, deadline time.Time) error {
	for !c.inMu.TryLock() {
		if time.Now().After(deadline) {
			return fmt.Errorf("the input of client %d of session %s is not handled yet (is the program reading it?)", c.id, ss.name())
		}
		time.Sleep(holdPoll)
	}
	defer c.inMu.Unlock()
	c.escGen++
	if c.escTimer != nil {
		c.escTimer.Stop()
		c.escTimer = nil
	}
	s.up.parkedMu.Lock()
	s.up.inputs[c] = c.classifier.state()
	s.up.parkedMu.Unlock()
	return nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// resume undoes quiesce: writers, input, readers, accepting, in the
// reverse order, deadlines cleared before the gate opens.
func (s *server) resume(h *upgradeHold) {
	for _, ss := range h.reaping {
		ss.reapMu.Unlock()
	}
	h.reaping = nil
	for _, c := range h.clients {
		_ = c.conn.SetWriteDeadline(time.Time{})
		c.queueMu.Lock()
		c.held = false
		c.queueMu.Unlock()
		c.wakeWriter()
	}
	for _, ss := range h.sessions {
		ss.mu.Lock()
		clients := append([]*client(nil), ss.order...)
		owner := ss.owner
		for _, c := range clients {
			_ = c.conn.SetReadDeadline(time.Time{})
		}
		ss.mu.Unlock()
		// A lone ESC whose timer the hold stopped is timed again.
		for _, c := range clients {
			if c != owner {
				c.inMu.Lock()
				if c.escTimer == nil {
					ss.armLoneESC(c)
				}
				c.inMu.Unlock()
			}
		}
	}
	_ = s.ln.SetDeadline(time.Time{})
	s.up.readersHeld.Store(false)
	g := s.up.gate.Swap(nil)
	s.up.parkedMu.Lock()
	s.up.parked = nil
	s.up.inputs = nil
	s.up.parkedMu.Unlock()
	if g != nil {
		close(*g)
	}
	for _, ss := range h.sessions {
		ss.readMu.Lock()
		if ss.reader == readHeld {
			ss.reader = readRunning
			go ss.readLoop()
		}
		ss.readMu.Unlock()
	}
}

// handleUpgrade hands the server over to req.Binary: hold, write the
// state down, have the new binary check it, exec. The reply comes from the
// new server (Upgraded); a failure before the exec is an Error reply from
// this one, which serves on.
func (s *server) handleUpgrade(conn *net.UnixConn, req wire.Upgrade) {
	if err := upgradeSupported(); err != nil {
		s.replyErr(conn, wire.CodeInternal, "%v", err)
		return
	}
	if !filepath.IsAbs(req.Binary) {
		s.replyErr(conn, wire.CodeBadFrame, "the new binary must be named by an absolute path, not %q", req.Binary)
		return
	}
	if err := executable(req.Binary); err != nil {
		s.replyErr(conn, wire.CodeInternal, "cannot run the new binary %s: %v", req.Binary, err)
		return
	}
	if !s.up.lockWithin(upgradeLockWait) {
		s.replyErr(conn, wire.CodeInternal, "another upgrade is in progress")
		return
	}
	s.up.settle(conn) // the new server answers it
	s.logf("upgrade: handing over to %s", req.Binary)
	err := s.upgrade(conn, req.Binary)
	// Only a failure comes back: a successful exec does not return.
	s.up.mu.Unlock()
	s.logf("upgrade to %s failed, serving on: %v", req.Binary, err)
	// The watch was ended for the upgrade (upgrade): make it again,
	// and look, as the watch saw nothing meanwhile.
	s.watchDir()
	s.up.relistenOwed.Store(false)
	s.relisten("the socket changed during the upgrade")
	s.replyErr(conn, wire.CodeInternal, "upgrade failed, the server serves on: %v", err)
}

// upgradeLockWait is how long an upgrade waits for upgradeState.mu: long
// enough for a relisten (microseconds), short of another upgrade.
const upgradeLockWait = 100 * time.Millisecond

// lockWithin takes mu if it can within d.
func (u *upgradeState) lockWithin(d time.Duration) bool {
	for deadline := time.Now().Add(d); !u.mu.TryLock(); {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// upgrade does the hand-off; it returns only if it failed, with
// everything as it was.
//
// The new binary's check reads a state written while the server still
// serves (the same sessions, in the same format), so that output stands
// still only while the final state is written and the exec is done.
func (s *server) upgrade(conn *net.UnixConn, binary string) error {
	start := time.Now()
	// The directory's watch goes before the hold: the exec would close
	// its inotify descriptor, and that close waits for the kernel's
	// grace period (synchronize_srcu), 10 to 20 ms inside the pause. It
	// is closed beside the check, which takes as long. A removal
	// meanwhile is seen by the new binary's look as it starts, or by the
	// watch made again if the upgrade fails (serveUpgrade).
	unwatched := make(chan struct{})
	go func() {
		s.unwatchDir()
		close(unwatched)
	}()
	err := s.precheck(conn, binary)
	<-unwatched
	if err != nil {
		return err
	}
	checked := time.Now()
	h, err := s.quiesce()
	if err != nil {
		s.resume(h)
		return err
	}
	held := time.Now()
	st, err := s.handoffState(h, conn)
	if err != nil {
		s.resume(h)
		return err
	}
	name, err := s.writeHandoff(st)
	if err != nil {
		s.resume(h)
		return err
	}
	s.logf("upgrade: checked in %v; held in %v, state written in %v",
		checked.Sub(start).Round(time.Microsecond), held.Sub(h.at).Round(time.Microsecond), time.Since(held).Round(time.Microsecond))
	err = s.execHandoff(binary, name, h, conn)
	_ = s.dir().Remove(name)
	s.resume(h)
	return err
}

// precheck writes the state of the server as it is, without holding
// anything, and has the new binary check it.
func (s *server) precheck(conn *net.UnixConn, binary string) error {
	h := &upgradeHold{at: time.Now(), check: true}
	s.mu.Lock()
	for _, ss := range s.sessions {
		h.sessions = append(h.sessions, ss)
	}
	s.mu.Unlock()
	st, err := s.handoffState(h, conn)
	for _, ss := range h.reaping {
		ss.reapMu.Unlock()
	}
	if err != nil {
		return err
	}
	name, err := s.writeHandoff(st)
	if err != nil {
		return err
	}
	defer s.dir().Remove(name)
	return checkHandoff(binary, s.socket, name)
}

// checkTimeout bounds the new binary's check.
const checkTimeout = 5 * time.Second

// checkHandoff runs the new binary in its check mode on the state file:
// it must read it and answer "wr-handoff-ok FORMAT SESSIONS" on stdout.
// The binary inherits nothing but its stdio.
func checkHandoff(binary, socket, state string) error {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "server", "check-handoff", "--socket", socket, state)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	answer := strings.TrimSpace(out.String())
	if err != nil || !strings.HasPrefix(answer, "wr-handoff-ok ") {
		why := strings.TrimSpace(errOut.String())
		if why == "" {
			why = answer
		}
		if err != nil {
			why = strings.TrimSpace(fmt.Sprintf("%v %s", err, why))
		}
		if len(why) > 300 {
			why = why[:300] + "..."
		}
		return fmt.Errorf("the new binary %s failed its check (it must be a wr that reads this server's hand-off state): %s", binary, why)
	}
	return nil
}
