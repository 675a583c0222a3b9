package attach

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"wr/wire"
)

// Options describes one attach.
type Options struct {
	Socket    string
	Exe       string // the wr binary, to start the server when needed
	Name      string
	Create    bool // create the session from Config if it does not exist
	Exclusive bool // fail if it exists (wr new)
	ReadOnly  bool
	DetachKey DetachKey
	Restore   string // wire.Attach.Restore: "" or wire.RestoreScreen
	// DetachOthers detaches every other client once attached (-d).
	DetachOthers bool
	// Record, if set, receives an asciicast recording of what this
	// terminal is shown (Cast), from the attach on.
	Record io.Writer
	Config wire.SessionConfig
	// Reconnect is how long a client of a server on another machine
	// tries to get back a link that dropped (0: it does not); KeepAlive
	// how long that link may stay silent before it counts as dropped
	// (reconnect.go).
	Reconnect time.Duration
	KeepAlive time.Duration
	Stdin     *os.File
	Stdout    *os.File
}

// outcome is how an attach ended.
type outcome struct {
	code     int
	detached bool   // by the detach key: print the notice
	err      error  // returned by Run, after the terminal is restored
	quiet    bool   // ended by a signal or a vanished terminal: say nothing
	ending   string // wire.Exited.Ending: killed, stopped, or "" (it exited)
	lineUsed bool   // wire.Exited.LineUsed
	lost     bool   // the connection ended under the client (reconnect.go)
}

// Run attaches the terminal on opts.Stdin/Stdout to a session and relays
// until the session ends (its exit code), the user detaches (0), the client
// is signalled (128+signal) or the attach fails (1, and err says why: the
// caller words it for the user). The terminal is restored before Run
// returns, on every path, so an error printed after it reads cleanly.
// Without a server, and with opts.Create unset, err wraps ErrNoServer.
func Run(opts Options) (code int, err error) {
	fd := int(opts.Stdin.Fd())
	isTerm := term.IsTerminal(fd)
	req := attachRequest(opts, fd, isTerm)

	sigs, stopSignals := catchSignals()
	defer stopSignals()
	// Not over ssh: the terminal's SIGQUIT reaches ssh too, which quits,
	// and the attach then fails; wr quits with 131 as before.
	_, remote := RemoteHost(opts.Socket)
	quitDetaches := isTerm && opts.DetachKey.isQuit() && !remote
	o, resized, sig := openUnlessSignalled(opts, req, sigs, quitDetaches)
	if sig != 0 {
		return 128 + int(sig), nil
	}
	if o.err != nil {
		return 1, o.err
	}
	if o.detached {
		fmt.Fprintf(opts.Stdout, "\n[detached from %s]\n", shownName(opts.Socket, o.accepted.Name))
		return 0, nil
	}
	conn, accepted := o.conn, o.accepted
	defer conn.Close()

	session := accepted.Name
	accepted.Name = shownName(opts.Socket, accepted.Name)
	r := newRelay(conn, opts, isTerm, sigs)
	r.quitDetaches = quitDetaches && !accepted.Exited
	r.quitShows = quitDetaches && accepted.Exited
	r.name.Store(&accepted.Name)
	r.session.Store(&session)
	r.watchLink()
	if opts.Record != nil {
		if r.cast, err = startCast(opts.Record, req, accepted); err != nil {
			r.closeReopened()
			return 1, err
		}
		defer r.cast.Close()
	}
	if resized {
		r.sendSize()
	}
	restore := func() {}
	if isTerm {
		var err error
		if restore, err = rawMode(fd); err != nil {
			r.closeReopened()
			return 1, fmt.Errorf("cannot put the terminal in raw mode: %w", err)
		}
	}
	defer restore()

	out := r.run()
	r.stop()
	r, out, accepted = r.reconnectWhileLost(out, req, accepted)
	r.resetTerminal()
	restore()

	switch {
	case out.err != nil && isTerm && isTerminal(opts.Stdout):
		// Lost the server, or the link for good: the message (printed
		// by the caller) starts a line of its own, not at the end of
		// whatever line the session left the cursor on.
		fmt.Fprint(opts.Stdout, "\n")
	case out.detached && out.err == nil:
		fmt.Fprintf(opts.Stdout, "\n[detached from %s]\n", *r.name.Load())
	case accepted.Exited && out.err == nil:
		// The session ended before anyone saw it: its last screen was
		// drawn, and this says how it ended.
		fmt.Fprintf(opts.Stdout, "\n[%s exited with %d]\n", accepted.Name, out.code)
	case out.err == nil && !out.quiet && isTerm && isTerminal(opts.Stdout):
		// The session ended while attached: say how, on a line of its
		// own, so the outer prompt never lands on the session's last line.
		// A command that exited with its cursor on an empty line needs no
		// word: the prompt takes that line, as it would without wr. Only
		// to a terminal: a script reading the output gets the program's
		// bytes and nothing else.
		name := *r.name.Load() // renamed since, perhaps
		if line := endingLine(name, out.ending); line != "" || out.lineUsed {
			nl := ""
			if out.lineUsed {
				nl = "\n"
			}
			if line == "" {
				line = "[" + name + " exited]"
			}
			fmt.Fprintf(opts.Stdout, "%s%s\n", nl, line)
		}
	}
	// Said last, so it is on the screen when the attach is over (a
	// restore would have cleared it at the start).
	if !accepted.Created && len(opts.Config.Command) > 0 && !out.quiet {
		fmt.Fprintf(os.Stderr, "wr: session %s already existed, so %q was not run\n", accepted.Name, strings.Join(opts.Config.Command, " "))
	}
	// A recording that could not be written (a full disk, a reader that
	// went away) fails the attach that asked for it, once the session's
	// own ending is said.
	if r.cast != nil {
		if err := r.cast.Close(); err != nil && out.err == nil {
			return 1, fmt.Errorf("the recording is incomplete: %w", err)
		}
	}
	return out.code, out.err
}

