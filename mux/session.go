package mux

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"wr/ptyproc"
	"wr/screen"
	"wr/wire"
)

// Locks, in the order they are taken (a lock is only ever taken while
// holding locks above it in its own chain, never one below it):
//
//	model.mu -> session.mu -> client.queueMu
//	client.inMu -> session.mu
//	client.inMu -> session.inputTurn
//	session.sendTurn -> session.inputTurn
//	upgradeState.mu -> server.mu (an upgrade, and relisten)
//
// Taken alone, with no other lock of mux held and none taken inside them:
// server.mu, memoryRelease.mu, session.readMu, session.reapMu.
//
// owedAnswers.mu (queries.go) is a leaf, taken under client.inMu,
// session.mu and client.queueMu; session.heldMu is one, taken under
// session.mu and session.inputTurn.
//
// busyProcs.mu (procs.go) is a leaf: taken under session.mu and model.mu
// (a client attaching, leaving or resizing) and alone by readers and
// feeders, and nothing is taken under it.
//
//   - server.mu (server): the registry, each exited session's expiry
//     timer, and the server's lifecycle. No session lock is held while it
//     is taken, nor taken while it is held (what it needs of a session's
//     state, whether it is exited, is an atomic).
//   - model.mu (model.go): the screen model, held while it is drawn. Taken
//     before session.mu, never after it: the feeder and lockCaughtUp take
//     the session's mu under it only to take ops off pending. The one
//     exception never waits: the fan-out's feedInline tries it (TryLock)
//     under session.mu, and kicks the feeder if it is held.
//   - session.mu: the clients, the size owner, the model's pending ops.
//     The PTY reader holds it while it fans a chunk out.
//   - client.queueMu: one client's queue; taken under session.mu by the
//     fan-out, and alone by the client's writer.
//   - client.inMu: one client's input (its classifier and lone-ESC timer),
//     held while that input is forwarded, so across the PTY write.
//   - session.sendTurn, session.inputTurn (turn: a mutex with a deadline):
//     a whole wr send, and one write to the PTY. A PTY write can wait as
//     long as the program does not read, so neither session.mu nor
//     model.mu is ever held while waiting for inputTurn or holding it: the
//     program may be waiting for its output to be read.
//   - session.readMu: the reader's state; session.reapMu: the child's pid
//     while it is reaped or a kill reads it.
//
// A function named fooLocked must be called with a lock held, and its
// comment says which one: most often the session's mu (the size rules,
// model.pushLocked, client.resyncIfLaggingLocked); model.applyLocked's is
// model.mu, client.dropQueuedOutputLocked's the client's queueMu. Nothing
// waits for a channel, a client's socket or the PTY while holding
// session.mu or model.mu; only client.inMu and the turns are held across
// a PTY write.

