package mux

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"wr/ptyproc"
	"wr/wire"
)

// The hand-off state: what an old server writes down for the new binary it
// execs in its own process. Descriptors are not in it, only their numbers:
// they cross the exec itself. It is JSON, so a newer binary reads an older
// one's state (fields it does not know are zero); handoffFormat changes
// only if a field's meaning does, and a binary refuses a format newer than
// its own in its check, before the old server execs it.

// handoffFormat is the version of the state this binary writes and the
// newest it reads.
const handoffFormat = 1

// ErrHandoff is returned by CheckHandoff for a state this binary cannot
// take over.
var ErrHandoff = errors.New("mux: cannot take over the hand-off state")

type handoffState struct {
	Format    int       `json:"format"`
	Version   string    `json:"version"` // the old server's
	Socket    string    `json:"socket"`
	Started   time.Time `json:"started"`
	Activated bool      `json:"activated"`
	ListenFD  int       `json:"listen_fd"`
	LockFD    int       `json:"lock_fd"`
	// RequestFD is the connection of the wr server upgrade that asked:
	// the new server answers it.
	RequestFD  int              `json:"request_fd"`
	NextClient int              `json:"next_client"`
	HadSession bool             `json:"had_session"`
	HeldAt     time.Time        `json:"held_at"` // when output stopped
	Sessions   []handoffSession `json:"sessions"`
	Waiters    []handoffWaiter  `json:"waiters,omitempty"`
}

// handoffWaiter is a wr wait waiting for a session to end.
type handoffWaiter struct {
	FD      int    `json:"fd"`
	Session string `json:"session"`
}