// attachRequest is the Attach that opts asks for, with the terminal's size
// (0x0 when the input is not a terminal) and, when the output is one too,
// its name (terminalID).
func attachRequest(opts Options, fd int, isTerm bool) wire.Attach {
	cols, rows := 0, 0
	id := ""
	if isTerm {
		if w, h, err := terminalSize(fd); err == nil {
			cols, rows = w, h
		}
		if opts.Stdout != nil && isTerminal(opts.Stdout) {
			id = terminalID(opts.Stdout)
		}
	}
	req := wire.Attach{
		Name: opts.Name, Create: opts.Create, Exclusive: opts.Exclusive,
		ReadOnly: opts.ReadOnly, Cols: cols, Rows: rows, Config: opts.Config,
		Terminal: id, Restore: opts.Restore, DetachOthers: opts.DetachOthers,
		Env: wire.RefreshedEnv(os.LookupEnv),
	}
	// Where this client runs, for the server to refuse an attach loop:
	// its session, that session's server, and what shows that session
	// elsewhere (loop.go). A session made by this attach (wr new) closes
	// no loop, and one on another machine is not followed.
	if id := os.Getenv("WR_SESSION_ID"); id != "" {
		req.Inside, req.InsideSocket = id, os.Getenv("WR_SOCKET")
		if _, remote := RemoteHost(opts.Socket); !remote && !opts.Exclusive {
			req.Outside = outsideOf(id, req.InsideSocket)
		}
	}
	// Over ssh the server cannot tell a link that died unnoticed from a
	// client that is there: this one confirms the exit code it was sent
	// (readServer), and until one does the session keeps it.
	_, req.AckExit = RemoteHost(opts.Socket)
	return req
}

// catchSignals starts catching the signals an attach answers, and returns
// their channel and the function that stops catching them.
//
// Signals are caught from before the request goes out: enabling each is a
// handshake with the runtime's signal thread (about 300 µs for the five
// here), which this way overlaps the round trip to the server instead of
// following it. The request runs in its own goroutine (see
// openUnlessSignalled) so that a ctrl-C, SIGTERM or SIGHUP while it is on
// its way (a server slow to start, or wedged) still ends wr at once, with
// the status a signalled process reports; a SIGWINCH is remembered, and the
// size sent once attached. From raw mode on, a SIGTERM still restores the
// terminal. Signals stop being caught only after the terminal is restored:
// Run defers stop before anything that restores it.
func catchSignals() (sigs chan os.Signal, stop func()) {
	// sigs is written by package os/signal and never closed; read by
	// openUnlessSignalled, then by relay.run.
	sigs = make(chan os.Signal, 8)
	// notified is closed by the goroutine below once Notify has returned.
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
		close(notified)
	}()
	return sigs, func() { <-notified; signal.Stop(sigs) }
}

