package attach

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"wr/wire"
)

// A client of a server on another machine outlives its link. When the ssh
// process dies, or the stream stays silent for longer than Options.KeepAlive
// (the bridge sends a KeepAlive after a third of that without output, so a
// live link never does), the relay ends as lost; Run then keeps the terminal
// raw, shows one status line, and attaches again with backoff until
// Options.Reconnect has passed. The session never notices: to the server a
// client left and another came, from the same terminal, so the restore
// draws its current screen. Keys typed meanwhile are dropped (they would
// reach a program whose screen nobody can see), and the status line counts
// them; the detach key gives up, as a detach.

// Backoff between attempts: the first at once, then doubling to the cap.
const (
	firstRetry = time.Second
	maxRetry   = 30 * time.Second
	// attemptTimeout bounds one attempt: a network that is down may leave
	// ssh waiting on a connect for minutes.
	attemptTimeout = 30 * time.Second
)

// openRemote is open for a server on another machine: its ssh asks the
// bridge for KeepAlives when the client will watch for them.
func openRemote(host string, opts Options, req wire.Attach, need int, o remoteOptions) (*Conn, wire.Attached, error) {
	var acc wire.Attached
	if opts.KeepAlive > 0 && opts.Reconnect > 0 {
		o.keepalive = max(opts.KeepAlive/3, time.Millisecond)
	}
	conn, err := dialRemote(host, o)
	if err != nil {
		return nil, acc, err
	}
	r := conn.link.remoteRequest(req)
	if need > 0 {
		if err := conn.greet(need, wire.TypeAttach); err != nil {
			conn.Close()
			return nil, acc, err
		}
	}
	if err := conn.Request(wire.TypeAttach, r, &acc); err != nil {
		conn.Close()
		return nil, acc, err
	}
	return conn, acc, nil
}

// shownName is how the client's lines name a session: HOST:NAME for one
// on another machine, as it was asked for.
func shownName(socket, name string) string {
	if host, ok := RemoteHost(socket); ok {
		return host + ":" + name
	}
	return name
}

// reconnecting reports whether this relay's client may get its link back.
// Only a terminal's, whose input is the reopened terminal: readInput has
// stopped when the relay did, so the reconnection reads the keys.
func (r *relay) reconnecting() bool {
	return r.conn.link != nil && r.opts.Reconnect > 0 && r.isTerm && r.inputWrites
}

// lostError is the error of a connection that ended before the session.
func (r *relay) lostError() error {
	if r.conn.link != nil {
		return fmt.Errorf("lost the link to %s: the connection closed before the session ended", r.conn.link.host)
	}
	return errors.New("lost the server: the connection closed before the session ended")
}

// watchLink counts the bytes that arrive from a server on another machine
// and ends the link (kills its ssh, which readServer sees as the end of
// the stream) when none arrived for KeepAlive.
func (r *relay) watchLink() {
	if !r.reconnecting() || r.opts.KeepAlive <= 0 {
		return
	}
	seen := new(atomic.Uint64)
	r.sock = countingSock{r.sock, seen}
	link, limit := r.conn.link, r.opts.KeepAlive
	go func() {
		t := time.NewTicker(max(limit/4, time.Millisecond))
		defer t.Stop()
		last, since := seen.Load(), time.Now()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
			}
			if n := seen.Load(); n != last {
				last, since = n, time.Now()
				continue
			}
			if time.Since(since) >= limit {
				link.stalled.Store(true)
				link.kill()
				return
			}
		}
	}()
}

// countingSock counts the reads of a socket that returned bytes.
type countingSock struct {
	rw   io.ReadWriter
	seen *atomic.Uint64
}

func (c countingSock) Read(b []byte) (int, error) {
	n, err := c.rw.Read(b)
	if n > 0 {
		c.seen.Add(1)
	}
	return n, err
}

func (c countingSock) Write(b []byte) (int, error) { return c.rw.Write(b) }

// ErrReplaced is why a client that got its link back does not attach: the
// session of its name is not the one it was attached to.
var ErrReplaced = errors.New("the session now called that is another one")

