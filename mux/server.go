// Package mux is the wr server: it listens on the socket, holds every
// session's PTY, fans output out to attached clients, decides who owns each
// session's size, and kills sessions without leaving anything behind.
//
// It must never wait on a client while holding a session: the PTY reader
// only queues, and each connection has its own writer goroutine. It never
// imports the client half (attach).
package mux

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"wr/internal/rawio"
	"wr/ptyproc"
	"wr/wire"
)

// idleStart is how long a server waits for its first session before exiting.
const idleStart = 10 * time.Second

// handshakeTimeout bounds how long a connection may take to say Hello and
// make its request.
const handshakeTimeout = 2 * time.Second

// ErrRunning is returned by Run when another server holds the socket.
var ErrRunning = errors.New("a server is already running")

// Options configures Run.
type Options struct {
	Socket string
	Log    io.Writer // nil: stderr
	Ready  func()    // called once the server listens; nil: nothing
	// Handoff names the state file an old server left in the socket
	// directory before it exec'd this binary in its own process (wr server
	// upgrade): the server takes over its sessions instead of starting
	// afresh (handoff.go).
	Handoff string
	// Daemon says the server runs as wr server run --daemon: an upgrade
	// runs the new binary so too, so that its log is rotated as this one's.
	Daemon bool
}

// server holds the sessions of one socket.
type server struct {
	// Set by Run before it accepts, then only read.
	socket string
	// dirP is the socket's directory, open for the server's life, or
	// until it was removed and made again (rehome.go); read with dir.
	dirP atomic.Pointer[wire.Dir]
	// socketID is the socket file's identity once bound: at exit only
	// that file is removed, never one another server bound at the path
	// after a cleaner removed this one's socket and lock.
	socketID wire.FileID
	log      *log.Logger
	started  time.Time
	// ln is closed by shutdownLocked (once: stopping), which ends the
	// accept loop; Run closes it itself only when it fails before serving.
	ln        *net.UnixListener
	knocks    *knockSet         // ln and its connections, as a burst's reader looks at them (knock_linux.go); nil: none
	unlock    func()            // releases the server lock; idempotent
	lockFile  *os.File          // holds the server lock; handed over by an upgrade
	daemon    bool              // Options.Daemon
	activated bool              // ln came from systemd (socket activation) and stays its
	usr1      chan os.Signal    // SIGUSR1, where it is asked for (usr1_other.go)
	beacon    *net.UnixListener // the beacon (beacon_linux.go), under mu; closed by shutdownLocked
	watch     dirWatch          // the watch of the socket's directory (relisten.go)
	homeCheck atomic.Bool       // a look whether the directory went is due (rehome.go)
	rehoming  atomic.Bool       // the directory is gone and being made again (rehome.go)
	watcher   *ptyproc.Watcher  // waits for the output of quiet sessions and for every exit

	output  atomic.Int64   // bytes read from every PTY, for release
	typing  typist         // a person's last keystroke, which floods elsewhere give way to
	release memoryRelease  // its own mu, taken alone
	sweeps  sync.WaitGroup // kills in progress: Run returns only after them (waitSweeps)

	// mu guards the registry and the server's lifecycle. It is taken with
	// no session lock held, and none is taken under it (session.go has
	// the whole order).
	mu         sync.Mutex
	sessions   map[string]*session
	nextClient int
	hadSession bool
	stopping   bool // shutting down: the listener is closed
	draining   bool // wr server stop is killing every session
	// stopped is closed by shutdownLocked, once (stopping), under mu; the
	// accept loop reads it to tell a shutdown from a failed accept.
	stopped chan struct{}
	// sweepsClosed: Run has begun its last wait for the sweeps; a sweep
	// begun after it is not counted (its connection is waited for
	// instead). Counting it would be WaitGroup.Add from zero racing with
	// Wait: a wr server stop arriving as the last session ended by
	// itself did that (the race detector caught it in the suite).
	sweepsClosed bool

	up upgradeState // wr server upgrade (upgrade.go)
	// began is when this binary started serving; started, after an upgrade,
	// is when the first server of the line did.
	began time.Time
}

