package mux

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"wr/ptyproc"
	"wr/screen"
	"wr/wire"
)

// Draining: after the child exits, output still in the PTY is read until the
// terminal reports hang-up, or until it has been quiet for drainQuiet (a
// background job may hold the terminal open forever), and never longer than
// drainMax (a background job may also print forever).
const (
	drainQuiet = 100 * time.Millisecond
	drainMax   = 2 * time.Second
)

// linger is how long a reader waits for more output before it leaves the
// PTY to the server's watcher. Output that keeps coming (a cat, a build,
// someone typing fast) keeps one reader; a session that went quiet costs
// no goroutine, and a wake-up through the watcher costs a few
// microseconds.
const linger = 2 * time.Millisecond

// readerState is where a session's PTY reading is.
type readerState uint8

const (
	readIdle    readerState = iota // the watcher waits for output
	readRunning                    // a reader goroutine runs
	readDone                       // everything was read: the session is ending
)

// readChunk is the most one PTY read takes; arena is the buffer reads are
// carved from, so a chunk is shared by every client without a copy.
const (
	readChunk = 64 << 10
	arenaSize = 256 << 10
	minArena  = 1 << 10 // what a quiet session holds: a prompt, an echo
	minRoom   = 512     // an arena with less room left is replaced before a read
)

// session is one PTY and the clients attached to it.
type session struct {
	srv     *Server
	name    string
	marker  string // WR_SESSION_ID=<random>: in the environment of everything the session starts
	proc    *ptyproc.Process
	pid     int
	created time.Time
	command []string
	cwd     string

	// mu guards the fields below. The PTY reader holds it while it fans a
	// chunk out, so a client registered under mu sees exactly the output
	// that follows its registration: nothing lost, nothing doubled.
	model *model // what a terminal would show; see model.go for its locking

	mu         sync.Mutex
	clients    map[int]*client
	order      []*client // attach order, for "the earliest attached client"
	owner      *client
	cols, rows int
	ended      bool
	code       int
	answerers  atomic.Int32 // attached clients whose terminal can answer a query

	// inputTurn serialises writes to the PTY so inputs never interleave;
	// sendTurn is held for a whole wr send, so two sends never interleave.
	// Both can be waited for with a deadline: a send to a program that does
	// not read gives up, and the one behind it too.
	inputTurn turn
	sendTurn  turn

	// readMu guards reader and cannotPark. The PTY is read by a goroutine
	// that runs while output comes and ends after linger without any,
	// handing the PTY to the server's watcher, which starts another when
	// output comes again: an idle session holds no goroutine. drained is
	// closed when the last reader has read everything after the child's
	// exit.
	readMu     sync.Mutex
	reader     readerState
	cannotPark bool // the watcher refused the PTY once; said in the log
	drained    chan struct{}

	killed   atomic.Bool
	reapMu   sync.Mutex   // held while the child is reaped, and while a kill reads its pid
	exitedAt atomic.Int64 // unix nanos when the child was reaped; 0 while running
	done     chan struct{}
}

// startSession starts the command of cfg on a new PTY. Its output is not
// read until run is called, so the creating client can be registered first
// and see the shell's first prompt.
func (s *Server) startSession(name string, cfg wire.SessionConfig) (*session, error) {
	marker := "WR_SESSION_ID=" + newSessionID()
	env := append(sessionEnv(cfg.Env, name, s.socket), marker)
	argv := cfg.Command
	if len(argv) == 0 {
		sh := lookupEnv(env, "SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		argv = []string{sh}
	}
	path, err := lookPath(argv[0], lookupEnv(env, "PATH"), cfg.Cwd)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", argv[0], err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Dir: cfg.Cwd}
	cols, rows := cfg.Cols, cfg.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	p, err := ptyproc.Start(cmd, cols, rows)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", argv[0], err)
	}
	// The child has its own copy: the server need not hold the environment
	// (a few KiB, the client's whole one) for the session's life.
	cmd.Env = nil
	ss := &session{
		srv: s, name: name, marker: marker, proc: p, pid: p.Pid(), created: time.Now(),
		command: argv, cwd: cfg.Cwd, clients: map[int]*client{},
		cols: cols, rows: rows, done: make(chan struct{}), drained: make(chan struct{}),
		inputTurn: newTurn(), sendTurn: newTurn(),
	}
	ss.model = newModel(cols, rows, cfg.Scrollback, &ss.mu,
		func() bool { return ss.answerers.Load() == 0 },
		func(p []byte) { _ = ss.writePTY(p) })
	ss.model.dropped = ss.killed.Load
	return ss, nil
}

