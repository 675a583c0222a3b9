package mux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"wr/ptyproc"
	"wr/screen"
	"wr/wire"
)

func (s *server) handleNew(conn *net.UnixConn, req wire.New) {
	ss, _, werr := s.getOrCreate(req.Name, true, true, req.Config)
	if werr != nil {
		s.reply(conn, wire.TypeError, *werr)
		return
	}
	ss.run()
	s.reply(conn, wire.TypeOK, wire.OK{Names: []string{req.Name}})
}

func (s *server) handleList(conn *net.UnixConn, req wire.List) {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for name, ss := range s.sessions {
		if (len(req.Names) == 0 || slices.Contains(req.Names, name)) && (!req.Page || name > req.After) {
			all = append(all, ss)
		}
	}
	s.mu.Unlock()
	infos := make([]wire.SessionInfo, 0, len(all))
	for _, ss := range all {
		infos = append(infos, ss.info())
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	reply := wire.Sessions{Sessions: infos}
	if req.Page {
		reply.Sessions, reply.More = firstPage(infos)
	}
	s.reply(conn, wire.TypeSessions, reply)
}

// listPage is about how much of a frame a page of sessions takes.
const listPage = wire.MaxPayload / 2

// firstPage is the sessions of infos that fit in a page (at least one),
// and whether any are left.
func firstPage(infos []wire.SessionInfo) ([]wire.SessionInfo, bool) {
	size := 0
	for i, in := range infos {
		b, _ := json.Marshal(in)
		size += len(b) + 1
		if size > listPage && i > 0 {
			return infos[:i], true
		}
	}
	return infos, false
}

// lookup finds a session or answers the request with an error.
func (s *server) lookup(conn net.Conn, name string) *session {
	if wire.CheckName(name) != nil {
		s.replyErr(conn, wire.CodeBadName, "invalid session name %q: %s", name, wire.NameRule)
		return nil
	}
	s.mu.Lock()
	ss := s.sessions[name]
	s.mu.Unlock()
	if ss == nil {
		s.replyErr(conn, wire.CodeNoSession, "no session named %s", name)
	}
	return ss
}

// lookupID finds the session whose WR_SESSION_ID is id, or nil: the
// session a shell runs in, whatever it is called now.
func (s *server) lookupID(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.sessionID() == id {
			return ss
		}
	}
	return nil
}

// lookupRunning is lookup for a request that needs the session's program
// (a send): an exited session has none, and the reply says how to see it.
func (s *server) lookupRunning(conn net.Conn, name string) *session {
	ss := s.lookup(conn, name)
	if ss != nil && ss.exited.Load() {
		s.replyErr(conn, wire.CodeNoSession, "session %s has exited (code %d); wr attach %s shows its last screen", name, ss.code, name)
		return nil
	}
	return ss
}

// handleSend is the one-frame send of protocol 1.0 clients (and of a
// 1.1 client's fallback): the same as a streamed send of one Data frame.
func (s *server) handleSend(conn *net.UnixConn, req wire.Send) {
	ss := s.lookupRunning(conn, req.Name)
	if ss == nil {
		return
	}
	s.sendBytes(conn, ss, req.Data, req.TimeoutMS)
}

// handleSendKeys types named keys, encoded as the program's current modes
// expect (application cursor keys when it turned them on): the server
// knows the modes from its screen model, which has seen everything the
// program wrote.
func (s *server) handleSendKeys(conn *net.UnixConn, req wire.SendKeys) {
	ss := s.lookupRunning(conn, req.Name)
	if ss == nil {
		return
	}
	modes := ss.keyModes()
	var b []byte
	for _, k := range req.Keys {
		var err error
		if b, err = wire.AppendKey(b, k, modes); err != nil {
			s.replyErr(conn, wire.CodeBadKey, "unknown key %q: the keys are %s", k, wire.KeyNames)
			return
		}
	}
	s.sendBytes(conn, ss, b, req.TimeoutMS)
}

// sendBytes writes data to ss's PTY as one send, holding its send turn.
func (s *server) sendBytes(conn *net.UnixConn, ss *session, data []byte, timeoutMS int64) {
	op := newSendOp(ss, int64(len(data)), timeoutMS)
	if !ss.sendTurn().lockBy(op.deadline) {
		s.sendFailed(conn, op, errSendBusy)
		return
	}
	defer ss.sendTurn().unlock()
	if _, err := op.Write(data); err != nil {
		s.sendFailed(conn, op, err)
		return
	}
	s.reply(conn, wire.TypeOK, wire.OK{Names: []string{ss.name()}, Bytes: op.written})
}