// session is one PTY and the clients attached to it.
type session struct {
	// nameP is the session's name: set when it starts, and changed by
	// rename (under server.mu, which the registry's key needs). Read with
	// name, from anywhere.
	nameP atomic.Pointer[string]

	// Set when the session is started, then only read.
	srv    *server
	marker string // WR_SESSION_ID=<random>: in the environment of everything the session starts
	// agentLink is the name, in the socket directory, of the link the
	// session's SSH_AUTH_SOCK names (agent.go).
	agentLink string
	pid       int
	created   time.Time
	command   []string
	cwd       string
	model     *model // what a terminal would show; locked as model.go says (lockModel)

	// proc is the PTY and the child. It is closed by end, and earlier by
	// killSessions (the hang-up closes the PTY master); ptyproc's Close
	// may be called twice, and the second one's error is ignored.
	proc *ptyproc.Process
	// ptySize is proc as the size rules see it, so they can be tested
	// without a PTY (size_test.go).
	ptySize resizer

	// mu guards the fields below it up to answerers. The PTY reader holds
	// it while it fans a chunk out, so a client registered under mu sees
	// exactly the output that follows its registration: nothing lost,
	// nothing doubled. Each attached client's cols and rows are guarded by
	// it too (client.go).
	mu      sync.Mutex
	clients map[int]*client
	// env is the refreshed variables of the client that last acted, and
	// agentTarget where the agent link points (agent.go).
	env         map[string]string
	agentTarget string
	order       []*client // attach order, for "the earliest attached client"
	owner       *client
	cols, rows  int
	ended       bool
	code        int          // written by end under mu; read without it only after done is closed, or exited is set
	queryScan   queryScan    // the queries in the program's output (queryscan.go)
	asked       askedQueries // and the ledger of them (asked.go)
	// answerers is written under mu (countAnswerersLocked) and read without
	// it by the reader, which waits for output differently when it is zero.
	answerers atomic.Int32 // attached clients whose terminal can answer a query

	// heldOut is answers held for an answerer that will not answer after
	// all (heldAnswersLocked), written before whatever the PTY is written
	// next, so they keep their place before later answers. Guarded by
	// heldMu, a leaf.
	heldMu  sync.Mutex
	heldOut []byte
	// heldSome is set while heldOut holds something: every keystroke's
	// write looks, and one atomic load is all it costs then.
	heldSome atomic.Bool

	// shown is guarded by mu: how far each terminal has been shown the
	// scrollback (shown.go).
	shown shownTerms

	// turnsP is the session's input and send turns (inputTurn, sendTurn),
	// made for its first input, send or answer to a query: an idle server
	// holds mostly sessions nobody is typing into, and two channels (224
	// bytes) made up front would be a twentieth of what each one holds.
	turnsP atomic.Pointer[sessionTurns]

	// readMu guards reader and cannotPark. The PTY is read by a goroutine
	// that runs while output comes and ends after linger without any,
	// handing the PTY to the server's watcher, which starts another when
	// output comes again: an idle session holds no goroutine.
	readMu     sync.Mutex
	reader     readerState
	cannotPark bool // the watcher refused the PTY once; said in the log
	// drained is done by readerDone, once, when the last reader has read
	// everything after the child's exit (the state is then readDone, and no
	// reader starts again); waitLoop waits for it. A WaitGroup, not a
	// channel: nothing selects on it, and it needs no allocation.
	drained sync.WaitGroup

	// keep is how long the session is kept, exited, if its command ends
	// with nobody attached and it was not killed; 0: not kept. Set at start.
	keep time.Duration
	// exited is set by end, once, under mu, when the session is kept: its
	// command ended with nobody attached. code and endedAt are written
	// before it, so whoever reads it true may read them without mu. An
	// exited session has no PTY, no goroutine and no process: only its
	// model, until it is collected (server.collect).
	exited  atomic.Bool
	endedAt time.Time
	// expiry removes the kept session after keep; guarded by server.mu.
	expiry *time.Timer

	killed   atomic.Bool  // set by killSessions before its sweep; never cleared
	reapMu   sync.Mutex   // held while the child is reaped (waitLoop), and while a kill reads its pid (snapshot)
	exitedAt atomic.Int64 // unix nanos when the child was reaped; 0 while running; written by waitLoop
	// done is closed by end, once, when the session has left the registry;
	// wr wait (handleWait) and kills (killSessions) wait for it.
	done chan struct{}
}

// sessionTurns is a session's input and send turns.
type sessionTurns struct{ input, send turn }

// turns returns the session's turns, making them the first time.
func (ss *session) turns() *sessionTurns {
	if t := ss.turnsP.Load(); t != nil {
		return t
	}
	ss.turnsP.CompareAndSwap(nil, &sessionTurns{input: newTurn(), send: newTurn()})
	return ss.turnsP.Load()
}

// inputTurn serialises writes to the PTY so inputs never interleave.
func (ss *session) inputTurn() turn { return ss.turns().input }

// sendTurn is held for a whole wr send, so two sends never interleave.
// Both turns can be waited for with a deadline: a send to a program that
// does not read gives up, and the one behind it too.
func (ss *session) sendTurn() turn { return ss.turns().send }

// name is the session's current name.
func (ss *session) name() string { return *ss.nameP.Load() }

// setName names the session; the registry's key is changed by the caller
// (server.rename), under server.mu.
func (ss *session) setName(name string) { ss.nameP.Store(&name) }

// resizer is what the size rules need of the PTY.
type resizer interface {
	Resize(cols, rows int) error
}

// lockModel takes the model's lock and then mu, and brings the model up to
// the fan-out position: the screen exactly as every client has it. The
// backlog is drawn without mu (model.lockCaughtUp), so however long that
// takes, wr ls and everything else that takes mu waits only for the
// caller's own critical section.
func (ss *session) lockModel() {
	ss.model.lockCaughtUp(func(backlog int64) {
		ss.srv.logf("session %s: drawing %d KiB of output into its screen model before its screen is read", ss.name(), backlog>>10)
	})
}

