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
	// A reader whose arenas have grown to burstArena is in a burst: the
	// server takes a second P meanwhile (procs.go).
	burst := false
	var pace floodPace
	defer func() {
		if burst {
			burstEnds()
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
				burstBegins()
			} else {
				burstEnds()
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
			ss.srv.logf("session %s: an idle reader cannot park, it keeps its goroutine: %v", ss.name(), err)
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
	ss.model.pushLocked(modelOp{chunk: chunk})
	for _, c := range ss.order {
		if c.view != nil {
			ss.frameLocked(c) // drawn from the model (view.go)
			continue
		}
		c.send(wire.TypeOutput, chunk)
	}
	ss.mu.Unlock()
}