// handleDetachClients detaches every client of the sessions named (all
// found first: a name that is not there fails the request and detaches
// nothing), or of the session whose WR_SESSION_ID is req.ID.
func (s *server) handleDetachClients(conn *net.UnixConn, req wire.DetachClients) {
	var targets []*session
	if req.ID != "" {
		ss := s.lookupID(req.ID)
		if ss == nil {
			s.replyErr(conn, wire.CodeNoSession, "the session this shell runs in has ended")
			return
		}
		targets = append(targets, ss)
	}
	for _, name := range req.Names {
		ss := s.lookup(conn, name)
		if ss == nil {
			return
		}
		targets = append(targets, ss)
	}
	names := make([]string, 0, len(targets))
	for _, ss := range targets {
		n := ss.detachClients(nil)
		s.logf("session %s: %d clients detached by wr detach", ss.name(), n)
		names = append(names, ss.name())
	}
	s.reply(conn, wire.TypeOK, wire.OK{Names: names})
}

// handleRename moves a session to a new name in the registry. Everything
// that holds the session itself (attached clients, a blocked wr wait, a
// kill in progress) is unaffected; the clients are told the new name.
func (s *server) handleRename(conn *net.UnixConn, req wire.Rename) {
	for _, n := range []string{req.Old, req.New} {
		if wire.CheckName(n) != nil {
			s.replyErr(conn, wire.CodeBadName, "invalid session name %q: %s", n, wire.NameRule)
			return
		}
	}
	s.mu.Lock()
	ss := s.sessions[req.Old]
	_, taken := s.sessions[req.New]
	switch {
	case ss == nil:
		s.mu.Unlock()
		s.replyErr(conn, wire.CodeNoSession, "no session named %s", req.Old)
		return
	case req.New == req.Old:
	case taken:
		s.mu.Unlock()
		s.replyErr(conn, wire.CodeExists, "a session named %s already exists", req.New)
		return
	default:
		delete(s.sessions, req.Old)
		s.sessions[req.New] = ss
		ss.setName(req.New)
		s.logf("session %s renamed %s", req.Old, req.New)
	}
	s.mu.Unlock()
	ss.renamed()
	s.reply(conn, wire.TypeOK, wire.OK{Names: []string{req.New}})
}

// handleSendStream writes a text of any size to the PTY as it arrives in
// Data frames. The session's send turn is held throughout, so no other
// send's bytes come between; each frame is written whole under the input
// turn, so typed input comes only between two frames. The timeout bounds
// everything (the wait for the turn, the reads from the client, the writes
// to the PTY): a send to a program that does not read gives up, and so
// does one waiting behind it.
func (s *server) handleSendStream(conn *net.UnixConn, req wire.SendStream) {
	ss := s.lookupRunning(conn, req.Name)
	if ss == nil {
		return
	}
	s.up.doing(conn, fmt.Sprintf("a wr send is still streaming into session %s", ss.name()))
	op := newSendOp(ss, req.Size, req.TimeoutMS)
	if !op.deadline.IsZero() {
		_ = conn.SetReadDeadline(op.deadline)
	}
	if !ss.sendTurn().lockBy(op.deadline) {
		s.sendFailed(conn, op, errSendBusy)
		return
	}
	defer ss.sendTurn().unlock()
	_, next, err := wire.ReadData(wire.NewReader(conn), op)
	switch {
	case op.err != nil:
		s.sendFailed(conn, op, op.err)
	case err == nil && next == nil:
		s.reply(conn, wire.TypeOK, wire.OK{Names: []string{req.Name}, Bytes: op.written})
	case next != nil:
		s.replyErr(conn, wire.CodeBadFrame, "unexpected %s in the text of a send (%d bytes written)", next.Type, op.written)
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.sendFailed(conn, op, errClientSlow)
	case errors.Is(err, wire.ErrFrameTooLarge), errors.Is(err, wire.ErrBadPayload):
		s.replyErr(conn, wire.CodeBadFrame, "the text of the send came in a frame too large or malformed to read (%d bytes written)", op.written)
	default:
		// The client went away: nobody is left to tell.
		s.logf("send to %s: %v after %d bytes", req.Name, err, op.written)
	}
}