func (ss *session) unlockModel() { ss.model.unlock() }

// waitLoop reaps the child, lets the reader drain, then ends the session.
// Exited goes out only after the reader has finished, so it follows the
// last Output on every client's queue.
func (ss *session) waitLoop() {
	ss.proc.WaitExited()
	// Not while an upgrade hands the session over: the new server reaps
	// it (upgrade.go).
	ss.srv.awaitUpgrade()
	// Reap under reapMu: a kill snapshots the tree under it too, so it
	// never reads the child's pid after the pid is free for reuse.
	ss.reapMu.Lock()
	code, err := ss.proc.Wait()
	ss.exitedAt.Store(time.Now().UnixNano())
	ss.reapMu.Unlock()
	if err != nil {
		ss.srv.logf("session %s: wait: %v", ss.name(), err)
	}
	_ = ss.proc.SetReadDeadline(time.Now().Add(drainQuiet))
	ss.wake() // a parked PTY is drained too
	ss.drained.Wait()
	if ss.killed.Load() {
		code = 128 + 1 // wr kill hangs the session up: SIGHUP, whatever the shell made of it
	}
	ss.end(code)
}

// end ends the session. A session that exited by itself is drawn to its
// end first (lockModel: in batches, wr ls is not held up), so a lagging
// client is redrawn with the final screen, and a session kept exited keeps
// the screen as it was when the command ended. A killed one draws nothing
// more: its backlog was discarded (model.dropped), its clients get Exited
// after whatever they were sent, and it leaves wr ls at once.
//
// A session that ends with nobody attached, and was not killed, is kept
// (exited) for its keep: nobody has seen its code or its last screen yet.
// One with a client attached has delivered them, and is removed.
func (ss *session) end(code int) {
	ending := ""
	killed := ss.killed.Load()
	if killed {
		ending = wire.EndKilled
		ss.srv.mu.Lock()
		if ss.srv.draining {
			ending = wire.EndStopped
		}
		ss.srv.mu.Unlock()
		ss.mu.Lock()
	} else {
		ss.lockModel()
	}
	// A killed session's model is not drawn to its end (only mu is held):
	// its last line is taken to be used.
	ss.ended = true
	ss.code = code
	clients := ss.order
	ss.clients, ss.order, ss.owner = map[int]*client{}, nil, nil
	ss.answerers.Store(0)
	// Nobody types into it any more: it must not keep the server on two
	// Ps for later bursts, nor its model alive (procs.go). Its clients'
	// detach finds them gone and counts nothing.
	typedInto(ss.model, false)
	// A recorder has not seen the code for anyone: only a person's client
	// (or a script's attach) has. One that confirms the code (over ssh)
	// has not seen it yet either: it may be behind a link that died
	// unnoticed, and is asked for ExitSeen, which collects the session.
	seen := slices.ContainsFunc(clients, func(c *client) bool { return !c.record && !c.acksExit })
	keep := !killed && !seen && ss.keep > 0
	if keep {
		// Exited before anyone is asked to confirm it: an ExitSeen that
		// came back at once would otherwise find nothing to collect.
		ss.endedAt = time.Now()
		ss.exited.Store(true)
	}
	e := wire.Exited{Code: code, Ending: ending, LineUsed: killed || lineUsed(ss.model.scr)}
	exited, _ := wire.Encode(e)
	e.Ack = true
	asking, _ := wire.Encode(e)
	for _, c := range clients {
		// A client that fell behind gets the final screen before Exited.
		if !killed {
			c.resyncIfLaggingLocked(ss.model.scr)
		}
		if keep && c.acksExit {
			c.closeAwaitingSeen(wire.TypeExited, asking)
		} else {
			c.close(wire.TypeExited, exited)
		}
	}
	ss.model.stopLocked()
	if killed {
		ss.mu.Unlock()
	} else {
		ss.unlockModel()
	}
	_ = ss.proc.Close()
	ss.removeAgentLink()
	ss.srv.sessionEnded(ss, keep)
	close(ss.done)
}

// attachResult is what attach did with a client.
type attachResult uint8