// Run serves until the server holds no session, or wr server stop asks it to stop.
func Run(opts Options) error {
	out := opts.Log
	if out == nil {
		out = os.Stderr
	}
	s := &server{
		socket:   opts.Socket,
		daemon:   opts.Daemon,
		log:      log.New(out, "wr server: ", log.LstdFlags),
		started:  time.Now(),
		began:    time.Now(),
		sessions: map[string]*session{},
		stopped:  make(chan struct{}),
	}
	// Whatever the process that started us left open without
	// close-on-exec stays out of the sessions.
	rawio.CloseOnExecInherited()
	defer s.notifyUSR1()() // usr1_*.go
	dir, err := wire.PrepareDir(s.socket)
	if err != nil {
		return err
	}
	s.dirP.Store(dir)
	defer func() { s.dir().Close() }() // the directory made again, if it was (rehome.go)
	name := filepath.Base(s.socket)
	// Under socket activation systemd bound the socket and keeps it: the
	// server serves on it, never removes it, and at start waits for the
	// server lock, which a server systemd started before may hold for the
	// last moments of its exit.
	ln, err := activatedListener(dir, s.socket)
	if err != nil {
		return err
	}
	s.activated = ln != nil
	var handoff *handoffState
	if opts.Handoff != "" {
		// An old server exec'd this binary in its own process: the
		// listener and the lock are its, inherited, and so are the
		// sessions (handoff.go).
		if handoff, err = s.takeHandoff(opts.Handoff); err != nil {
			return err
		}
		ln = s.ln
	} else {
		lockWait := time.Duration(0)
		if s.activated {
			lockWait = handshakeTimeout
		}
		lockFile, err := lockServer(dir, s.socket, lockWait, s.lockPid())
		if err != nil {
			if ln != nil {
				ln.Close()
			}
			return err
		}
		s.lockFile = lockFile
		// The start lock of earlier versions (clients now lock the
		// directory), and agent links a server that died left behind.
		_ = dir.Remove(name + ".start")
		// The state of a hand-off the new binary never took (it failed
		// before reading it): every session's screen and scrollback, not
		// to be left lying about.
		_ = dir.Remove(handoffName(s.socket))
		s.removeStaleAgentLinks()
	}
	// A server that ends takes its version out of the lock file, so that
	// an older server started later (one that writes none) is not taken
	// for this one by a newer wr's check (client.UpgradeIfOlder).
	s.unlock = sync.OnceFunc(func() { _ = s.lockFile.Truncate(0); s.lockFile.Close() })
	defer s.unlock()
	if ln == nil {
		if ln, err = listen(dir, name, s.socket); err != nil {
			return err
		}
	}
	ln.SetUnlinkOnClose(false)
	s.socketID, _ = dir.ID(name)
	s.ln = ln
	if s.watcher, err = ptyproc.NewWatcher(); err != nil {
		ln.Close()
		if !s.activated {
			_ = dir.Remove(name)
		}
		return err
	}
	defer s.watcher.Close()
	if s.knocks = newKnockSet(ln); s.knocks == nil {
		knockless() // procs.go
	}
	defer s.knocks.close()
	s.logf("listening on %s (pid %d, version %s)", s.socket, os.Getpid(), wire.Version)
	if opts.Ready != nil {
		opts.Ready()
	}

	time.AfterFunc(idleStart, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.hadSession && len(s.sessions) == 0 {
			s.logf("no session arrived in %v; exiting", idleStart)
			s.shutdownLocked()
		}
	})

	var wg sync.WaitGroup
	if handoff != nil {
		s.adopt(handoff, &wg) // its connections count as accepted ones
	}
	// After the adoption, which ends an upgrade's pause: neither is
	// needed to serve, and both cost the pause a little.
	defer s.watchSocket()()
	s.listenBeacon()
	var fails acceptFailures
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			select {
			case <-s.stopped:
				// A kill ends its sessions before its sweep is over;
				// its SIGKILLs must still go out. Then let connections
				// finish their last frames (an Exited owed to a client
				// that is slow to read).
				s.waitSweeps()
				waitTimeout(&wg, 5*time.Second)
				return nil
			default:
			}
			if now := s.listener(); now != ln {
				ln = now // relisten bound the socket again
				continue
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				s.up.acceptHeld.Store(true)
				s.awaitUpgrade() // an upgrade stopped accepting (upgrade.go)
				continue
			}
			// EMFILE and the like fail again until a descriptor is freed:
			// wait, longer each time, and say so at most once a second.
			select {
			case <-time.After(fails.failed(s, err)):
			case <-s.stopped:
			}
			continue
		}
		fails.backoff = 0
		// Counted here, not in its goroutine: an upgrade that stops
		// accepting next must wait for it (upgrade.go).
		s.up.begin(conn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveConn(conn)
		}()
	}
}

// acceptFailures paces the accept loop while accepting fails (out of
// descriptors: EMFILE, ENFILE): it backs off from acceptBackoffMin,
// doubling up to acceptBackoffMax, so a server out of descriptors neither
// spins nor fills its log; the log says it at most once a second, with how
// many failures it did not tell.
type acceptFailures struct {
	backoff  time.Duration
	lastLog  time.Time
	untold   int
	untoldAt time.Time
}

