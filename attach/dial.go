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
	"io/fs"
	"net"
	"path/filepath"
	"syscall"
	"time"

	"wr/wire"
)

// Sentinel errors.
var (
	ErrNoServer = errors.New("no server running")
	ErrRefused  = errors.New("the server refused the connection")
)

// RemoteError is an Error frame from the server.
type RemoteError struct {
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return e.Message }

// IsCode reports whether err is a server error with the given code.
func IsCode(err error, code string) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Code == code
}

// Conn is a connection to the server. The handshake travels with the
// first request: its Hello goes out in the same write, and the server's
// answer is read before the request's reply, which saves every command
// (and every attach) a round trip.
type Conn struct {
	c       *net.UnixConn
	Welcome wire.Welcome // valid after the first Request
	greeted bool         // the server has answered the Hello
}

// Dial connects to the server on socket without starting one. It returns
// ErrNoServer when nothing is listening there. A server that refuses this
// client (another protocol) says so in the first Request's error.
func Dial(socket string) (*Conn, error) {
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
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, socket)
		}
		return nil, fmt.Errorf("cannot connect to %s: %w", socket, wire.ErrnoOf(err))
	}
	return &Conn{c: c}, nil
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
		return fmt.Errorf("handshake: %w", err)
	}
	switch f.Type {
	case wire.TypeWelcome:
		c.greeted = true
		return wire.Decode(f, &c.Welcome)
	case wire.TypeRefused:
		var r wire.Refused
		_ = wire.Decode(f, &r)
		return fmt.Errorf("%w: %s", ErrRefused, r.Message)
	default:
		return fmt.Errorf("handshake: unexpected %s", f.Type)
	}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Request sends one control request and decodes the reply into reply. An
// Error reply becomes a *RemoteError.
func (c *Conn) Request(t wire.Type, req, reply any) error {
	p, err := wire.Encode(req)
	if err != nil {
		return err
	}
	var out []byte
	if !c.greeted {
		hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: wire.Version})
		out, _ = wire.AppendFrame(out, wire.TypeHello, hello)
	}
	if out, err = wire.AppendFrame(out, t, p); err != nil {
		return fmt.Errorf("send %s: %w", t, err)
	}
	// Both frames in one write: they cannot interleave with anything. The
	// first write is bounded like the handshake's read: a server that
	// accepted but does not read must not hold a large request forever.
	if !c.greeted {
		_ = c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	}
	_, werr := c.c.Write(out)
	if !c.greeted {
		_ = c.c.SetWriteDeadline(time.Time{})
	}
	if !c.greeted {
		if err := c.readWelcome(werr); err != nil {
			return err
		}
	}
	if werr != nil {
		return fmt.Errorf("send %s: %w", t, werr)
	}
	f, err := wire.ReadFrame(c.c)
	if err != nil {
		return fmt.Errorf("the server closed the connection during %s: %w", t, err)
	}
	if f.Type == wire.TypeError {
		var e wire.Error
		if err := wire.Decode(f, &e); err != nil {
			return err
		}
		return &RemoteError{Code: e.Code, Message: e.Message}
	}
	if reply != nil {
		return wire.Decode(f, reply)
	}
	return nil
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