const (
	attachGone   attachResult = iota // the session ended and was removed: the caller says so
	attachLive                       // registered: the client is attached
	attachExited                     // the session is exited: the client was shown it and closed
)

// attach registers c, applies the size rules and queues the restore: the
// screen as it is, then live output from exactly that point (both under
// mu, which the reader holds while it feeds the model and fans out; the
// backlog was drawn before, without mu, by lockModel). It reports
// attachGone if the session has ended and was not kept.
//
// A client that created the session gets no restore (there is nothing to
// show, and a command run through wr must print exactly what it prints),
// and nor does a relay with no terminal, which wants the program's bytes,
// not a drawing.
//
// An exited session is shown instead (attachExited): Attached{Exited}, its
// last screen (to a client with a terminal size), then Exited with its
// code, and the client is closed; the caller collects the session.
func (ss *session) attach(c *client, acc wire.Attached, restore bool) attachResult {
	ss.lockModel()
	defer ss.unlockModel()
	if ss.exited.Load() {
		acc.Exited = true
		acc.Cols, acc.Rows = ss.cols, ss.rows
		accepted, _ := wire.Encode(acc)
		c.send(wire.TypeAttached, accepted)
		switch {
		case c.record:
			c.sendRedraw(ss.model.scr.AppendRestoreFrom(nil, ss.model.scr.ScrolledOff()))
		case c.cols <= 0:
		case c.cols == ss.cols && c.rows == ss.rows:
			c.sendRedraw(ss.model.scr.AppendRestore(nil))
		default:
			// Drawn to fit the terminal, as a live session's would be.
			c.sendRedraw(ss.model.scr.AppendViewUpdate(nil, screen.NewView(c.cols, c.rows)))
		}
		if c.acksExit { // never a recorder (serveAttach)
			exited, _ := wire.Encode(wire.Exited{Code: ss.code, Ack: true})
			c.closeAwaitingSeen(wire.TypeExited, exited)
		} else {
			exited, _ := wire.Encode(wire.Exited{Code: ss.code})
			c.close(wire.TypeExited, exited)
		}
		return attachExited
	}
	if ss.ended {
		return attachGone
	}
	acc.Cols, acc.Rows = ss.cols, ss.rows
	accepted, _ := wire.Encode(acc)
	// The acceptance goes first, so the client sees it before any Output.
	c.send(wire.TypeAttached, accepted)
	ss.clients[c.id] = c
	ss.order = append(ss.order, c)
	ss.actedLocked(c)
	// Size first: a client that takes the size sees the screen at its size.
	ss.sizeAttachLocked(c)
	ss.countAnswerersLocked()
	ss.reviewViewsLocked()
	switch {
	case c.record:
		// A recorder starts with the screen as it is, at the session's
		// size, without the scrollback; the bytes follow from there.
		if restore {
			ss.model.syncLocked()
			c.sendRedraw(ss.model.scr.AppendRestoreFrom(nil, ss.model.scr.ScrolledOff()))
		}
	case c.view != nil:
		// A terminal of another size: its first frame, drawn at its size,
		// with no scrollback (view.go); it has been shown none (shown.go).
		ss.model.syncLocked()
		ss.drawLocked(c, true)
	default:
		ss.restoreLocked(c, restore) // shown.go
	}
	return attachLive
}

// resync redraws a client that fell behind, from the model, once its writer
// has drained what it had. Output dropped while it lagged is not replayed.
func (ss *session) resync(c *client) {
	ss.lockModel()
	if c.view != nil && !ss.ended && ss.clients[c.id] == c {
		// A drawn client that fell behind: the difference (view.go).
		c.queueMu.Lock()
		c.lagging = false
		c.queueMu.Unlock()
		ss.drawLocked(c, false)
	} else {
		c.resyncIfLaggingLocked(ss.model.scr)
	}
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
	c.stopEscTimer()
	if c.restoreAsk.terminal != "" {
		ss.lockModel() // for the scrollback it was shown (shown.go)
	} else {
		ss.mu.Lock()
	}
	ss.removeLocked(c)
	if c.restoreAsk.terminal != "" {
		ss.unlockModel()
	} else {
		ss.mu.Unlock()
	}
	c.close(0, nil)
	ss.srv.clientLeft()
}