// reconnectWhileLost attaches again while the relay ended as lost and may
// reconnect, and returns the relay in use at the end, how it ended, and
// the latest acceptance.
//
// It attaches by the session's name as it is now (renames followed), and
// checks by its id that the session found is the same one: a session
// killed while the link was down may have left its name to another. That
// one is never shown nor typed into; the client ends, exit 1, saying so.
// An error rather than the session's ending: how the first one ended is
// not known, so no exit code of it can be passed on.
func (r *relay) reconnectWhileLost(out outcome, req wire.Attach, acc wire.Attached) (*relay, outcome, wire.Attached) {
	for out.lost && r.reconnecting() {
		req.Name = *r.session.Load()
		conn, acc2, o, ok := r.reconnect(req)
		if !ok {
			return r, o, acc
		}
		if acc.ID != "" && acc2.ID != "" && acc2.ID != acc.ID {
			conn.Close() // detached before a byte of it is relayed
			return r, outcome{code: 1, err: fmt.Errorf("%s is gone (%w)", shownName(r.opts.Socket, req.Name), ErrReplaced)}, acc
		}
		next := newRelay(conn, r.opts, r.isTerm, r.sigs)
		next.quitDetaches = r.quitDetaches
		next.term, next.cast = r.term, r.cast
		next.name.Store(r.name.Load())
		next.session.Store(r.session.Load())
		// Whether this attach created the session is the first
		// attach's to say (Run words a command that was not run).
		acc2.Created = acc.Created
		acc2.Name = shownName(r.opts.Socket, acc2.Name)
		r, acc = next, acc2
		r.watchLink()
		out = r.run()
		r.stop()
	}
	return r, out, acc
}

// attempt is one try to attach again, handed over from its goroutine.
type attempt struct {
	conn *Conn
	acc  wire.Attached
	err  error
}