// opened is what open returned, handed over from its goroutine.
type opened struct {
	conn     *Conn
	accepted wire.Attached
	err      error
	// detached: the detach key came as SIGQUIT before the terminal was
	// raw; conn, if the attach was accepted, is closed.
	detached bool
}

// openUnlessSignalled runs open in its own goroutine and waits for it,
// reporting whether a SIGWINCH arrived meanwhile. Any other signal ends the
// wait at once: it is returned (o is then empty), and the connection, if
// the request still succeeds, is hung up on.
func openUnlessSignalled(opts Options, req wire.Attach, sigs <-chan os.Signal, quitDetaches bool) (o opened, resized bool, sig syscall.Signal) {
	// done is written once, by the goroutine that opens, and never
	// closed; buffered so that goroutine never waits for a reader.
	done := make(chan opened, 1)
	go func() {
		conn, accepted, err := open(opts, req)
		done <- opened{conn: conn, accepted: accepted, err: err}
	}()
	quit := false
	// took handles a signal that came before the answer; it reports one
	// that ends wr.
	took := func(s os.Signal) (ends bool) {
		switch {
		case s == syscall.SIGWINCH:
			resized = true
		case s == syscall.SIGQUIT && quitDetaches:
			// ctrl-\ pressed before the terminal went raw (a server slow
			// to answer, a flood to restore): the detach key, which the
			// terminal made SIGQUIT. It detaches once the attach is
			// through, as it would a moment later. Still watched
			// meanwhile: a ctrl-C, SIGTERM or SIGHUP must end wr at
			// once, whatever the server does.
			quit = true
		default:
			return true
		}
		return false
	}
	for {
		select {
		case o = <-done:
			// Signals that came before the answer count first: select
			// picks at random between ready cases, and a ctrl-\ left in
			// sigs reached the relay, which quit with 131 for an exited
			// session instead of showing it.
			for {
				select {
				case s := <-sigs:
					if took(s) {
						if o.conn != nil {
							o.conn.Close()
						}
						return opened{}, false, s.(syscall.Signal)
					}
					continue
				default:
				}
				break
			}
			// An exited session is shown all the same: the server has
			// collected it for this client, which must say how it ended.
			if quit && o.err == nil && !o.accepted.Exited {
				o.conn.Close()
				o.detached = true
			}
			return o, resized, 0
		case s := <-sigs:
			if !took(s) {
				continue
			}
			go func() { // the request may still succeed: hang up on it
				if o := <-done; o.conn != nil {
					o.conn.Close()
				}
			}()
			return opened{}, false, s.(syscall.Signal)
		}
	}
}

// rawMode puts the terminal fd in raw mode and returns the function that
// restores it, which may be called more than once.
func rawMode(fd int) (restore func(), err error) {
	state, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { _ = term.Restore(fd, state) }) }, nil
}

// resetTerminal turns off what the session left on (alternate screen,
// mouse and paste modes, a hidden cursor...) before the terminal goes back.
// It runs after stop, which ends readServer, the other writer of the
// terminal, or gives up on it after 2 s (termMu keeps term whole then).
func (r *relay) resetTerminal() {
	if !r.isTerm {
		return
	}
	r.termMu.Lock()
	if b := r.term.reset(); len(b) > 0 {
		_, _ = r.opts.Stdout.Write(b)
	}
	r.termMu.Unlock()
}

// open connects and sends the Attach, starting a server if it may create.
func open(opts Options, req wire.Attach) (*Conn, wire.Attached, error) {
	var acc wire.Attached
	exe := opts.Exe
	if !opts.Create {
		exe = ""
	}
	need := 0
	if req.DetachOthers {
		need = 3 // an older server would attach without detaching anyone
	}
	if host, ok := RemoteHost(opts.Socket); ok {
		return openRemote(host, opts, req, need, remoteOptions{start: exe != ""})
	}
	conn, err := request(opts.Socket, exe, wire.TypeAttach, req, &acc, need)
	return conn, acc, err
}