// removeLocked takes c off the session, if it is on it, and applies the
// size rules to its leaving; it reports whether it was. Called with the
// model caught up when c names its terminal (recordShownLocked), else with
// mu.
func (ss *session) removeLocked(c *client) bool {
	if _, ok := ss.clients[c.id]; !ok {
		return false
	}
	ss.recordShownLocked(c)
	delete(ss.clients, c.id)
	for i, o := range ss.order {
		if o == c {
			ss.order = append(ss.order[:i:i], ss.order[i+1:]...)
			break
		}
	}
	ss.countAnswerersLocked()
	ss.sizeDetachLocked(c)
	ss.heldAnswersLocked(ss.asked.leftWhere(func(id int) bool { return id == c.id }))
	return true
}

// detachClients detaches every client but keep (nil: every one) and the
// recorders, which are not anyone's terminal (wr detach, wr attach -d):
// each is taken off the session at once, so wr ls no longer counts it when
// the request is answered, and gets Detached, after which its connection
// closes. Its reader then finds it gone (detach). It reports how many
// were detached.
func (ss *session) detachClients(keep *client) int {
	ss.mu.Lock()
	var kick []*client
	for _, c := range ss.order {
		if c != keep && !c.record {
			kick = append(kick, c)
		}
	}
	ss.mu.Unlock()
	for _, c := range kick {
		c.stopEscTimer() // inMu comes before the session's locks
	}
	ss.lockModel()
	n := 0
	for _, c := range kick {
		if ss.removeLocked(c) {
			c.close(wire.TypeDetached, nil)
			n++
		}
	}
	ss.unlockModel()
	return n
}

// renamed tells every attached client the session's new name.
func (ss *session) renamed() {
	ss.mu.Lock()
	// The name as it is now, read under mu: two renames in a row reach
	// each client in order, the last one last.
	p, _ := wire.Encode(wire.Renamed{Name: ss.name()})
	for _, c := range ss.order {
		c.send(wire.TypeRenamed, p)
	}
	ss.mu.Unlock()
}

// sizeChangedLocked tells the recorders the session's new size, in line
// with the output: what follows was written at that size. Called with mu
// held, by the size rules once the PTY has it.
func (ss *session) sizeChangedLocked() {
	var p []byte
	for _, c := range ss.order {
		if c.record {
			if p == nil {
				p, _ = wire.Encode(wire.Resize{Cols: ss.cols, Rows: ss.rows})
			}
			c.send(wire.TypeSize, p)
		}
	}
}

// keyModes are the modes the session's program set that change what a
// key sends, as of everything it has written so far.
func (ss *session) keyModes() wire.KeyModes {
	ss.lockModel()
	defer ss.unlockModel()
	return wire.KeyModes{CursorKeysApp: ss.model.scr.CursorKeysApp()}
}

func (ss *session) resize(c *client, cols, rows int) {
	ss.mu.Lock()
	cols, rows = clientSize(cols, rows)
	ss.sizeResizeLocked(c, cols, rows)
	ss.countAnswerersLocked()
	ss.mu.Unlock()
}

// countAnswerersLocked records how many attached clients have a terminal that can
// answer a query (not read-only, not a 0x0 relay). With none, the model
// answers: a program watched only by read-only clients or pipes would
// otherwise wait for an answer that never comes. The same clients are the
// ones a person could type into (procs.go). Called with mu held.
func (ss *session) countAnswerersLocked() {
	n := 0
	for _, c := range ss.order {
		if c.canOwn() {
			n++
		}
	}
	if ss.answerers.Swap(int32(n)) > 0 && n == 0 {
		ss.kickReader() // the reader waits without a deadline no more (setReadDeadline)
	}
	typedInto(ss.model, n > 0) // procs.go
}

// info describes the session for wr ls.
func (ss *session) info() wire.SessionInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	in := wire.SessionInfo{
		Name: ss.name(), PID: ss.pid, Clients: len(ss.order),
		Cols: ss.cols, Rows: ss.rows, Created: ss.created.Format(time.RFC3339),
		Command: ss.command, Cwd: ss.cwd, Attached: []wire.ClientInfo{},
		State: wire.StateRunning, Behind: ss.model.lag.Load(),
	}
	if ss.exited.Load() {
		code := ss.code
		in.State, in.ExitCode, in.Ended = wire.StateExited, &code, ss.endedAt.Format(time.RFC3339)
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