type handoffSession struct {
	Name        string            `json:"name"`
	PID         int               `json:"pid"`
	MasterFD    int               `json:"master_fd"` // -1: exited, no PTY
	Marker      string            `json:"marker"`
	AgentLink   string            `json:"agent_link,omitempty"`
	AgentTarget string            `json:"agent_target,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Created     time.Time         `json:"created"`
	Command     []string          `json:"command"`
	Cwd         string            `json:"cwd"`
	Cols        int               `json:"cols"`
	Rows        int               `json:"rows"`
	Scrollback  int               `json:"scrollback"`
	KeepNS      int64             `json:"keep_ns"`
	// Screen is the restore stream of the session's screen model:
	// scrollback, screen, modes, title. Fed to a new model of the same
	// size and scrollback, it draws the same screen.
	Screen []byte `json:"screen"`
	// Exited: the command ended with nobody attached, its code not yet
	// collected.
	Exited  bool            `json:"exited,omitempty"`
	Code    int             `json:"code,omitempty"`
	EndedAt time.Time       `json:"ended_at,omitempty"`
	Owner   int             `json:"owner,omitempty"` // the size owner's client id; 0: none
	Clients []handoffClient `json:"clients,omitempty"`
	// Shown is how far each terminal the session knows has been shown
	// the scrollback (shown.go), oldest record first.
	Shown []handoffShown `json:"shown,omitempty"`
	// Asked is the ledger of the queries terminals may still answer
	// (asked.go); the clients' records name its entries.
	Asked *askedState `json:"asked,omitempty"`
}

// handoffShown is one terminal's record: Unseen counts the scrollback
// lines, up to the newest, it has not been shown. A count of lines ever
// scrolled off (screen.ScrolledOff) is the screen's own; the new screen
// counts from the restore, so the record crosses relative to the newest
// line.
type handoffShown struct {
	Terminal string `json:"terminal"`
	Unseen   uint64 `json:"unseen"`
}

type handoffClient struct {
	ID         int               `json:"id"`
	FD         int               `json:"fd"`
	ReadOnly   bool              `json:"read_only,omitempty"`
	Record     bool              `json:"record,omitempty"`
	Since      time.Time         `json:"since"`
	Cols       int               `json:"cols"`
	Rows       int               `json:"rows"`
	Terminal   string            `json:"terminal,omitempty"`
	ScreenOnly bool              `json:"screen_only,omitempty"`
	Env        map[string]string `json:"env"` // empty is not nil (agent.go)
	Inside     string            `json:"inside,omitempty"`
	InsideAt   string            `json:"inside_at,omitempty"`
	AckExit    bool              `json:"ack_exit,omitempty"` // confirms the exit code (session.end)
	Drawn      bool              `json:"drawn,omitempty"`    // its terminal is not the session's size (view.go)
	// ViewSynced: a drawn client's terminal shows the screen as it is
	// (no frame was pending), through a viewport at ViewX, ViewY.
	ViewSynced bool `json:"view_synced,omitempty"`
	ViewX      int  `json:"view_x,omitempty"`
	ViewY      int  `json:"view_y,omitempty"`
	Lagging    bool `json:"lagging,omitempty"`
	// Out is owed to the connection before anything else: the end of the
	// frame a write had begun, then whole frames.
	Out []byte `json:"out,omitempty"`
	// In is what was read from the connection and not handled: the start
	// of the next frame, perhaps more.
	In []byte `json:"in,omitempty"`
	// Input is what its input classifier held: an unfinished sequence,
	// an open bracketed paste. Nil from a server that did not write it
	// down: the classifier starts afresh.
	Input *classifierState `json:"input,omitempty"`
}

// handoffName is the state file's name in the socket directory.
func handoffName(socket string) string { return filepath.Base(socket) + ".handoff" }

// fdOf is the descriptor number of a socket or file.
func fdOf(sc syscall.Conn) int {
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	_ = rc.Control(func(d uintptr) { fd = int(d) })
	return fd
}

// handoffState writes down the held server. Each running session's reapMu
// is taken (and kept, in h, until the exec or resume): no child is reaped
// between here and the exec, which would lose its code.
func (s *server) handoffState(h *upgradeHold, req *net.UnixConn) (*handoffState, error) {
	st := &handoffState{
		Format: handoffFormat, Version: wire.Version, Socket: s.socket,
		Started: s.started, Activated: s.activated,
		ListenFD: fdOf(s.ln), LockFD: int(s.lockFile.Fd()), RequestFD: fdOf(req),
		HeldAt: h.at,
	}
	s.mu.Lock()
	st.NextClient, st.HadSession = s.nextClient, s.hadSession
	s.mu.Unlock()
	for _, ss := range h.sessions {
		if isClosed(ss.done) && !ss.exited.Load() {
			continue // ended and gone
		}
		s.mu.Lock()
		gone := ss.exited.Load() && s.sessions[ss.name()] != ss
		s.mu.Unlock()
		if gone {
			// Collected since the hold began: an ExitSeen from a client
			// the hold does not wait for (serveAttach settles it).
			continue
		}
		hs := handoffSession{
			Name: ss.name(), PID: ss.pid, MasterFD: -1, Marker: ss.marker, AgentLink: ss.agentLink,
			Created: ss.created, Command: ss.command, Cwd: ss.cwd, KeepNS: int64(ss.keep),
		}
		if ss.exited.Load() {
			hs.Exited, hs.Code, hs.EndedAt = true, ss.code, ss.endedAt
		} else {
			ss.reapMu.Lock()
			if ss.exitedAt.Load() != 0 {
				ss.reapMu.Unlock()
				if h.check {
					continue // it ends by the time the hold comes
				}
				return nil, fmt.Errorf("session %s is ending", ss.name())
			}
			h.reaping = append(h.reaping, ss)
			hs.MasterFD = ss.proc.MasterFD()
		}
		ss.lockModel()
		hs.Screen = ss.model.scr.AppendRestore(nil)
		for i, id := range ss.shown.ids {
			pushed := ss.model.scr.ScrolledOff()
			hs.Shown = append(hs.Shown, handoffShown{Terminal: id, Unseen: pushed - min(ss.shown.upTo[i], pushed)})
		}
		hs.Scrollback = ss.model.scr.ScrollbackLimit()
		if hs.Scrollback == 0 {
			hs.Scrollback = -1 // none; 0 would be the default (screen.New)
		}
		hs.Cols, hs.Rows = ss.cols, ss.rows
		hs.Env, hs.AgentTarget = ss.env, ss.agentTarget
		if ss.owner != nil {
			hs.Owner = ss.owner.id
		}
		hs.Asked = ss.asked.state(time.Now())
		if !ss.exited.Load() {
			for _, c := range ss.order {
				if isClosed(c.done) {
					continue // its writer met a dead connection
				}
				hs.Clients = append(hs.Clients, s.handoffClientOf(c))
			}
		}
		ss.unlockModel()
		st.Sessions = append(st.Sessions, hs)
	}
	s.up.connMu.Lock()
	for conn, ss := range s.up.waiters {
		if !isClosed(ss.done) || ss.exited.Load() {
			st.Waiters = append(st.Waiters, handoffWaiter{FD: fdOf(conn), Session: ss.name()})
			h.waiters = append(h.waiters, conn)
		}
	}
	s.up.connMu.Unlock()
	return st, nil
}

// handoffClientOf writes down one held client. Called with its session's
// mu held.
func (s *server) handoffClientOf(c *client) handoffClient {
	hc := handoffClient{
		ID: c.id, FD: fdOf(c.conn.(syscall.Conn)), ReadOnly: c.readOnly, Record: c.record, Since: c.since,
		Cols: c.cols, Rows: c.rows, Terminal: c.restoreAsk.terminal, ScreenOnly: c.restoreAsk.screenOnly,
		Env: c.env, Inside: c.inside, InsideAt: c.insideAt, AckExit: c.acksExit, Drawn: c.view != nil,
	}
	if c.view != nil && !c.frameArmed && c.viewCols == c.cols && c.viewRows == c.rows {
		hc.ViewSynced = true
		hc.ViewX, hc.ViewY = c.view.Offset()
	}
	s.up.parkedMu.Lock()
	hc.In = s.up.parked[c]
	if in, ok := s.up.inputs[c]; ok {
		hc.Input = &in
	}
	s.up.parkedMu.Unlock()
	c.queueMu.Lock()
	hc.Lagging = c.lagging
	for _, f := range c.queue {
		if !f.rest {
			hc.Out, _ = wire.AppendFrame(hc.Out, f.t, nil)
			n := len(f.p)
			h := hc.Out[len(hc.Out)-wire.HeaderLen:]
			h[1], h[2], h[3], h[4] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		}
		hc.Out = append(hc.Out, f.p...)
	}
	c.queueMu.Unlock()
	return hc
}

// writeHandoff writes st, 0600, into the socket directory (through its
// checked descriptor) and returns the file's name.
func (s *server) writeHandoff(st *handoffState) (string, error) {
	name := handoffName(s.socket)
	_ = s.dir().Remove(name) // one a failed upgrade left
	f, err := s.dir().OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("cannot write the hand-off state: %w", err)
	}
	err = json.NewEncoder(f).Encode(st)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = s.dir().Remove(name)
		return "", fmt.Errorf("cannot write the hand-off state: %w", err)
	}
	return name, nil
}

// readHandoff reads the state file name from dir.
func readHandoff(dir *wire.Dir, name string) (*handoffState, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrHandoff, err)
	}
	defer f.Close()
	var st handoffState
	if err := json.NewDecoder(io.LimitReader(f, 1<<30)).Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrHandoff, name, err)
	}
	if st.Format < 1 || st.Format > handoffFormat {
		return nil, fmt.Errorf("%w: state format %d, this wr reads 1 to %d", ErrHandoff, st.Format, handoffFormat)
	}
	return &st, nil
}

// CheckHandoff is the new binary's check, run by the old server before it
// execs it (wr server check-handoff): it reads the state the old server
// wrote, as the new server will, and returns its format and how many
// sessions it holds. It changes nothing.
func CheckHandoff(socket, name string) (format, sessions int, err error) {
	dir, err := wire.OpenDir(filepath.Dir(socket))
	if err != nil {
		return 0, 0, err
	}
	defer dir.Close()
	st, err := readHandoff(dir, name)
	if err != nil {
		return 0, 0, err
	}
	if st.Socket != socket {
		return 0, 0, fmt.Errorf("%w: the state is of socket %s, not %s", ErrHandoff, st.Socket, socket)
	}
	return st.Format, len(st.Sessions), nil
}

// takeHandoff is the new server's first step: read the state (and remove
// it), take the listener and the lock. The sessions are adopted once the
// watcher runs (adopt).
func (s *server) takeHandoff(name string) (*handoffState, error) {
	st, err := readHandoff(s.dir(), name)
	_ = s.dir().Remove(name)
	if err != nil {
		return nil, err
	}
	lf := os.NewFile(uintptr(st.ListenFD), s.socket)
	l, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: the listener: %w", ErrHandoff, err)
	}
	ul, ok := l.(*net.UnixListener)
	if !ok {
		l.Close()
		return nil, fmt.Errorf("%w: the listener is not a Unix socket", ErrHandoff)
	}
	unix.CloseOnExec(st.LockFD)
	s.ln, s.lockFile = ul, os.NewFile(uintptr(st.LockFD), s.socket+".lock")
	s.started, s.activated = st.Started, st.Activated
	writeLockedVersion(s.lockFile, s.lockPid()) // this binary's, not the old server's
	s.nextClient, s.hadSession = st.NextClient, st.HadSession
	return st, nil
}

// adopt takes over the sessions and clients of st, starts them, and
// answers the upgrade's request.
func (s *server) adopt(st *handoffState, conns *sync.WaitGroup) {
	t0 := time.Now()
	clients := 0
	var started []*session
	byName := map[string]*session{}
	for _, hs := range st.Sessions {
		ss, err := s.adoptSession(hs)
		if err != nil {
			s.dropSession(hs, err)
			continue
		}
		s.sessions[hs.Name] = ss
		byName[hs.Name] = ss
		clients += len(ss.order)
		if !hs.Exited {
			started = append(started, ss)
		}
	}
	for _, ss := range started {
		ss.readMu.Lock()
		ss.reader = readRunning
		ss.readMu.Unlock()
		go ss.readLoop()
		ss.proc.NotifyExit(s.watcher, func() { go ss.waitLoop() })
		ss.mu.Lock()
		owner := ss.owner
		clients := append([]*client(nil), ss.order...)
		for _, c := range ss.order {
			go c.writeLoop(func() { ss.resync(c) }, s.clientCaughtUp)
			c.wakeWriter()
			conns.Add(1)
			go func() {
				defer conns.Done()
				s.serveAdopted(ss, c)
			}()
		}
		ss.mu.Unlock()
		// A lone ESC that crossed is timed afresh: with nothing after it,
		// it was typed.
		for _, c := range clients {
			if c != owner {
				c.inMu.Lock()
				ss.armLoneESC(c)
				c.inMu.Unlock()
			}
		}
	}
	for _, w := range st.Waiters {
		wf := os.NewFile(uintptr(w.FD), "wr wait")
		conn, err := net.FileConn(wf)
		wf.Close()
		uc, ok := conn.(*net.UnixConn)
		ss := byName[w.Session]
		if err != nil || !ok || ss == nil {
			s.logf("upgrade: a wr wait on %s is lost: %v", w.Session, err)
			if conn != nil {
				conn.Close()
			}
			continue
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer uc.Close()
			s.waitOn(uc, ss)
		}()
	}
	pause := time.Since(st.HeldAt)
	s.logf("upgrade: took over from version %s: %d sessions, %d clients; output stood still for %v (this binary started %v after, and adopted in %v)",
		st.Version, len(s.sessions), clients, pause.Round(time.Microsecond), s.began.Sub(st.HeldAt).Round(time.Microsecond), time.Since(t0).Round(time.Microsecond))
	if st.RequestFD < 0 {
		return
	}
	rf := os.NewFile(uintptr(st.RequestFD), "upgrade request")
	conn, err := net.FileConn(rf)
	rf.Close()
	if err != nil {
		s.logf("upgrade: cannot answer the request: %v", err)
		return
	}
	conns.Add(1)
	go func() {
		defer conns.Done()
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
		s.reply(conn, wire.TypeUpgraded, wire.Upgraded{
			Version: wire.Version, Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, PID: os.Getpid(),
			Sessions: len(st.Sessions), Clients: clients, PauseMS: float64(pause.Microseconds()) / 1000,
		})
	}()
}

// dropSession lets go of a session that could not be adopted: its PTY
// master is closed (its program is hung up on) and so are its clients'
// connections, so they see the session gone rather than wait on it.
func (s *server) dropSession(hs handoffSession, err error) {
	s.logf("upgrade: session %s is lost, its PTY and %d clients closed: %v", hs.Name, len(hs.Clients), err)
	if hs.MasterFD >= 0 {
		_ = unix.Close(hs.MasterFD)
	}
	for _, hc := range hs.Clients {
		_ = unix.Close(hc.FD)
	}
}

// adoptSession makes a session of hs: its PTY and child (or, exited, its
// code), its screen model drawn from the restore stream, and its clients,
// whose goroutines the caller starts.
func (s *server) adoptSession(hs handoffSession) (*session, error) {
	ss := &session{
		srv: s, marker: hs.Marker, agentLink: hs.AgentLink, pid: hs.PID, created: hs.Created,
		command: hs.Command, cwd: hs.Cwd, clients: map[int]*client{},
		cols: hs.Cols, rows: hs.Rows, done: make(chan struct{}), keep: time.Duration(hs.KeepNS),
		env: hs.Env, agentTarget: hs.AgentTarget,
	}
	ss.drained.Add(1)
	ss.setName(hs.Name)
	if hs.Exited {
		ss.proc = &ptyproc.Process{}
	} else {
		p, err := ptyproc.Adopt(hs.MasterFD, hs.PID)
		if err != nil {
			return nil, err
		}
		ss.proc = p
	}
	ss.ptySize = ss.proc
	ss.model = newModel(hs.Cols, hs.Rows, hs.Scrollback, &ss.mu,
		func(p []byte) { _ = ss.writePTY(p) })
	ss.model.dropped = ss.killed.Load
	ss.model.typing, ss.model.self = &ss.srv.typing, ss
	_, _ = ss.model.scr.Write(hs.Screen)
	pushed := ss.model.scr.ScrolledOff()
	for _, sh := range hs.Shown {
		ss.shown.set(sh.Terminal, pushed-min(sh.Unseen, pushed))
	}
	if hs.Exited {
		ss.ended, ss.code, ss.endedAt = true, hs.Code, hs.EndedAt
		ss.exitedAt.Store(hs.EndedAt.UnixNano())
		ss.exited.Store(true)
		ss.reader = readDone
		ss.model.stopLocked()
		close(ss.done)
		ss.drained.Done()
		left := max(ss.keep-time.Since(hs.EndedAt), 0)
		ss.expiry = time.AfterFunc(left, func() { s.collect(ss, "expired") })
		return ss, nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.asked = restoreAsked(hs.Asked, time.Now())
	for _, hc := range hs.Clients {
		c, err := s.adoptClient(hc)
		if err != nil {
			s.logf("upgrade: client %d of %s: %v", hc.ID, hs.Name, err)
			continue
		}
		ss.clients[c.id] = c
		ss.order = append(ss.order, c)
		if c.id == hs.Owner {
			ss.owner = c
		}
		if hc.Drawn && hc.ViewSynced && !hc.Lagging {
			// Its terminal shows the screen, which the new model is:
			// its view starts there, and it is sent only what changes.
			c.view = ss.model.scr.ViewAt(c.cols, c.rows, hc.ViewX, hc.ViewY)
			c.viewCols, c.viewRows = c.cols, c.rows
		}
	}
	ss.countAnswerersLocked()
	// The answers held for a client that did not come over (its connection
	// was dead, or could not be adopted) go now: it will not answer.
	ss.heldAnswersLocked(ss.asked.leftWhere(func(id int) bool { return ss.clients[id] == nil }))
	// A client of another size whose view was not up to date is drawn
	// afresh.
	ss.reviewViewsLocked()
	return ss, nil
}

// adoptClient makes a client of hc on its inherited connection, with what
// was owed to it queued first.
func (s *server) adoptClient(hc handoffClient) (*client, error) {
	f := os.NewFile(uintptr(hc.FD), "client")
	conn, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	c := newClient(hc.ID, conn, hc.ReadOnly, hc.Cols, hc.Rows)
	c.record, c.since = hc.Record, hc.Since
	c.restoreAsk = restoreRequest{terminal: hc.Terminal, screenOnly: hc.ScreenOnly}
	c.env, c.inside, c.insideAt, c.acksExit = hc.Env, hc.Inside, hc.InsideAt, hc.AckExit
	c.carriedIn = hc.In
	if hc.Input != nil {
		if k, err := restoreClassifier(*hc.Input); err != nil {
			s.logf("upgrade: client %d's input starts afresh: %v", hc.ID, err)
		} else {
			c.classifier = k
		}
	}
	c.lagging = hc.Lagging
	if len(hc.Out) > 0 {
		c.queue = []frame{{t: wire.TypeOutput, p: hc.Out, rest: true, counted: true}}
		c.queued = max(len(hc.Out), 64)
	}
	return c, nil
}

// serveAdopted runs an adopted client's connection as serveAttach runs a
// new one's, from where the old server left it.
func (s *server) serveAdopted(ss *session, c *client) {
	defer c.conn.Close()
	s.readClient(ss, c)
	ss.detach(c)
	<-c.done
}

// refusalAdvice is the Refused message for a client of another protocol
// major: which wr to use.
func refusalAdvice(h wire.Hello) string {
	self, _ := os.Executable()
	if h.Protocol < wire.ProtocolMajor {
		return fmt.Sprintf("the server (pid %d, %s, version %s) speaks protocol %d, newer than this wr's %d: use the server's wr (%s), or upgrade this one",
			os.Getpid(), self, wire.Version, wire.ProtocolMajor, h.Protocol, self)
	}
	return fmt.Sprintf("the server (pid %d, %s, version %s) speaks protocol %d, older than this wr's %d: "+
		"run `wr server upgrade` with this wr to hand the server and its sessions over to it "+
		"(or `wr server stop` with the server's binary to end them)",
		os.Getpid(), self, wire.Version, wire.ProtocolMajor, h.Protocol)
}