const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
	acceptLogEvery   = time.Second
)

// failed records a failed accept and returns how long to wait.
func (f *acceptFailures) failed(s *server, err error) time.Duration {
	f.backoff = min(max(2*f.backoff, acceptBackoffMin), acceptBackoffMax)
	if now := time.Now(); now.Sub(f.lastLog) >= acceptLogEvery {
		if f.untold > 0 {
			s.logf("accept: %v (and %d more failures since %s)", err, f.untold, f.untoldAt.Format(time.TimeOnly))
		} else {
			s.logf("accept: %v", err)
		}
		f.lastLog, f.untold = now, 0
	} else if f.untold++; f.untold == 1 {
		f.untoldAt = now
	}
	return f.backoff
}

// lockServer takes an exclusive lock beside the socket for the server's
// life. The kernel drops it when the process dies, however it dies, so a
// socket left by a SIGKILLed server is known to be stale.
//
// It waits at least lockProbeWait: a client that finds no socket tests
// the lock with a shared flock for an instant (lockHolder, in attach), and
// a server that met that instant gave up, for good when it was binding a
// removed socket again (relisten). pid goes into the file with the version
// (writeLockedVersion).
func lockServer(dir *wire.Dir, socket string, wait time.Duration, pid int) (*os.File, error) {
	path := socket + ".lock"
	f, err := dir.OpenFile(filepath.Base(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the server lock %s: %w", path, wire.ErrnoOf(err))
	}
	// A FIFO there would hang every client that reads the version.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("the server lock %s is not a regular file; remove it", path)
	}
	deadline := time.Now().Add(max(wait, lockProbeWait))
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w on %s", ErrRunning, socket)
		}
		return nil, fmt.Errorf("cannot take the server lock %s: %w", path, err)
	}
	writeLockedVersion(f, pid)
	return f, nil
}

// lockProbeWait is the least lockServer waits for a lock held: a client's
// test holds it for microseconds.
const lockProbeWait = 50 * time.Millisecond

// lockPid is the pid the server writes into its lock file: none under
// socket activation, where nothing the server does brings back a removed
// socket (systemd owns it), so that a client advises nothing about it.
func (s *server) lockPid() int {
	if s.activated {
		return 0
	}
	return os.Getpid()
}

// writeLockedVersion writes the server's version and pid into its lock
// file (wire.LockFileText): a newer wr reads the version there before each
// verb (client.UpgradeIfOlder) instead of connecting once more only to
// learn that the server is as new as itself, a round trip that made an
// attach about a sixth slower; a wr that finds the socket gone names the
// pid (relisten.go). A server that cannot write it loses nothing but that.
func writeLockedVersion(f *os.File, pid int) {
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(wire.LockFileText(wire.Version, pid)), 0)
	}
}

// listen binds the server's socket in dir, removing a dead server's first.
func listen(dir *wire.Dir, name, socket string) (*net.UnixListener, error) {
	addr, err := dir.Addr(name)
	if err != nil {
		return nil, err
	}
	if err := removeStale(dir, name, addr, socket); err != nil {
		return nil, err
	}
	// Create the socket 0600 from the start: a chmod after listen would
	// leave a window in which anyone could connect. It is bound through the
	// directory's descriptor, and removed through it at shutdown (not by
	// the listener, which knows only the descriptor's address).
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", socket, wire.ErrnoOf(err))
	}
	return ln, nil
}

// removeStale removes a dead server's socket, with the server lock held.
// Only a socket nothing answers on is removed: anything else at the path
// (a file the user named by mistake) is refused and left as it is.
func removeStale(dir *wire.Dir, name, addr, socket string) error {
	exists, err := dir.CheckSocket(name)
	if err != nil || !exists {
		return err
	}
	if c, err := net.Dial("unix", addr); err == nil {
		// Not a wr server of ours (that would hold the lock), but alive.
		c.Close()
		return fmt.Errorf("%w on %s; stop it or pick another --socket", ErrRunning, socket)
	}
	if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot remove the stale socket %s: %w", socket, wire.ErrnoOf(err))
	}
	return nil
}

// dir is the socket's directory (dirP).
func (s *server) dir() *wire.Dir { return s.dirP.Load() }

func (s *server) logf(format string, args ...any) { s.log.Printf(format, args...) }

// shutdown stops accepting; Run returns once open connections finish.
func (s *server) shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdownLocked()
}