// relay runs the goroutines of one attached client: readServer (the
// socket to the terminal), readInput (the terminal to the socket), and
// run, on Run's goroutine, which waits for the outcome and answers signals.
//
// Who writes the client socket: exactly one goroutine at a time, the
// writer, so frames never interleave (design section 3). Every other
// goroutine queues its frames on frames (send, detach) and, through
// wakeWriter, wakes the writer. The role lives in one of two places, fixed
// by inputWrites when the relay is made:
//
//   - inputWrites (the input is the reopened terminal, whose reads take
//     deadlines): readInput is the writer. A keystroke's Input frame goes
//     out from the goroutine that read it (sendInput), with no other
//     goroutine to wake; between reads it drains the queue (writeQueued),
//     woken by wakeWriter's expired deadline; the Detach it causes is
//     written in place (detachNow). When input is over (EOF, the detach
//     key, a vanished terminal) it stays the writer: inputOver carries on
//     in writeFrames until quit.
//   - otherwise (a pipe, or no /proc): writeLoop, through writeFrames, is
//     the writer from the start, and readInput queues like everyone else
//     (sendInput through send, detachNow through detach).
//
// At quit the writer writes what is still queued (a Detach), closes the
// socket's write side and returns. A writer whose write fails discards the
// queue until quit (discardFrames), so that no sender blocks on it.
type relay struct {
	conn   *Conn
	opts   Options
	isTerm bool
	// quitDetaches: the detach key is ctrl-\, so a SIGQUIT is that key
	// pressed before the terminal was raw (Run); quitShows: the same, for
	// an exited session, which is shown whatever the key.
	quitDetaches bool
	quitShows    bool
	// inFile is the terminal's input, reopened to be pollable when
	// possible; inputWrites says it was, and readInput is the writer.
	inFile      *os.File
	inputWrites bool
	// inFrame is sendInput's frame buffer when readInput is the writer.
	inFrame []byte
	// inReader is inFile, and sock the connection, as read and written:
	// through wire.RawFD when they have a non-blocking descriptor (see
	// there why). sock is read by readServer alone and written by the
	// writer alone.
	inReader io.Reader
	sock     io.ReadWriter
	// out is the terminal reopened for writing, non-blocking, when stdout
	// is one (see writeOutput); written by readServer alone.
	out   *os.File
	outFD *wire.RawFD

	// frames holds encoded frames for the writer. Written by send and
	// detach, from any goroutine; read by the writer (writeFrames,
	// writeQueued) and by discardFrames. Never closed: a sender gives up
	// at quit instead.
	frames chan []byte
	// result is written by finish (readServer, readInput), without
	// waiting, and read by run: the first outcome wins. Never closed.
	result chan outcome
	// quit is closed by stop, once, when the relay is over; never
	// written.
	quit chan struct{}
	// wg counts readServer and the writer (readInput when inputWrites,
	// else writeLoop). A readInput that is not the writer is not counted:
	// its blocking read of the terminal cannot be interrupted.
	wg sync.WaitGroup
	// sigs is catchSignals' channel, read here by run.
	sigs chan os.Signal

	// termMu guards term, which readServer updates from the output and
	// Run's resetTerminal reads at the end. No other lock is held with it.
	termMu sync.Mutex
	term   *termState // what the session turned on in this terminal

	// name is the session's name as the client's lines show it (HOST:NAME
	// for a remote one, shownName), which a rename changes (Renamed);
	// session is the bare name, which a reconnection attaches to.
	name    atomic.Pointer[string]
	session atomic.Pointer[string]
	// cast records what the terminal is shown, when asked (Options.Record).
	cast *Cast
}