// run starts reading the PTY and waiting for the child.
func (ss *session) run() {
	ss.readMu.Lock()
	ss.reader = readRunning
	ss.readMu.Unlock()
	go ss.readLoop()
	ss.proc.NotifyExit(ss.srv.watcher, func() { go ss.waitLoop() })
	// Starting a session leaves garbage several times its own size (the
	// request and the client's environment, the exec's copies of both);
	// collected now, the next session reuses that memory. Left to the
	// runtime, it would be collected only once the heap had doubled, and a
	// server of many idle sessions would hold it all.
	go runtime.GC()
}

// sessionEnv is the client's environment plus WR_SESSION and WR_SOCKET, with
// TERM defaulted when the client had none a program could use.
func sessionEnv(clientEnv []string, name, socket string) []string {
	env := make([]string, 0, len(clientEnv)+3)
	term := ""
	for _, kv := range clientEnv {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "WR_SESSION", "WR_SOCKET", "WR_SESSION_ID":
			continue
		case "TERM":
			term = v
			continue
		}
		env = append(env, kv)
	}
	if term == "" || term == "dumb" {
		term = "xterm-256color"
	}
	return append(env, "TERM="+term, "WR_SESSION="+name, "WR_SOCKET="+socket)
}

// newSessionID is unique to one session: a session of the same name created
// later, or on another socket, never shares it, so wr kill sweeps only its
// own processes.
func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// lookPath finds file in the client's PATH (not the server's: the server may
// have been started from another environment).
func lookPath(file, pathEnv, dir string) (string, error) {
	if strings.Contains(file, "/") {
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		if err := executable(file); err != nil {
			return "", err
		}
		return file, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return os.ErrPermission
	}
	return nil
}

// readLoop reads the PTY while output comes, whether or not anyone is
// attached, so an application never blocks on a full terminal; when none
// has come for linger it parks the PTY with the watcher and returns, and
// after the child's exit it drains what is left.
func (ss *session) readLoop() {
	// Output is read into arenas, carved into chunks that every client
	// shares. A new arena is allocated only once output is there to read
	// (ReadReady) and the last one is nearly used up. Arenas start small,
	// and double up to arenaSize while output comes faster than a byte a
	// microsecond (a cat, not typing); a parked reader holds none.
	next := minArena
	var arena []byte
	var born time.Time
	off := 0
	get := func() []byte {
		if arena != nil && time.Since(born) < time.Duration(len(arena))*time.Microsecond {
			next = min(next*2, arenaSize)
		} else {
			next = minArena
		}
		arena, off, born = make([]byte, next), 0, time.Now()
		return arena[:min(readChunk, len(arena))]
	}
	for {
		if ss.model.lag.Load() > maxModelLag {
			// The model fell far behind: this reader waits for the feeder
			// to catch up (the program waits on a full terminal), so what
			// is pending stays bounded, and everyone else goes on.
			ss.model.catchUp()
		}
		// Set just before each read: a deadline that passed while this
		// goroutine was held up elsewhere would cut the drain short, or
		// park a reader that output is waiting for.
		at := ss.exitedAt.Load()
		if at != 0 {
			if time.Since(time.Unix(0, at)) > drainMax {
				ss.readerDone()
				return
			}
			_ = ss.proc.SetReadDeadline(time.Now().Add(drainQuiet))
		} else {
			_ = ss.proc.SetReadDeadline(time.Now().Add(linger))
		}
		var room []byte // nil: ReadReady allocates a new arena through get
		if len(arena)-off >= minRoom {
			room = arena[off:min(off+readChunk, len(arena))]
		}
		n, err := ss.proc.ReadReady(room, get)
		if n > 0 {
			chunk := arena[off : off+n : off+n]
			off += n
			ss.srv.output.Add(int64(n))
			// A restore is drawing this session's backlog (lockModel):
			// wait for it to end, so that the backlog does.
			ss.model.awaitCatchUp()
			ss.fanOut(chunk)
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				if ss.proc.Buffered() > 0 {
					continue // late, not quiet: there is more to read
				}
				if at != 0 {
					ss.readerDone() // quiet for drainQuiet after the exit
					return
				}
				if ss.park() {
					ss.srv.outputQuiet()
					return
				}
				continue // the child exited meanwhile (drain), or the PTY cannot park
			}
			ss.readerDone()
			return
		}
	}
}

