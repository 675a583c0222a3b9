// Package attach is the wr client: it connects to the server (starting it
// when needed), relays a terminal to a session, and makes requests.
//
// It owns the local terminal while attached and must leave it exactly as it
// found it on every way out. It speaks to the server only through wire and
// never imports the server half (mux).
package attach

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"wr/wire"
)

// Sentinel errors. Their text names the package: main words them for a
// person. A failed request's own answer is a *wire.Error, not one of these.
var (
	// ErrNoServer is returned by Dial, and so by Do, when nothing answers
	// on the socket (no socket, no directory, or a stale socket), wrapped
	// with the socket's path.
	ErrNoServer = errors.New("attach: no server running")

	// ErrRefused is returned by the first request on a Conn (Request,
	// SendStream, Capture) when the server answers the Hello with Refused
	// (another protocol major); the wrapping error carries its message.
	ErrRefused = errors.New("attach: refused by the server")
)

// Conn is a connection to the server. The handshake travels with the
// first request: its Hello goes out in the same write, and the server's
// answer is read before the request's reply, which saves every command
// (and every attach) a round trip.
type Conn struct {
	c       *net.UnixConn
	Welcome wire.Welcome // valid after the first Request
	greeted bool         // the server has answered the Hello
	socket  string       // the local socket dialled; "" for a remote server
	link    *remoteLink  // the ssh behind a server on another machine (remote.go)
}

// Dial connects to the server on socket without starting one. It returns
// ErrNoServer when nothing is listening there. A server that refuses this
// client (another protocol) says so in the first Request's error.
func Dial(socket string) (*Conn, error) {
	if host, ok := RemoteHost(socket); ok {
		return dialRemote(host, remoteOptions{})
	}
	c, err := dialLocal(socket, true)
	if errors.Is(err, ErrNoServer) && askBeacon(socket) {
		// A server of this path is alive, its directory removed (a
		// logout) or its socket: it has put them back (beacon_linux.go).
		return dialLocal(socket, true)
	}
	return c, err
}

// dialLocal is Dial of a socket on this machine, without the beacon. With
// awaitLost, a socket that is gone while its server holds the lock is
// waited for (awaitSocket); without, that is no server.
func dialLocal(socket string, awaitLost bool) (*Conn, error) {
	// Refuse a directory someone else controls before sending it anything:
	// whoever planted the socket would read every keystroke. The directory
	// is checked through the descriptor the connect then goes through, so
	// a swap after the check cannot redirect the connection.
	dir, err := wire.OpenDir(filepath.Dir(socket))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		}
		return nil, err
	}
	defer dir.Close()
	addr, err := dir.Addr(filepath.Base(socket))
	if err != nil {
		return nil, err
	}
	connect := func() (*Conn, error) {
		c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
		switch {
		case err == nil:
			return &Conn{c: c, socket: socket}, nil
		case errors.Is(err, syscall.ECONNREFUSED):
			// A file that is not a socket refuses too: said, so that a
			// mistyped --socket or WR_SOCKET does not read as "no
			// sessions" (ls printed nothing, kill --all did nothing).
			// (A symlink to a stale socket is no server, as before.)
			if fi, serr := os.Stat(socket); serr == nil && fi.Mode()&fs.ModeSocket == 0 {
				if _, nerr := dir.CheckSocket(filepath.Base(socket)); nerr != nil {
					return nil, nerr
				}
			}
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		case errors.Is(err, syscall.ENOENT):
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		case errors.Is(err, syscall.EAGAIN):
			// A full backlog: most often a stopped server's, with every
			// verb since it stopped queued there.
			if serr := stoppedServer(socket); serr != nil {
				return nil, serr
			}
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", socket, wire.ErrnoOf(err))
	}
	c, err := connect()
	if errors.Is(err, ErrNoServer) && awaitLost {
		// No socket, or a dead one; but a server holding the lock is
		// alive (lostsocket.go).
		if c, lerr := awaitSocket(socket, connect); c != nil || lerr != nil {
			return c, lerr
		}
	}
	return c, err
}