// reconnect shows the status line and attaches again, with backoff, until
// it succeeds (ok), the time is up, the session is gone, or the person
// gives up with the detach key or a signal (o says how it ended).
func (r *relay) reconnect(req wire.Attach) (conn *Conn, acc wire.Attached, o outcome, ok bool) {
	link := r.conn.link
	why := "lost"
	if link.stalled.Load() {
		why = "stalled"
	}
	in := reopenTerminal(r.opts.Stdin, os.O_RDONLY)
	keys := make(chan []byte, 16)
	readerDone := make(chan struct{})
	stopReading := make(chan struct{})
	if in != r.opts.Stdin {
		go func() {
			defer close(readerDone)
			buf := make([]byte, 4096)
			for {
				n, err := in.Read(buf)
				if n > 0 {
					select {
					case keys <- append([]byte(nil), buf[:n]...):
					case <-stopReading:
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	} else {
		close(readerDone)
	}
	cancel := make(chan struct{})
	defer func() {
		close(stopReading)
		if in != r.opts.Stdin {
			_ = in.SetReadDeadline(time.Now())
			<-readerDone
			in.Close()
		}
		r.eraseStatus()
	}()

	st := status{host: link.host, why: why, key: r.opts.DetachKey}
	start := time.Now()
	deadline := start.Add(r.opts.Reconnect)
	results := make(chan attempt, 1)
	try := func() {
		st.attempt++
		st.trying = true
		a := req
		a.Create, a.Exclusive, a.DetachOthers = false, false, false
		if w, h, err := terminalSize(int(r.opts.Stdin.Fd())); err == nil {
			a.Cols, a.Rows = w, h
		}
		timeout := min(attemptTimeout, max(time.Until(deadline), time.Second))
		go func() {
			c, acc, err := openRemote(link.host, r.opts, a, 0, remoteOptions{timeout: timeout, cancel: cancel, batch: true})
			results <- attempt{c, acc, err}
		}()
	}
	// giveUp ends the reconnection: an attempt still running is
	// cancelled, and its connection, should it succeed, closed.
	giveUp := func(o outcome) (*Conn, wire.Attached, outcome, bool) {
		close(cancel)
		if st.trying {
			select {
			case a := <-results:
				if a.conn != nil {
					a.conn.Close()
				}
			case <-time.After(2 * time.Second):
				go func() {
					if a := <-results; a.conn != nil {
						a.conn.Close()
					}
				}()
			}
		}
		return nil, wire.Attached{}, o, false
	}
	try()
	retry := firstRetry
	var next <-chan time.Time
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastErr error
	for {
		r.drawStatus(st.line(time.Now()))
		select {
		case b := <-keys:
			if r.opts.DetachKey.find(b) >= 0 {
				return giveUp(outcome{code: 0, detached: true})
			}
			st.dropped += len(b)
		case sig := <-r.sigs:
			if sig != syscall.SIGWINCH {
				return giveUp(outcome{code: 128 + int(sig.(syscall.Signal)), quiet: true})
			}
		case <-tick.C:
		case <-next:
			next = nil
			try()
		case a := <-results:
			st.trying = false
			if a.err == nil {
				return a.conn, a.acc, outcome{}, true
			}
			lastErr = a.err
			var re *RemoteError
			var we *wire.Error
			switch {
			case errors.As(a.err, &re) && re.Permanent, errors.As(a.err, &we), errors.Is(a.err, ErrNoServer):
				// Retrying cannot help: the remote cannot run the
				// bridge, or its server answered (the session is gone).
				return giveUp(outcome{code: 1, err: fmt.Errorf("lost the link to %s, and reconnecting failed: %w", link.host, a.err)})
			}
			if time.Now().Add(retry).After(deadline) {
				// Exit 1, not ssh's 255 of the last try: wr gave up.
				return giveUp(outcome{code: 1, err: fmt.Errorf("lost the link to %s and could not get it back within %v: %v", link.host, r.opts.Reconnect, lastErr)})
			}
			st.retryAt = time.Now().Add(retry)
			next = time.After(retry)
			retry = min(retry*2, maxRetry)
		}
	}
}

// status is what the status line says.
type status struct {
	host    string
	why     string
	key     DetachKey
	attempt int
	trying  bool
	retryAt time.Time
	dropped int // bytes of input dropped
}

func (s status) line(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wr: link to %s %s", s.host, s.why)
	if s.dropped > 0 {
		fmt.Fprintf(&b, "; %d typed bytes dropped", s.dropped)
	}
	if s.trying {
		fmt.Fprintf(&b, "; reconnecting (try %d)", s.attempt)
	} else {
		fmt.Fprintf(&b, "; retrying in %ds", int(max(s.retryAt.Sub(now).Round(time.Second), 0)/time.Second))
	}
	if s.key.Enabled() {
		fmt.Fprintf(&b, "; %s gives up", s.key)
	}
	return b.String()
}

// drawStatus writes line on the terminal's last row, in reverse video,
// and puts the cursor and attributes back as they were (DECSC/DECRC):
// the session's screen is only covered on that one row, which the
// reattach's restore draws again (eraseStatus when there is none).
func (r *relay) drawStatus(line string) {
	cols, rows, err := terminalSize(int(r.opts.Stdin.Fd()))
	if err != nil || rows < 1 || cols < 2 {
		return
	}
	if len(line) > cols-1 {
		line = line[:cols-1]
	}
	_, _ = fmt.Fprintf(r.opts.Stdout, "\x1b7\x1b[%d;1H\x1b[0m\x1b[2K\x1b[7m%s\x1b[0m\x1b8", rows, line)
}

// eraseStatus clears the status line, so nothing of it is left under the
// reattached session's screen or the words wr says on leaving.
func (r *relay) eraseStatus() {
	_, rows, err := terminalSize(int(r.opts.Stdin.Fd()))
	if err != nil || rows < 1 {
		return
	}
	_, _ = fmt.Fprintf(r.opts.Stdout, "\x1b7\x1b[%d;1H\x1b[0m\x1b[2K\x1b8", rows)
}