var (
	errSendBusy   = errors.New("an earlier send to it still holds its input")
	errClientSlow = errors.New("the text did not arrive in time")
)

// sendOp writes one send's text to a session's PTY, by its deadline,
// counting what the program took. It is the io.Writer ReadData feeds.
type sendOp struct {
	ss       *session
	size     int64 // -1: not known
	timeout  time.Duration
	deadline time.Time // zero: none
	written  int64
	err      error // the PTY write that failed
	// ends are the bytes that end a line while the program reads lines
	// (nil: it does not), and line how long the line being sent is so far
	// (what the kernel held of it before this send is not known).
	ends []byte
	line int
}

func newSendOp(ss *session, size, timeoutMS int64) *sendOp {
	op := &sendOp{ss: ss, size: size}
	if timeoutMS > 0 {
		op.timeout = time.Duration(timeoutMS) * time.Millisecond
		op.deadline = time.Now().Add(op.timeout)
	}
	return op
}

func (op *sendOp) Write(b []byte) (int, error) {
	if err := op.checkLines(b); err != nil {
		op.err = err
		return 0, err
	}
	n, err := op.ss.writePTYBy(b, op.deadline)
	op.written += int64(n)
	if err != nil {
		op.err = err
	}
	return n, err
}

// errLongLine is a send with a line longer than a program reading lines is
// given: the kernel would keep its first MaxLine bytes and drop the rest,
// and the send would have said it was all written.
var errLongLine = fmt.Errorf("a line is longer than the %d bytes a program reading lines is given (its terminal is in canonical mode, and the rest would be dropped)", ptyproc.MaxLine)

// checkLines refuses b, before any of it is written, if it makes a line
// longer than the program can be given. A send of one frame is refused
// whole; a stream, from the chunk that holds the long line.
func (op *sendOp) checkLines(b []byte) error {
	// Read for each chunk: a program may leave canonical mode, or enter
	// it, while a stream goes in.
	if op.ends = op.ss.proc.LineEnds(); op.ends == nil {
		op.line = 0
		return nil
	}
	n := op.line
	for _, c := range b {
		if bytes.IndexByte(op.ends, c) >= 0 {
			n = 0
		} else if n++; n > ptyproc.MaxLine {
			return errLongLine
		}
	}
	op.line = n
	return nil
}

// sendFailed answers a send that failed with err: a timeout says how much
// of the text the program took.
func (s *server) sendFailed(conn net.Conn, op *sendOp, err error) {
	name := op.ss.name()
	why := ""
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		why = "the program is not reading its input"
	case errors.Is(err, errInputBusy), errors.Is(err, errSendBusy):
		why = err.Error() + " (the program is not reading it)"
	case errors.Is(err, errClientSlow):
		why = err.Error()
	case errors.Is(err, errLongLine):
		s.replyErr(conn, wire.CodeLongLine, "send to %s: %v; %d bytes written", name, err, op.written)
		return
	default:
		s.replyErr(conn, wire.CodeNoSession, "send to %s: %v (%d bytes written)", name, err, op.written)
		return
	}
	count := fmt.Sprintf("%d bytes", op.written)
	if op.size >= 0 {
		count = fmt.Sprintf("%d of %d bytes", op.written, op.size)
	}
	s.reply(conn, wire.TypeError, wire.Error{
		Code:    wire.CodeTimeout,
		Message: fmt.Sprintf("send to %s timed out after %v: %s written; %s", name, op.timeout, count, why),
		Written: op.written,
	})
}

// handleCapture renders the screen. A client that asks for a stream gets
// the text in Data frames and End, so a capture of any size arrives; an
// older client gets one Screen, or an error when that would pass the cap.
func (s *server) handleCapture(conn *net.UnixConn, req wire.Capture) {
	ss := s.lookup(conn, req.Name)
	if ss == nil {
		return
	}
	text := ss.capture(screen.TextOptions{ANSI: req.ANSI, Scrollback: req.Scrollback})
	if req.Stream {
		if err := wire.WriteData(conn, text, captureChunk); err != nil {
			s.logf("capture of %s: %v", req.Name, err)
		}
		return
	}
	// reply turns a screen too large for one frame into an error reply.
	s.reply(conn, wire.TypeScreen, wire.Screen{Text: string(text)})
}

// captureChunk is the most of a capture one Data frame carries.
const captureChunk = 256 << 10

