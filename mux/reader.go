package mux

import (
	"errors"
	"os"
	"time"

	"wr/ptyproc"
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
	readWoken                      // the watcher reads what woke it (wake)
	readDone                       // everything was read: the session is ending
)

// readChunk is the most one PTY read takes; arena is the buffer reads are
// carved from, so a chunk is shared by every client without a copy.
const (
	readChunk = 64 << 10
	arenaSize = 256 << 10
	minArena  = 1 << 10 // what a quiet session holds: a prompt, an echo
	minRoom   = 512     // an arena with less room left is replaced before a read
	// burstArena is the arena size at which a reader is in a burst: output
	// came faster than a byte a microsecond for several arenas in a row.
	burstArena = 64 << 10
)

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
	// A reader whose arenas have grown to burstArena is in a burst, for
	// which the server may take a second P (procs.go).
	burst := false
	var pace floodPace
	total := 0 // read by this reader
	defer func() {
		if burst {
			burstEnds(ss.model)
			ss.model.flooding.Store(false)
		}
	}()
	get := func() []byte {
		// A reader on a lead (typing.go) reads slowly on purpose: it
		// stays in its burst.
		if arena != nil && (time.Since(born) < time.Duration(len(arena))*time.Microsecond || pace.led()) {
			next = min(next*2, arenaSize)
		} else {
			next = minArena
		}
		if now := next >= burstArena; now != burst {
			burst = now
			ss.model.flooding.Store(burst)
			if burst {
				burstBegins(ss.model)
			} else {
				burstEnds(ss.model)
			}
		}
		arena, off, born = make([]byte, next), 0, time.Now()
		return arena[:min(readChunk, len(arena))]
	}
	for {
		if burst {
			// A person typing in another session comes first (typing.go).
			pace.step(&ss.srv.typing, ss, time.Now, time.Sleep)
		}
		if ss.holdForUpgrade() { // upgrade.go
			return
		}
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
		if at != 0 && time.Since(time.Unix(0, at)) > drainMax {
			ss.readerDone()
			return
		}
		ss.setReadDeadline(at, total >= burstArena)
		var room []byte // nil: ReadReady allocates a new arena through get
		if len(arena)-off >= minRoom {
			room = arena[off:min(off+readChunk, len(arena))]
		}
		n, err := ss.proc.ReadReady(room, get)
		if n > 0 {
			chunk := arena[off : off+n : off+n]
			off += n
			total += n
			ss.srv.output.Add(int64(n))
			// A restore is drawing this session's backlog (lockModel):
			// wait for it to end, so that the backlog does.
			ss.model.awaitCatchUp()
			ss.fanOut(chunk)
			if burst && !onTwoPs() && ss.srv.knocks.knocking() {
				knocked() // a wr ls, a key typed into this session (procs.go)
			}
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

// setReadDeadline sets the deadline of the reader's next read: drainQuiet
// after the exit; none while someone at a terminal is attached, whose
// keystrokes' echoes then find a reader waiting; linger otherwise. A
// reader that parks after each echo costs a person's keystroke a wake-up
// of the watcher and a park on a timer: 60 to 80 µs an echo at a person's
// pace (docs/benchmarks.md), which outweighs a goroutine for a session
// someone is looking at. A reader that has read a burst (loud) still parks
// after linger, attached or not: its parking is how the server sees the
// burst end and hands its memory back (release.go). at is exitedAt as the
// reader loaded it.
func (ss *session) setReadDeadline(at int64, loud bool) {
	if at != 0 {
		_ = ss.proc.SetReadDeadline(time.Now().Add(drainQuiet))
		return
	}
	if !loud && ss.answerers.Load() > 0 {
		_ = ss.proc.SetReadDeadline(time.Time{})
		// Looked at again after: what ends a wait without a deadline
		// (the last terminal leaving, an upgrade holding the readers)
		// changes what is looked at here first and kicks the reader
		// second (kickReader), so either this sees the change or the kick
		// comes after the deadline was cleared.
		if ss.answerers.Load() > 0 && !ss.srv.up.readersHeld.Load() {
			return
		}
	}
	_ = ss.proc.SetReadDeadline(time.Now().Add(linger))
}

// kickReader ends a read waiting without a deadline (setReadDeadline), so
// that the reader looks again at whether it should park or hold. After
// the exit the drain's own deadline stands.
func (ss *session) kickReader() {
	if ss.proc != nil && ss.exitedAt.Load() == 0 {
		_ = ss.proc.SetReadDeadline(time.Now())
	}
}

// park leaves the quiet PTY to the watcher, which starts a reader again
// when output comes, and reports true; or false if the child has exited
// and this reader must drain instead. Arming and the state change happen
// under readMu, so a wake-up that comes at once waits for both.
func (ss *session) park() bool {
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	return ss.parkLocked()
}

// parkLocked is park with readMu held.
func (ss *session) parkLocked() bool {
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
			ss.srv.logf("session %s: an idle reader cannot park, it keeps its goroutine: %v", ss.name(), err)
		}
		return false
	}
	ss.reader = readIdle
	return true
}