// readWelcome reads the server's answer to the Hello. werr is the error of
// the write that carried the Hello: a refusing server may answer and close
// before reading it, and its answer says why, so it is read even then.
func (c *Conn) readWelcome(werr error) error {
	_ = c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer c.c.SetReadDeadline(time.Time{})
	f, err := wire.ReadFrame(c.c)
	if err != nil {
		if werr != nil {
			err = werr
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// Something listens there but does not speak: a server wedged
			// or something that is not wr.
			return fmt.Errorf("the server did not answer within 5s; is it stopped, or is something other than wr listening on the socket? (%w)", wire.ErrnoOf(err))
		}
		if c.serverExited(err) {
			return fmt.Errorf("%w on %s (it exited as this client connected)", ErrNoServer, c.socket)
		}
		return fmt.Errorf("the server did not greet this client: %w", wire.ErrnoOf(err))
	}
	switch f.Type {
	case wire.TypeWelcome:
		c.greeted = true
		return wire.Decode(f, &c.Welcome)
	case wire.TypeRefused:
		var r wire.Refused
		_ = wire.Decode(f, &r)
		// The server's sentence travels as a *wire.Error beside the
		// sentinel, so main can say it without this package's words.
		return fmt.Errorf("%w: %w", ErrRefused, &wire.Error{Message: r.Message})
	default:
		return fmt.Errorf("the server answered the greeting with %s; is something other than wr listening on the socket?", f.Type)
	}
}

// serverExited reports whether err, the connection's end before the
// greeting, was the server exiting: a server that ends (its last session
// gone, wr server stop) removes its socket and then closes its listener,
// which resets the connections it had not accepted yet. To the client that
// is no server, as it would have been a moment later (wr ls prints [],
// not an error), not a server that failed to speak.
func (c *Conn) serverExited(err error) bool {
	if c.socket == "" {
		return false
	}
	hungUp := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if !hungUp {
		return false
	}
	_, serr := os.Lstat(c.socket)
	return errors.Is(serr, fs.ErrNotExist)
}

// Close closes the connection (and, for a server on another machine,
// lets its ssh end).
func (c *Conn) Close() error {
	err := c.c.Close()
	if c.link != nil {
		c.link.close()
	}
	return err
}

// ErrOldServer is returned by SendStream, before any text is sent, when the
// server speaks protocol minor 0, which lacks streamed sends; the wrapping
// error names the server's version.
var ErrOldServer = errors.New("attach: the server is too old for this request")

// Request sends one control request and decodes the reply into reply. An
// Error reply is returned as a *wire.Error.
func (c *Conn) Request(t wire.Type, req, reply any) error {
	werr, err := c.send(t, req)
	if err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("send %s: %w", t, werr)
	}
	f, err := wire.ReadFrame(c.c)
	if err != nil {
		return fmt.Errorf("the server closed the connection during %s: %w", t, err)
	}
	return decodeReply(f, reply)
}

// send writes request t (with the Hello, the first time) and reads the
// server's answer to the Hello. werr is the error of writing the request,
// which the caller may still want the server's reply to explain.
func (c *Conn) send(t wire.Type, req any) (werr, err error) {
	p, err := wire.Encode(req)
	if err != nil {
		return nil, fmt.Errorf("%s request too large to send: %w", t, err)
	}
	var out []byte
	if !c.greeted {
		hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: wire.Version})
		out, _ = wire.AppendFrame(out, wire.TypeHello, hello)
	}
	if out, err = wire.AppendFrame(out, t, p); err != nil {
		return nil, fmt.Errorf("%s request too large to send: %w", t, err)
	}
	// Both frames in one write: they cannot interleave with anything. The
	// first write is bounded like the handshake's read: a server that
	// accepted but does not read must not hold a large request forever.
	if c.greeted {
		_, werr = c.c.Write(out)
		return werr, nil
	}
	// A person's attach waits out a stopped server's 5 s, as before,
	// and is then told it is stopped; a script's verb, which may run in a
	// loop, is told at once.
	return c.greetWith(out, t != wire.TypeAttach)
}

// greetWith writes out, which begins with the Hello, and reads the
// server's answer to the Hello. werr is the write's error. The write is
// bounded like the read: a server that accepted but does not read must
// not hold a large request forever. A stopped server is told from one
// that does not answer (stopped.go), at once if cutShort.
func (c *Conn) greetWith(out []byte, cutShort bool) (werr, err error) {
	stopped := c.noticeStopped(cutShort)
	_ = c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, werr = c.c.Write(out)
	_ = c.c.SetWriteDeadline(time.Time{})
	if werr == nil || !stopped.stoppedNow() {
		err = c.readWelcome(werr)
	}
	if serr := stopped.stop(); serr != nil {
		if err != nil || werr != nil {
			return nil, serr
		}
		// Stopped just after it answered: the look cut the waits short.
		_ = c.c.SetDeadline(time.Time{})
	}
	if err != nil {
		return nil, err
	}
	return werr, nil
}