// handleWait answers with the session's code once it has ended: at once
// for an exited session. Either way the code has been seen, so an exited
// session is collected, before the reply goes out (once wr wait has its
// code, wr ls no longer lists the session).
func (s *server) handleWait(conn *net.UnixConn, req wire.Wait) {
	ss := s.lookup(conn, req.Name)
	if ss == nil {
		return
	}
	s.waitOn(conn, ss)
}

// waitOn answers conn with the session's code once it ends. An upgrade
// hands the waiting connection over (upgrade.go).
func (s *server) waitOn(conn *net.UnixConn, ss *session) {
	s.up.waiting(conn, ss)
	defer s.up.waited(conn)
	// A client that stops waiting (wr wait --timeout) closes the
	// connection: nobody will see the code, so the session is not
	// collected for it. It sends nothing more, so a read returns only then.
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = conn.Read(b[:])
		close(gone)
	}()
	select {
	case <-ss.done:
	case <-gone:
		return
	}
	// The code is collected only once it was written to a client still
	// there: one that gave up as the session ended must not take it away
	// from the next wr wait.
	select {
	case <-gone:
		return
	default:
	}
	if s.reply(conn, wire.TypeExited, wire.Exited{Code: ss.code}) {
		s.collect(ss, "seen by wr wait")
	}
}

// handleKill ends the sessions named, or all of them, or removes every
// exited one. An exited session has no process to sweep: it is only
// removed.
func (s *server) handleKill(conn *net.UnixConn, req wire.Kill) {
	var targets []*session
	var missing []string
	s.mu.Lock()
	switch {
	case req.Exited:
		for _, ss := range s.sessions {
			if ss.exited.Load() {
				targets = append(targets, ss)
			}
		}
	case req.All:
		for _, ss := range s.sessions {
			targets = append(targets, ss)
		}
	default:
		// Those named that exist are killed, as kill(1) and rm go on past
		// a name they cannot find: a script's wr kill build test must not
		// leave test running because build was collected already.
		for _, name := range req.Names {
			if wire.CheckName(name) != nil {
				s.mu.Unlock()
				s.replyErr(conn, wire.CodeBadName, "invalid session name %q: %s", name, wire.NameRule)
				return
			}
			if ss := s.sessions[name]; ss != nil {
				if !slices.Contains(targets, ss) {
					targets = append(targets, ss)
				}
			} else if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
	}
	s.mu.Unlock()
	ended := s.end(targets, "removed by wr kill")
	if len(missing) > 0 {
		msg := "no session named " + strings.Join(missing, ", no session named ")
		if len(ended) > 0 {
			msg += " (" + strings.Join(ended, ", ") + " ended)"
		}
		s.replyErr(conn, wire.CodeNoSession, "%s", msg)
		return
	}
	s.reply(conn, wire.TypeOK, wire.OK{Names: ended})
}

// end kills the running sessions of targets and removes the exited ones,
// and returns all their names, sorted. A target that ended by itself and
// was kept just before its kill is removed too: it was asked to go.
func (s *server) end(targets []*session, why string) []string {
	var running []*session
	for _, ss := range targets {
		if !ss.exited.Load() {
			running = append(running, ss)
		}
	}
	if len(running) > 0 {
		s.killSessions(running)
	}
	names := make([]string, 0, len(targets))
	for _, ss := range targets {
		s.collect(ss, why)
		names = append(names, ss.name())
	}
	sort.Strings(names)
	return names
}

func (s *server) handleStop(conn net.Conn) {
	s.mu.Lock()
	s.draining = true // no new sessions from here on
	targets := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		targets = append(targets, ss)
	}
	s.mu.Unlock()
	s.reply(conn, wire.TypeOK, wire.OK{Names: s.end(targets, "removed by wr server stop")})
	s.shutdown()
}

// handleEnv answers wr env: the refreshed variables of the client that
// last acted in the session (agent.go).
func (s *server) handleEnv(conn *net.UnixConn, req wire.Env) {
	var ss *session
	if req.ID != "" {
		if ss = s.lookupID(req.ID); ss == nil {
			s.replyErr(conn, wire.CodeNoSession, "the session this shell runs in has ended")
			return
		}
	} else if ss = s.lookup(conn, req.Name); ss == nil {
		return
	}
	ss.mu.Lock()
	vars := ss.env
	ss.mu.Unlock()
	s.reply(conn, wire.TypeEnvVars, wire.EnvVars{Vars: vars})
}