func newRelay(conn *Conn, opts Options, isTerm bool, sigs chan os.Signal) *relay {
	r := &relay{
		conn: conn, opts: opts, isTerm: isTerm,
		frames: make(chan []byte, 64),
		result: make(chan outcome, 4),
		quit:   make(chan struct{}),
		sigs:   sigs,
		term:   newTermState(),
		inFile: opts.Stdin,
	}
	if isTerm {
		r.inFile = reopenTerminal(opts.Stdin, os.O_RDONLY)
	}
	r.inputWrites = r.inFile != opts.Stdin
	r.inReader, r.sock = r.inFile, conn.c
	if fd, err := wire.NewRawFD(r.inFile); err == nil && r.inputWrites {
		r.inReader = fd
	}
	if fd, err := wire.NewRawFD(conn.c); err == nil {
		r.sock = fd
	}
	if isTerm && opts.Stdout != nil && isTerminal(opts.Stdout) {
		if g := reopenTerminal(opts.Stdout, os.O_WRONLY); g != opts.Stdout {
			if fd, err := wire.NewRawFD(g); err == nil {
				r.out, r.outFD = g, fd
			} else {
				g.Close()
			}
		}
	}
	return r
}

// wakeWriter makes a readInput that writes for the connection look at its
// queue. Ordering: the frame is queued before the deadline is set, and
// readInput clears the deadline before it drains the queue, so a frame is
// never left waiting for the next keystroke; a deadline set after
// readInput cleared it expires its next read, which clears it again
// (never a read that keeps expiring).
func (r *relay) wakeWriter() {
	if r.inputWrites {
		_ = r.inFile.SetReadDeadline(time.Now())
	}
}

// finish offers o as how the attach ended; the first outcome wins.
func (r *relay) finish(o outcome) {
	select {
	case r.result <- o:
	default:
	}
}

// send queues a frame for the writer; it gives up once the relay is over.
func (r *relay) send(t wire.Type, p []byte) {
	b, err := wire.AppendFrame(nil, t, p)
	if err != nil {
		return
	}
	select {
	case r.frames <- b:
		r.wakeWriter()
	case <-r.quit:
	}
}

// run starts the relay's goroutines and returns how the attach ended: the
// first outcome one of them reports, or a signal other than SIGWINCH.
func (r *relay) run() outcome {
	r.wg.Add(2)
	go r.readServer()
	if r.inputWrites {
		go r.readInput() // also the writer: waited for
	} else {
		go r.writeLoop()
		go r.readInput() // not waited for: a blocking read from a terminal cannot be interrupted
	}
	for {
		select {
		case o := <-r.result:
			return o
		case sig := <-r.sigs:
			if sig == syscall.SIGWINCH {
				r.sendSize()
				continue
			}
			if sig == syscall.SIGQUIT && r.quitShows {
				// The detach key pressed before the terminal went raw,
				// come late, for an exited session: there is nothing to
				// detach from, and its last screen and code are on
				// their way (it quit with 131 instead).
				continue
			}
			r.detach()
			if sig == syscall.SIGQUIT && r.quitDetaches {
				// The detach key pressed just before the terminal went
				// raw, which the terminal made SIGQUIT and which came
				// after the attach was through (see
				// openUnlessSignalled); raw, the terminal sends no more.
				return outcome{code: 0, detached: true}
			}
			// The session keeps running; this client goes, quietly, with
			// the status a signalled process reports.
			return outcome{code: 128 + int(sig.(syscall.Signal)), quiet: true}
		}
	}
}

// detach tells the server this client is leaving and waits briefly for the
// frame to go out.
func (r *relay) detach() {
	b, _ := wire.AppendFrame(nil, wire.TypeDetach, nil)
	select {
	case r.frames <- b:
		r.wakeWriter()
	case <-time.After(time.Second):
	}
}

// stop ends the relay's goroutines; after it returns nothing more is
// written to the terminal, so restoring it is the last word.
func (r *relay) stop() {
	close(r.quit)
	r.wakeWriter()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		// A stopped terminal can block a write; do not hang on exit.
	}
	r.conn.Close()
	r.closeReopened()
}

func (r *relay) sendSize() {
	w, h, err := terminalSize(int(r.opts.Stdin.Fd()))
	if err != nil {
		return
	}
	p, _ := wire.Encode(wire.Resize{Cols: w, Rows: h})
	r.send(wire.TypeResize, p)
	if r.cast != nil {
		r.cast.Resize(w, h)
	}
}

// writeLoop is the connection's one writer when readInput is not.
func (r *relay) writeLoop() {
	defer r.wg.Done()
	r.writeFrames()
}