// wake is called for a parked PTY that has output, on the watcher's
// goroutine, or to drain it after the child's exit. What woke the watcher
// is most often short (an echo, a prompt), and the watcher reads it and
// parks the PTY again itself: a reader goroutine started for it would
// linger for more, then park on a timer, and at a person's pace of typing
// that path cost each echo about 80 µs more (docs/benchmarks.md). A read
// that fills its buffer (a burst begins), or anything the watcher must
// not wait for, starts a reader.
func (ss *session) wake() {
	ss.readMu.Lock()
	defer ss.readMu.Unlock()
	if ss.reader != readIdle {
		return
	}
	if ss.watcherMayRead() {
		// readMu is not held across the read and the fan-out (it is
		// taken alone); readWoken keeps a second wake out meanwhile, and
		// parkLocked looks at the exit again after.
		ss.reader = readWoken
		ss.readMu.Unlock()
		short := ss.readWoken()
		ss.readMu.Lock()
		if short && ss.parkLocked() {
			return
		}
	}
	ss.reader = readRunning
	go ss.readLoop()
}

// watcherMayRead reports whether the watcher may read the PTY itself: not
// while someone at a terminal is attached (a reader started then stays,
// setReadDeadline), not after the exit (a reader drains it), and not while
// an upgrade holds readers, a restore draws the backlog or the model is far
// behind (a reader waits for those, and the watcher must not).
func (ss *session) watcherMayRead() bool {
	return ss.answerers.Load() == 0 && ss.exitedAt.Load() == 0 && !ss.srv.up.readersHeld.Load() &&
		ss.model.hold.Load() == nil && ss.model.lag.Load() <= maxModelLag
}

// readWoken is the watcher's one read of a woken PTY, into an arena of
// minArena, fanned out as a reader's would be. It reports whether the read
// was short: nothing more is waiting, and the PTY can park again.
func (ss *session) readWoken() bool {
	buf := make([]byte, minArena)
	n, err := ss.proc.ReadNow(buf)
	if n > 0 {
		ss.srv.output.Add(int64(n))
		ss.fanOut(buf[:n:n])
	}
	return err == nil && n < len(buf)
}

// fanOutQueriesLocked is fanOut's sending for a chunk that holds queries:
// they are numbered in the session's ledger (asked.go), with the client
// that answers for the session, and each client's terminal is recorded as
// owing their answers (queries.go) just before the chunk is queued or
// written to it, so no answer can come back first. The answerer is sent it
// first: if it has fallen behind, and will be sent a redraw in place of
// the chunk, another terminal that was sent it answers, or with none, the
// model, and the ledger says so. Called with mu held.
func (ss *session) fanOutQueriesLocked(chunk []byte, queries []queryKind, answerer *client, help bool) {
	now := time.Now()
	recorded := answeredByWr
	if answerer != nil {
		recorded = answerer.id
	}
	first := ss.asked.add(len(queries), recorded, now)
	asks := askRange{first: first, n: len(queries)}
	send := func(c *client) bool {
		return ss.sendChunkLocked(c, chunk, asks, func() { c.classifier.owed.owe(queries, first, recorded, now) }, help)
	}
	if answerer == nil {
		ss.model.answerLastLocked()
	}
	behind := answerer != nil && !send(answerer)
	var stand *client // a terminal that answers in the answerer's place
	for _, c := range ss.order {
		switch {
		case c == answerer:
		case c.view != nil:
			ss.frameLocked(c) // drawn from the model (view.go), which holds no query
		default:
			if send(c) && behind && stand == nil && c.canOwn() {
				stand = c
			}
		}
	}
	switch {
	case !behind:
	case stand != nil:
		// The answerer is behind, and will be sent a redraw in place of
		// this chunk: another terminal that was sent it answers all its
		// queries, in the order asked. (wr answering what it can and that
		// terminal the rest put wr's DA1, which programs send last to
		// know the answers are in, before the terminal's colours.)
		ss.asked.reassign(first, len(queries), stand.id)
		stand.classifier.owed.reassign(first, len(queries), stand.id) // its answers are its own: it may take the size
	default:
		ss.asked.reassign(first, len(queries), answeredByWr)
		ss.model.answerLastLocked()
	}
}