// park leaves the quiet PTY to the watcher, which starts a reader again
// when output comes, and reports true; or false if the child has exited
// and this reader must drain instead. Arming and the state change happen
// under readMu, so a wake-up that comes at once waits for both.
func (ss *session) park() bool {
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	if ss.exitedAt.Load() != 0 {
		return false
	}
	if err := ss.proc.NotifyReadable(ss.srv.watcher, ss.wake); err != nil {
		// Closed: the next read fails and ends the reader. Refused (the
		// system's limit on watched descriptors): the reader keeps reading
		// and its goroutine, losing nothing but the saving, which the log
		// tells once.
		if !errors.Is(err, ptyproc.ErrClosed) && !ss.cannotPark {
			ss.cannotPark = true
			ss.srv.logf("session %s: an idle reader cannot park, it keeps its goroutine: %v", ss.name, err)
		}
		return false
	}
	ss.reader = readIdle
	return true
}

// wake starts a reader for a parked PTY. It runs on the watcher's
// goroutine, or the exit's.
func (ss *session) wake() {
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	if ss.reader == readIdle {
		ss.reader = readRunning
		go ss.readLoop()
	}
}

// readerDone records that the PTY was read to its end.
func (ss *session) readerDone() {
	ss.readMu.Lock()
	ss.reader = readDone
	ss.readMu.Unlock()
	close(ss.drained)
	ss.srv.outputQuiet()
}

// fanOut hands one chunk to the screen model and to every attached client,
// under mu: a client registered under mu sees exactly the output after its
// restore.
func (ss *session) fanOut(chunk []byte) {
	ss.mu.Lock()
	ss.model.push(modelOp{chunk: chunk})
	for _, c := range ss.order {
		c.send(wire.TypeOutput, chunk)
	}
	ss.mu.Unlock()
}

// lockModel takes the model's lock and then mu, and brings the model up to
// the fan-out position: the screen exactly as every client has it. The
// backlog is drawn without mu (model.lockCaughtUp), so however long that
// takes, wr ls and everything else that takes mu waits only for the
// caller's own critical section.
func (ss *session) lockModel() {
	ss.model.lockCaughtUp(func(backlog int64) {
		ss.srv.logf("session %s: drawing %d KiB of output into its screen model before its screen is read", ss.name, backlog>>10)
	})
}

func (ss *session) unlockModel() { ss.model.unlock() }

// waitLoop reaps the child, lets the reader drain, then ends the session.
// Exited goes out only after the reader has finished, so it follows the
// last Output on every client's queue.
func (ss *session) waitLoop() {
	ss.proc.WaitExited()
	// Reap under reapMu: a kill snapshots the tree under it too, so it
	// never reads the child's pid after the pid is free for reuse.
	ss.reapMu.Lock()
	code, err := ss.proc.Wait()
	ss.exitedAt.Store(time.Now().UnixNano())
	ss.reapMu.Unlock()
	if err != nil {
		ss.srv.logf("session %s: wait: %v", ss.name, err)
	}
	_ = ss.proc.SetReadDeadline(time.Now().Add(drainQuiet))
	ss.wake() // a parked PTY is drained too
	<-ss.drained
	if ss.killed.Load() {
		code = 128 + 1 // wr kill hangs the session up: SIGHUP, whatever the shell made of it
	}
	ss.end(code)
}

// end ends the session. A session that exited by itself is drawn to its
// end first (lockModel: in batches, wr ls is not held up), so a lagging
// client is redrawn with the final screen. A killed one draws nothing more:
// its backlog was discarded (model.dropped), its clients get Exited after
// whatever they were sent, and it leaves wr ls at once.
func (ss *session) end(code int) {
	exited, _ := wire.Encode(wire.Exited{Code: code})
	killed := ss.killed.Load()
	if killed {
		ss.mu.Lock()
	} else {
		ss.lockModel()
	}
	ss.ended = true
	ss.code = code
	clients := ss.order
	ss.clients, ss.order, ss.owner = map[int]*client{}, nil, nil
	ss.answerers.Store(0)
	for _, c := range clients {
		// A client that fell behind gets the final screen before Exited.
		if !killed {
			c.resyncIfLagging(ss.model.scr)
		}
		c.close(wire.TypeExited, exited)
	}
	ss.model.stop()
	if killed {
		ss.mu.Unlock()
	} else {
		ss.unlockModel()
	}
	_ = ss.proc.Close()
	ss.srv.removeSession(ss)
	close(ss.done)
}

// attach registers c, applies the size rules and queues the restore: the
// screen as it is, then live output from exactly that point (both under
// mu, which the reader holds while it feeds the model and fans out; the
// backlog was drawn before, without mu, by lockModel). It fails if the
// session has already ended.
//
// A client that created the session gets no restore (there is nothing to
// show, and a command run through wr must print exactly what it prints),
// and nor does a relay with no terminal, which wants the program's bytes,
// not a drawing.
func (ss *session) attach(c *client, accepted []byte, restore bool) bool {
	ss.lockModel()
	defer ss.unlockModel()
	if ss.ended {
		return false
	}
	// The acceptance goes first, so the client sees it before any Output.
	c.send(wire.TypeAttached, accepted)
	ss.clients[c.id] = c
	ss.order = append(ss.order, c)
	// Size first: a client that takes the size sees the screen at its size.
	ss.sizeAttach(c)
	ss.countAnswerers()
	if restore && c.cols > 0 {
		ss.model.sync() // the size may have just changed
		c.sendRedraw(ss.model.scr.AppendRestore(nil))
	}
	return true
}