// shutdownLocked stops accepting, with mu held: deciding to stop and
// refusing new sessions happen in one critical section, so a session cannot
// be created by a server that has decided to exit. The socket is unlinked
// and the server lock released at once, so a new server can start while
// this one finishes writing to the connections it still has.
func (s *server) shutdownLocked() {
	if s.stopping {
		return
	}
	s.stopping = true
	// The socket goes first: once the listener is closed, Run may return
	// and the process exit before this goroutine runs another line (with
	// a second P it did, and left a dead socket behind). Only if still
	// ours: the lock keeps any other server from binding it, unless a
	// cleaner removed the lock and the socket and another server started.
	// One systemd passed stays: systemd listens on it and starts the next
	// server when someone connects.
	if !s.activated {
		removed, err := s.dir().RemoveIf(filepath.Base(s.socket), s.socketID)
		switch {
		case err != nil:
			s.logf("remove the socket: %v", err)
		case !removed:
			s.logf("the socket %s is not this server's any more (removed from outside, maybe bound by another server): left as it is", s.socket)
		}
	}
	close(s.stopped)
	s.ln.Close()
	if s.beacon != nil {
		s.beacon.Close() // the next server's, from now (beacon_linux.go)
	}
	s.unlock()
}

// sessionEnded records a session whose command has ended: it is kept, as
// exited, when end decided so (keep) and the server is not being stopped;
// otherwise it leaves the registry. The last session gone stops the server.
func (s *server) sessionEnded(ss *session, keep bool) {
	s.typing.forget(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	if keep && s.sessions[ss.name()] == ss && !s.draining && !s.stopping {
		s.logf("session %s exited (code %d) with nobody attached who has seen it; kept for %v or until seen", ss.name(), ss.code, ss.keep)
		ss.expiry = time.AfterFunc(ss.keep, func() { s.collect(ss, "expired") })
		return
	}
	if s.sessions[ss.name()] == ss {
		delete(s.sessions, ss.name())
	}
	s.logf("session %s ended (code %d)", ss.name(), ss.code)
	s.shutdownIfEmptyLocked()
}

// collect removes an exited session: its code was seen (wr wait, wr
// attach), or it expired, or it was killed. It reports false, doing
// nothing, if ss is not an exited session in the registry (still running,
// already collected, or replaced by a new session of its name).
func (s *server) collect(ss *session, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[ss.name()] != ss || !ss.exited.Load() {
		return false
	}
	delete(s.sessions, ss.name())
	if ss.expiry != nil {
		ss.expiry.Stop()
		ss.expiry = nil
	}
	s.logf("session %s (exited, code %d) %s", ss.name(), ss.code, why)
	s.shutdownIfEmptyLocked()
	return true
}

// shutdownIfEmptyLocked stops the server once it holds no session, running
// or exited. Called with mu held.
func (s *server) shutdownIfEmptyLocked() {
	if len(s.sessions) == 0 {
		s.logf("no sessions left; exiting")
		s.shutdownLocked()
	}
}

// serveConn runs one connection: peer check, handshake, then one request
// or an attached stream.
func (s *server) serveConn(conn *net.UnixConn) {
	defer conn.Close()
	defer s.up.settle(conn) // begun by the accept loop
	s.knocks.watch(conn)    // its request is read at once during a burst (knock_linux.go)

	if uid, err := wire.PeerUID(conn); err != nil || uid != os.Getuid() {
		s.logf("refused a connection from uid %d (err %v)", uid, err)
		s.reply(conn, wire.TypeRefused, wire.Refused{Message: "wr: connection refused: the server belongs to another user"})
		return
	}
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	f, err := wire.ReadFrame(conn)
	if err != nil {
		s.badFrame(conn, err)
		return
	}
	if f.Type != wire.TypeHello {
		s.reply(conn, wire.TypeRefused, wire.Refused{Message: fmt.Sprintf("wr: expected Hello, got %s", f.Type)})
		return
	}
	var h wire.Hello
	if err := wire.Decode(f, &h); err != nil {
		s.reply(conn, wire.TypeRefused, wire.Refused{Message: err.Error()})
		return
	}
	if h.Protocol != wire.ProtocolMajor && !h.ForUpgrade {
		s.reply(conn, wire.TypeRefused, wire.Refused{Message: refusalAdvice(h)})
		return
	}
	// A client that gave up before this answer (a server stopped or too
	// busy for its 5 s, or a ctrl-C) has closed its end, and the write
	// fails: its request, which came with the Hello, is never carried
	// out. That client has said the request failed.
	if !s.reply(conn, wire.TypeWelcome, wire.Welcome{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: wire.Version, PID: os.Getpid()}) {
		s.logf("a client had gone before its greeting was answered; its request is dropped")
		return
	}
	f, err = wire.ReadFrame(conn)
	if err != nil {
		s.badFrame(conn, err)
		return
	}
	_ = conn.SetDeadline(time.Time{})
	if h.Protocol != wire.ProtocolMajor && f.Type != wire.TypeUpgrade {
		s.reply(conn, wire.TypeRefused, wire.Refused{Message: refusalAdvice(h)})
		return
	}
	s.dispatch(conn, f)
}

// badFrame answers a frame that could not be read: an oversize or corrupt
// frame gets an error reply before the connection closes.
func (s *server) badFrame(conn net.Conn, err error) {
	if errors.Is(err, wire.ErrFrameTooLarge) {
		s.logf("closing a connection: %v", err)
		s.reply(conn, wire.TypeError, wire.Error{Code: wire.CodeBadFrame, Message: err.Error()})
	}
}

// reply writes one control frame; a reply too large for a frame becomes an
// error reply instead.
func (s *server) reply(conn net.Conn, t wire.Type, v any) bool {
	p, err := wire.Encode(v)
	if err != nil {
		code := wire.CodeInternal
		if errors.Is(err, wire.ErrFrameTooLarge) {
			code = wire.CodeTooLarge
		}
		t = wire.TypeError
		p, _ = wire.Encode(wire.Error{Code: code, Message: fmt.Sprintf("reply too large to send: %v", err)})
	}
	return wire.WriteFrame(conn, t, p) == nil
}

func (s *server) replyErr(conn net.Conn, code, format string, args ...any) {
	s.reply(conn, wire.TypeError, wire.Error{Code: code, Message: fmt.Sprintf(format, args...)})
}

func (s *server) dispatch(conn *net.UnixConn, f wire.Frame) {
	s.up.doing(conn, fmt.Sprintf("a %s request is still under way", f.Type))
	switch f.Type {
	case wire.TypeAttach:
		decodeThen(s, conn, f, s.serveAttach)
	case wire.TypeNew:
		decodeThen(s, conn, f, s.handleNew)
	case wire.TypeKill:
		decodeThen(s, conn, f, s.handleKill)
	case wire.TypeSend:
		decodeThen(s, conn, f, s.handleSend)
	case wire.TypeSendStream:
		decodeThen(s, conn, f, s.handleSendStream)
	case wire.TypeWait:
		decodeThen(s, conn, f, s.handleWait)
	case wire.TypeDetachClients:
		decodeThen(s, conn, f, s.handleDetachClients)
	case wire.TypeRename:
		decodeThen(s, conn, f, s.handleRename)
	case wire.TypeSendKeys:
		decodeThen(s, conn, f, s.handleSendKeys)
	case wire.TypeCapture:
		decodeThen(s, conn, f, s.handleCapture)
	case wire.TypeList:
		decodeThen(s, conn, f, s.handleList)
	case wire.TypeStop:
		s.handleStop(conn)
	case wire.TypeEnv:
		decodeThen(s, conn, f, s.handleEnv)
	case wire.TypeStatus:
		s.reply(conn, wire.TypeServerStatus, s.status())
	case wire.TypeUpgrade:
		decodeThen(s, conn, f, s.handleUpgrade)
	case wire.TypeShown:
		decodeThen(s, conn, f, s.handleShown)
	default:
		s.replyErr(conn, wire.CodeBadFrame, "unsupported request %s", f.Type)
	}
}

// decodeThen decodes a request's payload into a T and hands it to h, or
// answers a malformed payload with an error reply.
func decodeThen[T any](s *server, conn *net.UnixConn, f wire.Frame, h func(*net.UnixConn, T)) {
	var req T
	if err := wire.Decode(f, &req); err != nil {
		s.replyErr(conn, wire.CodeBadFrame, "%v", err)
		return
	}
	h(conn, req)
}

func (s *server) status() wire.ServerStatus {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms) // stops the world for a moment: fine for a status request
	return wire.ServerStatus{
		PID: os.Getpid(), Version: wire.Version, Build: wire.Build(), Uptime: time.Since(s.started).Seconds(),
		Sessions: n, Socket: s.socket, Goroutines: runtime.NumGoroutine(),
		HeapKiB:        int((ms.HeapSys - ms.HeapReleased) >> 10),
		FloodPauses:    s.typing.pauses.Load(),
		MemoryReleases: s.release.count.Load(),
		Bursts:         busyProcs.begun.Load(),
		SecondCPU:      busyProcs.raises.Load(),
		Knocks:         busyProcs.knocks.Load(),
		HelpedKiB:      busyProcs.helped.Load() >> 10,
	}
}

// waitTimeout waits for wg, but not forever: a connection stuck in a
// handshake must not keep a stopped server alive.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