// writeFrames writes queued frames until quit, then what is left (a
// Detach), and closes the connection's write side.
func (r *relay) writeFrames() {
	for {
		select {
		case b := <-r.frames:
			if _, err := r.sock.Write(b); err != nil {
				r.discardFrames()
				return
			}
		case <-r.quit:
			// Flush what is queued (a Detach) before leaving.
			for {
				select {
				case b := <-r.frames:
					if _, err := r.sock.Write(b); err != nil {
						return
					}
				default:
					_ = r.conn.c.CloseWrite()
					return
				}
			}
		}
	}
}

// readServer writes the session's output to the terminal until Exited.
func (r *relay) readServer() {
	defer r.wg.Done()
	fr := wire.NewReader(r.sock)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			select {
			case <-r.quit:
			default:
				r.finish(outcome{code: 1, lost: true, err: r.lostError()})
			}
			return
		}
		switch f.Type {
		case wire.TypeOutput:
			var push []byte
			if r.isTerm {
				r.termMu.Lock()
				r.term.observe(f.Payload)
				push = r.term.titlePush()
				r.termMu.Unlock()
			}
			if r.cast != nil {
				r.cast.Output(f.Payload) // the session's bytes, not the client's title push
			}
			if len(push) > 0 {
				// Once, before the session's first title: leaving pops it.
				f.Payload = append(push, f.Payload...)
			}
			if err := r.writeOutput(f.Payload); err != nil {
				r.finish(outcome{code: 1, err: fmt.Errorf("write to the terminal: %w", err)})
				return
			}
		case wire.TypeExited:
			var e wire.Exited
			if err := wire.Decode(f, &e); err != nil {
				r.finish(outcome{code: 1, err: err})
				return
			}
			o := outcome{code: e.Code, ending: e.Ending, lineUsed: e.LineUsed}
			if e.Ack {
				// The server keeps the session until it hears the code
				// arrived, then collects it and closes the connection.
				// Waiting for that close means that once wr is done,
				// wr ls no longer lists the session; a link too slow to
				// say so within exitSeenWait leaves it for wr wait.
				r.send(wire.TypeExitSeen, nil)
				t := time.AfterFunc(exitSeenWait, func() { r.finish(o) })
				defer t.Stop()
				for {
					if _, err := fr.ReadFrame(); err != nil {
						break
					}
				}
			}
			r.finish(o)
			return
		case wire.TypeError:
			e := new(wire.Error)
			_ = wire.Decode(f, e)
			r.finish(outcome{code: 1, err: e})
			return
		case wire.TypeDetached:
			// wr detach, or another client's wr attach -d.
			r.finish(outcome{code: 0, detached: true})
			return
		case wire.TypeRenamed:
			var rn wire.Renamed
			if wire.Decode(f, &rn) == nil && rn.Name != "" {
				shown := shownName(r.opts.Socket, rn.Name)
				r.session.Store(&rn.Name)
				r.name.Store(&shown)
			}
		}
	}
}

// exitSeenWait bounds the wait for the server to close the connection
// after ExitSeen: a round trip over ssh.
const exitSeenWait = 5 * time.Second