// resync redraws a client that fell behind, from the model, once its writer
// has drained what it had. Output dropped while it lagged is not replayed.
func (ss *session) resync(c *client) {
	ss.lockModel()
	c.resyncIfLagging(ss.model.scr)
	ss.unlockModel()
}

// capture renders the screen for wr capture.
func (ss *session) capture(opt screen.TextOptions) []byte {
	ss.lockModel()
	defer ss.unlockModel()
	return ss.model.scr.AppendText(nil, opt)
}

// detach removes c; its queue still drains before its connection closes.
func (ss *session) detach(c *client) {
	// A pending lone-ESC timer must not act for a client that has gone.
	c.inMu.Lock()
	c.escGen++
	if c.escTimer != nil {
		c.escTimer.Stop()
		c.escTimer = nil
	}
	c.inMu.Unlock()
	ss.mu.Lock()
	if _, ok := ss.clients[c.id]; ok {
		delete(ss.clients, c.id)
		for i, o := range ss.order {
			if o == c {
				ss.order = append(ss.order[:i:i], ss.order[i+1:]...)
				break
			}
		}
		ss.countAnswerers()
		ss.sizeDetach(c)
	}
	ss.mu.Unlock()
	c.close(0, nil)
	ss.srv.clientLeft()
}

func (ss *session) resize(c *client, cols, rows int) {
	ss.mu.Lock()
	ss.sizeResize(c, max(cols, 0), max(rows, 0))
	ss.countAnswerers()
	ss.mu.Unlock()
}

// countAnswerers records how many attached clients have a terminal that can
// answer a query (not read-only, not a 0x0 relay). With none, the model
// answers: a program watched only by read-only clients or pipes would
// otherwise wait for an answer that never comes. Called with mu held.
func (ss *session) countAnswerers() {
	n := 0
	for _, c := range ss.order {
		if c.canOwn() {
			n++
		}
	}
	ss.answerers.Store(int32(n))
}

// writePTY writes b to the PTY whole; inputs never interleave.
func (ss *session) writePTY(b []byte) error {
	_, err := ss.writePTYBy(b, time.Time{})
	return err
}

// errInputBusy is a deadline that passed before the PTY was free to write.
var errInputBusy = errors.New("the session's input is held by another writer")

// writePTYBy is writePTY that gives up at deadline (zero: never), returning
// how much of b the program took: errInputBusy if another input held the PTY
// until then, os.ErrDeadlineExceeded if the program stopped taking b.
func (ss *session) writePTYBy(b []byte, deadline time.Time) (int, error) {
	if !ss.inputTurn.lockBy(deadline) {
		return 0, errInputBusy
	}
	defer ss.inputTurn.unlock()
	n, err := ss.proc.WriteAllBy(b, deadline)
	if errors.Is(err, ptyproc.ErrClosed) {
		err = fmt.Errorf("session %s has ended", ss.name)
	}
	return n, err
}

// turn is a mutex that can be waited for with a deadline.
type turn chan struct{}

func newTurn() turn { return make(turn, 1) }

// lockBy takes the turn, or gives up at deadline (zero: never) and
// reports false.
func (t turn) lockBy(deadline time.Time) bool {
	if deadline.IsZero() {
		t <- struct{}{}
		return true
	}
	select {
	case t <- struct{}{}:
		return true
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case t <- struct{}{}:
		return true
	case <-timer.C:
		return false
	}
}

func (t turn) unlock() { <-t }

// info describes the session for wr ls.
func (ss *session) info() wire.SessionInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	in := wire.SessionInfo{
		Name: ss.name, PID: ss.pid, Clients: len(ss.order),
		Cols: ss.cols, Rows: ss.rows, Created: ss.created.Format(time.RFC3339),
		Command: ss.command, Cwd: ss.cwd, Attached: []wire.ClientInfo{},
	}
	if ss.owner != nil {
		id := ss.owner.id
		in.Owner = &id
	}
	for _, c := range ss.order {
		in.Attached = append(in.Attached, wire.ClientInfo{
			ID: c.id, Cols: c.cols, Rows: c.rows, ReadOnly: c.readOnly,
			Since: c.since.Format(time.RFC3339),
		})
	}
	return in
}