// greet sends the Hello alone and reads the server's answer, so that the
// request can depend on the server's protocol minor: one older than need
// is ErrOldServer, and the request is never sent.
//
// The request to come is t: an attach waits out a stopped server's 5 s, as
// in send.
func (c *Conn) greet(need int, t wire.Type) error {
	hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: wire.Version})
	out, _ := wire.AppendFrame(nil, wire.TypeHello, hello)
	if _, err := c.greetWith(out, t != wire.TypeAttach); err != nil {
		return err
	}
	c.greeted = true
	if c.Welcome.Minor < need {
		return fmt.Errorf("%w (server %s, protocol %d.%d; this needs %d.%d)",
			ErrOldServer, c.Welcome.Version, c.Welcome.Protocol, c.Welcome.Minor, wire.ProtocolMajor, need)
	}
	return nil
}

// decodeReply returns an Error frame as a *wire.Error, and decodes any
// other frame into reply (unless reply is nil).
func decodeReply(f wire.Frame, reply any) error {
	if f.Type == wire.TypeError {
		e := new(wire.Error)
		if err := wire.Decode(f, e); err != nil {
			return err
		}
		return e
	}
	if reply != nil {
		return wire.Decode(f, reply)
	}
	return nil
}

// SetDeadline bounds everything left on the connection.
func (c *Conn) SetDeadline(t time.Time) error { return c.c.SetDeadline(t) }

// SendStream writes text to a session as if typed, however large: the
// request, then text in Data frames as it is read, then End (protocol
// 1.1). req.Size is len(text) when known, else -1. The reply says how many
// bytes the program took; a send it did not take by req's timeout is a
// *wire.Error with code timeout saying how much it did. A server of
// protocol 1.0 is ErrOldServer, before any text is sent.
func (c *Conn) SendStream(req wire.SendStream, text io.Reader) (wire.OK, error) {
	var ok wire.OK
	if req.TimeoutMS > 0 {
		// The server gives up at the timeout; this only bounds a server
		// that stopped answering.
		_ = c.c.SetDeadline(time.Now().Add(time.Duration(req.TimeoutMS)*time.Millisecond + 5*time.Second))
	}
	werr, err := c.send(wire.TypeSendStream, req)
	if err != nil {
		return ok, err
	}
	if c.Welcome.Minor < 1 {
		return ok, fmt.Errorf("%w (server %s, protocol %d.%d)", ErrOldServer, c.Welcome.Version, c.Welcome.Protocol, c.Welcome.Minor)
	}
	if werr == nil {
		// A server that fails the send early (no session, a timeout)
		// answers and closes: the write fails, and the reply says why.
		dw := wire.NewDataWriter(c.c, wire.DataChunk)
		if _, werr = io.Copy(dw, text); werr == nil {
			werr = dw.Close()
		}
	}
	f, err := wire.ReadFrame(c.c)
	if err != nil {
		if werr != nil {
			err = werr
		}
		return ok, fmt.Errorf("the server closed the connection during a send: %w", err)
	}
	return ok, decodeReply(f, &ok)
}

// Capture asks for a session's screen and writes its text to w. It asks
// for the text as a stream, so a capture of any size arrives; a server of
// protocol 1.0 answers with one Screen frame instead, which it also takes.
func (c *Conn) Capture(req wire.Capture, w io.Writer) error {
	req.Stream = true
	werr, err := c.send(wire.TypeCapture, req)
	if err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("send %s: %w", wire.TypeCapture, werr)
	}
	_, next, err := wire.ReadData(wire.NewReader(c.c), w)
	switch {
	case err != nil:
		return fmt.Errorf("the server closed the connection during %s: %w", wire.TypeCapture, err)
	case next == nil:
		return nil
	case next.Type == wire.TypeScreen:
		var scr wire.Screen
		if err := wire.Decode(*next, &scr); err != nil {
			return err
		}
		_, err := io.WriteString(w, scr.Text)
		return err
	case next.Type == wire.TypeError:
		return decodeReply(*next, nil)
	default:
		return fmt.Errorf("unexpected %s in reply to %s", next.Type, wire.TypeCapture)
	}
}

// Do dials socket (without starting a server), makes one request and
// closes the connection.
func Do(socket string, t wire.Type, req, reply any) error {
	c, err := Dial(socket)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Request(t, req, reply)
}
