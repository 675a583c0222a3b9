package mux

import (
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"wr/screen"
	"wr/wire"
)

// maxQueued bounds the output a client may have waiting. Past it the
// client is lagging: its pending output is dropped, nothing more is queued,
// and once its writer has drained it is redrawn from the screen model (as
// tmux does), so its memory stays bounded whatever it misses and the
// session never waits for it.
const maxQueued = 4 << 20

// clientReadBuffer is the buffer an attached client's frames are read
// through (see readClient).
const clientReadBuffer = 4 << 10

// frame is one queued message for a client, or the rest of one that a
// direct write (writeNowLocked, helpWriter) began.
type frame struct {
	t    wire.Type
	p    []byte // shared with other clients for Output: never modified
	rest bool   // p is what a direct write left of a frame: no header
	// counted: Output counted in queued, by send or by adoptClient (a
	// redraw, a control message and the rest of a frame an upgrade's
	// deadline cut in the old server's writer are not); helpWriter takes
	// back what it writes of it.
	counted bool
	// asks is the queries the chunk holds (in its last frame), which the
	// terminal will not answer if it is dropped unsent.
	asks askRange
}

// askRange is the numbers of the queries in a chunk of output, in the
// session's ledger (asked.go).
type askRange struct {
	first uint64
	n     int
}

// client is one attached connection. Everything sent to it goes through its
// queue and is written by its own writer goroutine, so the session never
// waits on a client's socket; only a small Output chunk for a client whose
// queue is empty and whose writer is idle is written at once by the
// fan-out, with a non-blocking write (writeNowLocked), and what did not fit
// is queued. An attached client has two goroutines: the
// connection's reader (serveConn, which runs readClient) and its writer
// (writeLoop); a pending lone ESC adds a timer's.
type client struct {
	// Set by newClient, then only read.
	id       int
	readOnly bool
	record   bool // a recorder (wr record): read-only, 0x0, shown the screen, told the size
	// terminal: the client attached from a terminal (it had a size). Only
	// its input can be a person typing (typing.go): a relay whose input
	// is a pipe is a script.
	terminal   bool
	since      time.Time
	restoreAsk restoreRequest    // what its restore draws (shown.go); set by serveAttach before it attaches
	env        map[string]string // its refreshed variables (agent.go); set by serveAttach before it attaches
	inside     string            // WR_SESSION_ID of the session it runs in (loop.go); set likewise
	insideAt   string            // the socket of the server that holds inside, if the client said; set likewise
	// acksExit: the client confirms an exit code with ExitSeen
	// (wire.Attach.AckExit); set likewise. Until one has, the session is
	// kept, exited (session.end).
	acksExit bool
	// carriedIn is what an old server had read of its frames and not
	// handled, read first after a hand-off (upgrade.go); taken by frameSource.
	carriedIn []byte
	// conn is closed by writeLoop, its one writer, once the queue has
	// drained (or a write failed); serveConn's deferred Close comes after
	// the writer is done (serveAttach waits for done) and does nothing.
	conn net.Conn
	fd   *wire.RawFD // conn's descriptor, for the hot reads and writes; nil if it has none

	// Guarded by the session's mu: written by the size rules and resize,
	// read by the fan-out (budget) and the redraws.
	cols, rows int
	// A client whose terminal is not the session's size is drawn from the
	// model (view.go): view is what its terminal shows (nil: it is sent the
	// program's bytes), at viewCols x viewRows; frame is its frame timer,
	// armed while frameArmed. Guarded by the session's mu, and drawn with
	// the model's lock held too.
	view               *screen.View
	viewCols, viewRows int
	frame              *time.Timer
	frameArmed         bool

	// Input side, guarded by inMu: the connection's reader and the lone-ESC
	// timer both classify. inMu is held while the input is forwarded, so it
	// comes before the session's mu and inputTurn.
	inMu       sync.Mutex
	classifier *inputClassifier
	escTimer   *time.Timer // the pending lone ESC's; stopped by the next input and by detach
	escGen     int         // bumped by each input and by detach: a stale timer does nothing

	// queueMu guards the queue and its state. It is taken last (but for
	// the classifier's owed answers, a leaf), under the session's mu by
	// the fan-out, and alone by the writer.
	queueMu sync.Mutex
	queue   []frame
	queued  int  // bytes of Output in queue
	lagging bool // output was dropped: redraw once the writer drains

	closing bool // no more frames after the queue drains; set by close, or by the writer when a write fails
	// awaitSeen: the connection stays open once the queue drains, for the
	// client's ExitSeen (closeAwaitingSeen); the reader closes it.
	awaitSeen bool
	writing   bool // the writer holds frames it took from the queue and has not finished writing
	held      bool // an upgrade holds the writer: it takes nothing from the queue (upgrade.go)
	// inflight is the bytes of Output the writer took from the queue and
	// has not finished writing; owesRelease is set by a memory release
	// made while the client held much (release.go), and cleared by the
	// writer, which then calls its caughtUp.
	inflight    int
	owesRelease bool
	// hdr is writeNowLocked's frame header, used under queueMu; helpHdrs
	// and helpBufs are helpWriter's, likewise.
	hdr      [wire.HeaderLen]byte
	helpHdrs []byte
	helpBufs [][]byte

	// wake is written by wakeWriter (send, sendRedraw, close), never
	// blocking: one pending wake-up is enough, as the writer takes the
	// whole queue. Read by writeLoop only; never closed.
	wake chan struct{}
	// done is closed by writeLoop when it returns, after closing conn;
	// serveAttach waits for it.
	done chan struct{}
}