// writeOutput writes the session's output to the terminal: first what the
// reopened non-blocking terminal takes at once, in a raw write (so an echo
// costs no wake-up of the runtime's monitor thread, see wire.RawFD), then
// the rest through the blocking stdout, where the kernel waits for room: a
// non-blocking writer would return short and wake this goroutine once per
// few KiB the terminal takes.
func (r *relay) writeOutput(b []byte) error {
	if r.outFD != nil {
		n, err := r.outFD.WriteNow(b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	if len(b) == 0 {
		return nil
	}
	_, err := r.opts.Stdout.Write(b)
	return err
}

// isTerminal is term.IsTerminal without (*os.File).Fd, which would make the
// descriptor blocking. Only a terminal is reopened for output: a reopened
// regular file would be written from its start, over what is there.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) { ok = term.IsTerminal(int(fd)) })
	return ok
}

// closeReopened closes the terminal's second opens, which also ends a read
// still waiting on one.
func (r *relay) closeReopened() {
	if r.inputWrites {
		r.inFile.Close()
	}
	if r.out != nil {
		r.out.Close()
	}
}

// readInput relays the terminal's input and watches for the detach key.
// When inputWrites it is also the connection's one writer (see relay): it
// writes each keystroke's frame itself, and the frames other goroutines
// queue between reads; once input is over it carries on as writeLoop.
func (r *relay) readInput() {
	if r.inputWrites {
		defer r.wg.Done()
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.inReader.Read(buf)
		if r.inputWrites {
			// What was queued before this read returned goes first: a
			// Resize queued just before a keystroke must reach the server
			// before the keystroke that claims the size with it. The
			// deadline is cleared before the queue is drained (see
			// wakeWriter). With nothing queued a keystroke goes straight
			// out: no trip to the poller for a deadline, no select, on
			// the echo's path.
			expired := errors.Is(err, os.ErrDeadlineExceeded)
			if expired || len(r.frames) > 0 {
				_ = r.inFile.SetReadDeadline(time.Time{})
				if !r.writeQueued() {
					return
				}
			}
			if expired {
				continue // woken for the queue
			}
		}
		b := buf[:n]
		if i := r.opts.DetachKey.find(b); i >= 0 {
			if i > 0 {
				r.sendInput(b[:i])
			}
			// The outcome first: once the server has the Detach it closes
			// the connection, and the reader must not take that for a
			// lost server.
			r.finish(outcome{code: 0, detached: true})
			r.detachNow()
			r.inputOver()
			return
		}
		if n > 0 {
			r.sendInput(b)
		}
		if err != nil {
			select {
			case <-r.quit:
				r.inputOver()
				return // the relay is over and closed the terminal
			default:
			}
			if r.isTerm {
				// The terminal went away: leave the session running.
				r.finish(outcome{code: 128 + int(syscall.SIGHUP), quiet: true})
				r.detachNow()
			}
			// A pipe at EOF: keep relaying output until the session ends;
			// end-of-input is not a request to end a shared shell.
			r.inputOver()
			return
		}
	}
}

// inputOver: readInput has read its last; if it is the writer, it goes on
// writing what others queue.
func (r *relay) inputOver() {
	if r.inputWrites {
		r.writeFrames()
	}
}

// detachNow sends the Detach from readInput: written at once when it is
// the writer (it must not wait in a queue only it drains), queued for
// writeLoop otherwise.
func (r *relay) detachNow() {
	if !r.inputWrites {
		r.detach()
		return
	}
	b, _ := wire.AppendFrame(nil, wire.TypeDetach, nil)
	if r.writeQueued() {
		_, _ = r.sock.Write(b)
	}
}

// discardFrames drops queued frames until quit, after a write failed: a
// sender must never block on a queue nobody drains.
func (r *relay) discardFrames() {
	for {
		select {
		case <-r.frames:
		case <-r.quit:
			return
		}
	}
}

// writeQueued writes what other goroutines queued, without waiting. At quit
// it writes what is left, closes the write side and reports false.
func (r *relay) writeQueued() bool {
	for {
		select {
		case b := <-r.frames:
			if _, err := r.sock.Write(b); err != nil {
				go r.discardFrames()
				return false
			}
		case <-r.quit:
			r.writeFrames()
			return false
		default:
			return true
		}
	}
}

// keptFrame is the largest frame buffer sendInput keeps between
// keystrokes.
const keptFrame = 4 << 10

func (r *relay) sendInput(b []byte) {
	for len(b) > 0 {
		n := min(len(b), wire.MaxPayload)
		if r.inputWrites {
			// This goroutine is the writer: one frame, one write, now,
			// from a buffer kept for the next keystroke (a paste's
			// larger one is not kept).
			f, _ := wire.AppendFrame(r.inFrame[:0], wire.TypeInput, b[:n])
			if cap(f) <= keptFrame {
				r.inFrame = f[:0]
			}
			if _, err := r.sock.Write(f); err != nil {
				return // the reader sees the connection go
			}
		} else {
			r.send(wire.TypeInput, append([]byte(nil), b[:n]...))
		}
		b = b[n:]
	}
}

// endingLine is what the client says when the session ended by wr kill or
// wr server stop; "" when it ended by itself.
func endingLine(name, ending string) string {
	switch ending {
	case wire.EndKilled:
		return "[" + name + " was killed]"
	case wire.EndStopped:
		return "[server stopped]"
	}
	return ""
}