// sendChunkLocked sends c a chunk of output that holds the queries asks,
// running first just before it is queued or written (client.sendThen),
// and records the queries of output the send dropped to make room; with
// help, it writes for c's writer as far as its socket takes (helpWriter).
// It reports whether c was sent the chunk. Called with mu held.
func (ss *session) sendChunkLocked(c *client, chunk []byte, asks askRange, first func(), help bool) bool {
	sent, lost := c.sendThen(wire.TypeOutput, chunk, asks, first)
	if lost != nil {
		ss.loseAsksLocked(c, lost)
	}
	if help {
		c.helpWriter()
	}
	return sent
}

// loseAsksLocked records that client c's copy of the queries in lost was
// dropped unsent: those it answered for are another client's to answer
// (answerGoesLocked). Called with mu held.
func (ss *session) loseAsksLocked(c *client, lost []askRange) {
	var held []byte
	for _, r := range lost {
		held = append(held, ss.asked.lose(c.id, r.first, r.n)...)
	}
	ss.heldAnswersLocked(held) // in one write, in order
}

// readerDone records that the PTY was read to its end.
func (ss *session) readerDone() {
	ss.readMu.Lock()
	ss.reader = readDone
	ss.readMu.Unlock()
	ss.drained.Done()
	ss.srv.outputQuiet()
}

// fanOut hands one chunk to the screen model and to every attached client,
// under mu: a client registered under mu sees exactly the output after its
// restore.
func (ss *session) fanOut(chunk []byte) {
	ss.mu.Lock()
	drawInline := ss.model.pushLocked(modelOp{chunk: chunk})
	// A reader pouring on one P (procs.go) keeps it while the program has
	// output, and a writer waiting for room in its socket is woken only
	// when Go polls: when the P runs dry, or every 10 ms. Its queue passed
	// maxQueued, and a client that kept up was sent a redraw in place of
	// 40% of a cat (BenchmarkThroughput's wr-shown/sent 0.57). So the
	// reader writes for the writer, as far as the socket takes it now
	// (helpWriter).
	help := ss.model.flooding.Load() && !onTwoPs()
	queries := ss.queryScan.scan(chunk)
	// The model answers a chunk's queries (modelOp.answers) when no
	// terminal that answers for the session is sent it: nobody is
	// attached, every client is drawn at another size, or the one that
	// answers has fallen behind (and will be sent a redraw in its place)
	// and no other terminal was sent it (fanOutQueriesLocked).
	// Decided here, not when the model draws the chunk, which may be much
	// later: a client that answers may have come or gone by then.
	answerer := ss.answererLocked() // never drawn: it is sent the program's bytes
	if len(queries) > 0 {
		ss.fanOutQueriesLocked(chunk, queries, answerer, help)
	} else {
		modelAnswers := answerer == nil
		for _, c := range ss.order {
			if c.view != nil {
				ss.frameLocked(c) // drawn from the model (view.go)
				continue
			}
			if !ss.sendChunkLocked(c, chunk, askRange{}, nil, help) && c == answerer {
				modelAnswers = true
			}
		}
		if modelAnswers {
			ss.model.answerLastLocked()
		}
	}
	ss.mu.Unlock()
	if drawInline {
		ss.model.feedInline()
	}
}