func newClient(id int, conn net.Conn, readOnly bool, cols, rows int) *client {
	c := &client{
		id: id, conn: conn, readOnly: readOnly, since: time.Now(),
		cols: cols, rows: rows, terminal: cols > 0 && rows > 0, classifier: newInputClassifier(),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	if sc, ok := conn.(syscall.Conn); ok {
		c.fd, _ = wire.NewRawFD(sc)
	}
	return c
}

// reader is what the connection's frames are read from.
func (c *client) reader() io.Reader {
	if c.fd != nil {
		return c.fd
	}
	return c.conn
}

// canOwn: only a client with a real terminal size may own it, and never a
// read-only one (a 0x0 relay owning would shrink every other viewer to
// nothing).
func (c *client) canOwn() bool { return !c.readOnly && c.cols > 0 && c.rows > 0 }

// send queues a frame. Output past maxQueued is dropped, never waited for;
// Output larger than a frame is split. Its callers (the fan-out, attach)
// hold the session's mu, which budget's read of the size needs.
func (c *client) send(t wire.Type, p []byte) { c.sendThen(t, p, askRange{}, nil) }

// sendThen is send for a chunk of output that holds the queries asks:
// first (if not nil) is called under the queue's lock just before p is
// queued or written, and sent reports whether it was (a closing client is
// sent nothing, and a lagging one no Output). The fan-out records the
// queries there, so no answer comes back before they are recorded, and
// none is recorded for a terminal that never sees them. lost is the
// queries of the output this send dropped unsent to make room (the client
// fell behind): its terminal owes no answer to them any more.
func (c *client) sendThen(t wire.Type, p []byte, asks askRange, first func()) (sent bool, lost []askRange) {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.closing {
		return false, nil
	}
	if t == wire.TypeOutput {
		if c.lagging {
			return false, nil
		}
		// Each entry costs at least 64 bytes: a flood of tiny chunks must
		// not hold millions of them.
		cost := max(len(p), 64)
		if c.queued+cost > c.budget() {
			lost = c.dropQueuedOutputLocked()
			c.lagging = true
			// A record of them would take the answers to later ones.
			for _, r := range lost {
				c.classifier.owed.drop(r.first, r.n)
			}
			return false, lost
		}
		if first != nil {
			first()
		}
		if len(c.queue) == 0 && !c.writing && !c.held && len(p) <= directMax && c.fd != nil {
			if rest, wrote := c.writeNowLocked(p); wrote {
				if len(rest) > 0 {
					// What did not fit waits for the writer, first in the queue.
					c.queued += max(len(rest), 64)
					c.queue = append(c.queue, frame{t: t, p: rest, rest: true, counted: true})
					c.wakeWriter()
				}
				return true, nil
			}
		}
		c.queued += cost
		for len(p) > wire.MaxPayload {
			c.queue = append(c.queue, frame{t: t, p: p[:wire.MaxPayload:wire.MaxPayload], counted: true})
			p = p[wire.MaxPayload:]
		}
	} else if first != nil {
		first()
	}
	c.queue = append(c.queue, frame{t: t, p: p, counted: t == wire.TypeOutput, asks: asks})
	c.wakeWriter()
	return true, nil
}

// directMax is the largest Output chunk the fan-out writes to an idle
// client's socket itself (writeNowLocked): an echo, a prompt, a line.
// Larger chunks come from a burst, where the writer's batches (one writev
// for what several reads brought) are cheaper than a write per read.
const directMax = 4 << 10

// writeNowLocked writes p as one Output frame straight to the socket, with
// a non-blocking write, and returns what did not fit of the frame, or
// wrote false if nothing went (the frame is then queued as usual). Called
// with queueMu held, only while the queue is empty and the writer holds
// nothing (writing): frames still go out whole and in order, as the
// writer, which takes the rest first, finishes the frame this began. It
// saves an echo the hand-off to the writer goroutine. A failed write is
// left for the writer to meet.
func (c *client) writeNowLocked(p []byte) (rest []byte, wrote bool) {
	c.hdr = outputHeader(len(p))
	w, err := c.fd.WriteBuffersNow([][]byte{c.hdr[:], p})
	if err != nil || w == 0 {
		return nil, false
	}
	return unwrittenOf(p, true, int(w)), true
}

// outputHeader is the header of an Output frame of n bytes.
func outputHeader(n int) [wire.HeaderLen]byte {
	return [wire.HeaderLen]byte{byte(wire.TypeOutput), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// unwrittenOf is what a write that took w bytes of an Output frame left of
// it, to be queued as a rest: the frame is its header (headed) and p. Only
// the end of a header is copied.
func unwrittenOf(p []byte, headed bool, w int) []byte {
	switch {
	case !headed:
		return p[w:]
	case w < wire.HeaderLen:
		hdr := outputHeader(len(p))
		return append(append([]byte(nil), hdr[w:]...), p...)
	}
	return p[w-wire.HeaderLen:]
}

// helpMax is the most frames helpWriter writes in one writev.
const helpMax = 64

// helpWriter writes what the client has queued, as far as its socket takes
// it now, for a writer that waits for room or has yet to run. The fan-out
// calls it in a burst on one P (fanOut, procs.go), where the writer would
// run only when Go polls. First the writer's own batch (wire.RawFD.Flush),
// then the queue's Output frames from its head, as writeNowLocked does:
// frames still go out whole and in order, as what is written comes after
// the writer's batch and the writer takes the rest, first the end of a
// frame cut short. A failed write is left for the writer to meet.
func (c *client) helpWriter() {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.fd == nil || c.held || c.closing || c.lagging {
		return
	}
	if c.writing {
		// Only a batch the writer has handed to its RawFD: one it has
		// taken and not yet handed over would be overtaken.
		n, done := c.fd.Flush()
		busyProcs.helped.Add(n)
		// What the writer took is counted in inflight until it wakes; the
		// headers Flush wrote make this an estimate.
		c.inflight = max(c.inflight-int(n), 0)
		if !done {
			return // the writer's batch is not all written: the socket is full
		}
	}
	if len(c.queue) == 0 {
		return
	}
	hdrs := c.helpHdrs[:0]
	if cap(hdrs) < helpMax*wire.HeaderLen {
		hdrs = make([]byte, 0, helpMax*wire.HeaderLen) // never grown: bufs point into it
	}
	bufs := c.helpBufs[:0]
	n := 0
	for _, f := range c.queue {
		if f.t != wire.TypeOutput || n == helpMax {
			break
		}
		if !f.rest {
			hdr := outputHeader(len(f.p))
			hdrs = append(hdrs, hdr[:]...)
			bufs = append(bufs, hdrs[len(hdrs)-wire.HeaderLen:])
		}
		bufs = append(bufs, f.p)
		n++
	}
	w, err := c.fd.WriteBuffersNow(bufs)
	clear(bufs)
	c.helpHdrs, c.helpBufs = hdrs, bufs[:0]
	if err != nil || w == 0 {
		return
	}
	busyProcs.helped.Add(w)
	i := 0
	for ; i < n; i++ {
		f := c.queue[i]
		size := int64(len(f.p))
		if !f.rest {
			size += wire.HeaderLen
		}
		if w < size {
			break
		}
		w -= size
		if f.counted {
			c.queued -= max(len(f.p), 64)
		}
	}
	if w > 0 { // the socket filled inside frame i: its end waits, first
		f := c.queue[i]
		rest := unwrittenOf(f.p, !f.rest, int(w))
		if f.counted {
			c.queued += max(len(rest), 64) - max(len(f.p), 64)
		}
		c.queue[i] = frame{t: wire.TypeOutput, p: rest, rest: true, counted: f.counted}
	}
	clear(c.queue[:i])
	c.queue = c.queue[i:]
	if len(c.queue) == 0 || c.queued < 0 {
		c.queued = 0
	}
}

// wakeWriter tells the writer there is something to do. It never blocks.
func (c *client) wakeWriter() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// relayBudget is the larger queue of a client with no terminal (a relay
// into a pipe), which wants the program's bytes and has no screen to redraw.
const relayBudget = 16 * maxQueued

// budget is how much output may wait for this client.
func (c *client) budget() int {
	if c.cols == 0 {
		return relayBudget
	}
	return maxQueued
}

// restorer is what a resync draws from: the screen model (screen.Screen),
// or a fake in tests.
type restorer interface {
	AppendRestore(dst []byte) []byte
	AppendRestoreFrom(dst []byte, from uint64) []byte
	ScrolledOff() uint64
}

// resyncIfLaggingLocked queues a full redraw from scr for a client that fell
// behind. Called with the session's mu held, so the redraw is followed by
// exactly the output after it. A relay gets a plain-text notice instead: a
// drawing is no use to a pipe.
func (c *client) resyncIfLaggingLocked(scr restorer) {
	if c.view != nil {
		// A drawn client gets the screen as a difference: what changed
		// since its last update (view.go).
		c.queueMu.Lock()
		lagging := c.lagging && !c.closing
		c.lagging = false
		c.queueMu.Unlock()
		if s, ok := scr.(*screen.Screen); ok && (lagging || c.frameArmed) {
			c.sendRedraw(s.AppendViewUpdate(nil, c.view))
		}
		return
	}
	c.queueMu.Lock()
	lagging := c.lagging && !c.closing
	if lagging {
		for _, r := range c.dropQueuedOutputLocked() {
			c.classifier.owed.drop(r.first, r.n)
		}
		c.lagging = false
	}
	c.queueMu.Unlock()
	switch {
	case !lagging:
	case c.cols == 0 && !c.record:
		c.sendRedraw([]byte("\r\n[wr: output dropped: this client fell too far behind]\r\n"))
	case c.record:
		// A recording began with the screen, not the scrollback: so is
		// it brought back (the scrollback would come out as new lines).
		c.sendRedraw(scr.AppendRestoreFrom(nil, scr.ScrolledOff()))
	default:
		c.sendRedraw(scr.AppendRestore(nil))
	}
}

// sendRedraw queues a redraw (a restore) outside the queue's byte budget: it
// replaces whatever the client had, so it must never itself tip the client
// back into lagging.
func (c *client) sendRedraw(p []byte) {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.closing {
		return
	}
	for len(p) > 0 {
		n := min(len(p), wire.MaxPayload)
		c.queue = append(c.queue, frame{t: wire.TypeOutput, p: p[:n:n]})
		p = p[n:]
	}
	c.wakeWriter()
}

// dropQueuedOutputLocked drops the Output frames in the queue and keeps the
// rest, and the end of a frame a direct write began: the peer has its
// header. Called with queueMu held.
func (c *client) dropQueuedOutputLocked() (lost []askRange) {
	kept := c.queue[:0]
	for _, f := range c.queue {
		if f.t != wire.TypeOutput || f.rest {
			f.counted = false // queued starts again from 0
			kept = append(kept, f)
		} else if f.asks.n > 0 {
			lost = append(lost, f.asks)
		}
	}
	clear(c.queue[len(kept):])
	c.queue = kept
	c.queued = 0
	return lost
}

// holdsMuch reports whether the client holds at least n bytes of output it
// has yet to write, and if so marks it as owing a release (release.go).
func (c *client) holdsMuch(n int) bool {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if c.queued+c.inflight < n {
		return false
	}
	c.owesRelease = true
	return true
}

// leaving reports whether the client is on its way out: its terminal will
// answer nothing more.
func (c *client) leaving() bool {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	return c.closing
}

// isLagging reports whether the client is waiting for a redraw.
func (c *client) isLagging() bool {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	return c.lagging && !c.closing
}

// stopEscTimer stops a pending lone-ESC timer: it must not act for a
// client that has gone.
func (c *client) stopEscTimer() {
	c.inMu.Lock()
	c.escGen++
	if c.escTimer != nil {
		c.escTimer.Stop()
		c.escTimer = nil
	}
	c.inMu.Unlock()
}

// close queues a last frame (if any) and lets the writer finish the queue,
// then close the connection.
func (c *client) close(t wire.Type, p []byte) {
	c.queueMu.Lock()
	if !c.closing {
		if t != 0 {
			c.queue = append(c.queue, frame{t: t, p: p})
		}
		c.closing = true
	}
	c.queueMu.Unlock()
	c.wakeWriter()
}

// closeAwaitingSeen is close for the Exited frame that asks for ExitSeen:
// the connection is left open after it, for the reader to read the
// client's ExitSeen (readClient, awaitSeen) and then close.
func (c *client) closeAwaitingSeen(t wire.Type, p []byte) {
	c.queueMu.Lock()
	if !c.closing {
		c.awaitSeen = true
	}
	c.queueMu.Unlock()
	c.close(t, p)
}

// writeLoop is the connection's one writer: it takes everything queued and
// writes it with one writev (writeBatch). When it has drained the
// queue of a client that fell behind, drained asks the session for a
// redraw (it takes the session's lock, so it is called with none held).
// When it has drained a queue a memory release was made under, or ends
// owing one, it calls caughtUp, also with no lock held.
func (c *client) writeLoop(drained, caughtUp func()) {
	defer close(c.done)
	defer func() {
		c.queueMu.Lock()
		open := c.awaitSeen
		c.queueMu.Unlock()
		if !open {
			c.conn.Close()
		}
	}()
	var hdrs []byte
	var bufs net.Buffers
	for range c.wake {
		for {
			c.queueMu.Lock()
			if c.held { // an upgrade: the queue stays as it is (upgrade.go)
				c.writing = false
				c.queueMu.Unlock()
				break
			}
			q := c.queue
			c.queue = nil
			c.inflight, c.queued = c.queued, 0
			c.writing = len(q) > 0
			closing := c.closing
			owed := len(q) == 0 && c.owesRelease
			if owed {
				c.owesRelease = false
			}
			c.queueMu.Unlock()
			if owed {
				caughtUp()
			}
			if len(q) == 0 {
				if closing {
					return
				}
				if c.isLagging() {
					drained()
					continue
				}
				break
			}
			if n, err := c.writeBatch(q, &hdrs, &bufs); err != nil {
				if c.writeHeld(err, bufs, n) { // upgrade.go
					clear(bufs)
					continue
				}
				c.queueMu.Lock()
				c.closing = true
				c.awaitSeen = false // the connection failed: nothing to wait for
				c.queue = nil
				c.inflight, c.queued = 0, 0
				owed := c.owesRelease
				c.owesRelease = false
				c.queueMu.Unlock()
				if owed {
					caughtUp()
				}
				return
			}
			clear(bufs)
		}
	}
}

// writeBatch writes every frame of q with one writev: headers are built in
// hdrs, payloads are the queued chunks themselves (shared by every client:
// never copied). Consecutive Output chunks share one frame of up to
// MaxPayload. Each frame still goes out whole: the fan-out writes only
// while this goroutine holds nothing (writeNowLocked).
func (c *client) writeBatch(q []frame, hdrs *[]byte, bufs *net.Buffers) (int64, error) {
	*hdrs = (*hdrs)[:0]
	if cap(*hdrs) < wire.HeaderLen*len(q) {
		*hdrs = make([]byte, 0, wire.HeaderLen*len(q))
	}
	*bufs = (*bufs)[:0]
	for i := 0; i < len(q); {
		if q[i].rest { // the end of a frame a direct write began: no header
			*bufs = append(*bufs, q[i].p)
			i++
			continue
		}
		j, n := i+1, len(q[i].p)
		if q[i].t == wire.TypeOutput {
			for j < len(q) && q[j].t == wire.TypeOutput && !q[j].rest && n+len(q[j].p) <= wire.MaxPayload {
				n += len(q[j].p)
				j++
			}
		}
		h := len(*hdrs)
		*hdrs, _ = wire.AppendFrame(*hdrs, q[i].t, nil)
		hdr := (*hdrs)[h : h+wire.HeaderLen : h+wire.HeaderLen]
		hdr[1], hdr[2], hdr[3], hdr[4] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
		*bufs = append(*bufs, hdr)
		for _, f := range q[i:j] {
			if len(f.p) > 0 {
				*bufs = append(*bufs, f.p)
			}
		}
		i = j
	}
	if c.fd != nil {
		return c.fd.WriteBuffers(*bufs)
	}
	b := *bufs // WriteTo consumes its receiver
	return b.WriteTo(c.conn)
}
