// Package client is wr's control API: the requests a script, the command
// line and the completion scripts make of a server (list, has, kill, send,
// keys, capture, wait, detach, rename, record, new, stop, status), each
// one call. The command line (package main) maps flags to these calls and
// words their errors; it never builds a request itself.
//
// It speaks to the server through attach's connection (Dial, Request and
// the streams) and wire's messages; it never imports the server (mux). A
// request about a session never starts a server: with none running there
// is no such session.
package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"wr/attach"
	"wr/wire"
)

// Sentinel errors. Their text names the package: main words them for a
// person. A failed request's own answer is a *wire.Error.
var (
	// ErrTimeout is returned by Wait when its timeout passes before the
	// session ends.
	ErrTimeout = errors.New("client: timed out")
)

// OldServerError is a request the server is too old for: it speaks an
// earlier protocol minor than the request needs. It wraps
// attach.ErrOldServer.
type OldServerError struct {
	Server wire.Welcome // what the server said of itself
	Need   int          // the protocol minor the request needs
}

func (e *OldServerError) Error() string {
	return fmt.Sprintf("client: server %s speaks protocol %d.%d; this request needs %d.%d",
		e.Server.Version, e.Server.Protocol, e.Server.Minor, wire.ProtocolMajor, e.Need)
}

func (e *OldServerError) Unwrap() error { return attach.ErrOldServer }

// ErrNoNames is returned by a call that acts on the sessions named, given
// none (KillAll and DetachSession are the calls for all, or for one's own).
var ErrNoNames = errors.New("client: no session named")

// Client makes requests of the server on one socket.
type Client struct {
	Socket string
	// Within bounds how long a server on another machine (a Socket of
	// attach.RemoteAddress) may take to answer the connection; 0: as long
	// as ssh takes.
	Within time.Duration
}

// New returns a client of the server on socket.
func New(socket string) *Client { return &Client{Socket: socket} }

// noSession is the error of a request about name with no server running.
func noSession(name string) error {
	return &wire.Error{Code: wire.CodeNoSession, Message: "no session named " + name}
}

// dial connects without starting a server; with none, a request about
// name (if any) has no such session.
func (c *Client) dial(name string) (*attach.Conn, error) {
	conn, err := attach.DialWithin(c.Socket, c.Within)
	if errors.Is(err, attach.ErrNoServer) && name != "" {
		return nil, noSession(name)
	}
	return conn, err
}

// request makes one request about session name (or about none, ""), of a
// kind that arrived with protocol minor need: an older server, which
// answers that it does not know the request, is an *OldServerError.
func (c *Client) request(name string, need int, t wire.Type, req, reply any) error {
	conn, err := c.dial(name)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = conn.Request(t, req, reply)
	if err != nil && conn.Welcome.Minor < need && wire.IsCode(err, wire.CodeBadFrame) {
		return &OldServerError{Server: conn.Welcome, Need: need}
	}
	return err
}

// List returns every session, sorted by name; none when no server runs.
// It asks for pages, so a list longer than a frame holds is read whole.
func (c *Client) List() ([]wire.SessionInfo, error) {
	all := []wire.SessionInfo{}
	for req := (wire.List{Page: true}); ; {
		var reply wire.Sessions
		err := c.request("", 0, wire.TypeList, req, &reply)
		if errors.Is(err, attach.ErrNoServer) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, reply.Sessions...)
		if !reply.More || len(reply.Sessions) == 0 {
			return all, nil
		}
		req.After = reply.Sessions[len(reply.Sessions)-1].Name
	}
}

// Names returns the names of every session, running or exited.
func (c *Client) Names() ([]string, error) {
	all, err := c.List()
	names := make([]string, 0, len(all))
	for _, s := range all {
		names = append(names, s.Name)
	}
	return names, err
}

// Has reports whether session name exists, running or exited (kept with
// its code until collected). It asks for that session alone; an older
// server answers with every one.
func (c *Client) Has(name string) (bool, error) {
	var reply wire.Sessions
	err := c.request("", 0, wire.TypeList, wire.List{Names: []string{name}}, &reply)
	if errors.Is(err, attach.ErrNoServer) {
		return false, nil
	}
	for _, s := range reply.Sessions {
		if s.Name == name {
			return true, nil
		}
	}
	return false, err
}

// Kill ends the sessions named and every process they started, and
// returns when they are gone. A name that is not there fails the request
// before anything is killed.
func (c *Client) Kill(names ...string) ([]string, error) {
	if len(names) == 0 {
		return nil, ErrNoNames
	}
	var ok wire.OK
	err := c.request(names[0], 0, wire.TypeKill, wire.Kill{Names: names}, &ok)
	return ok.Names, err
}

// KillAll ends every session; with no server there is nothing to end.
func (c *Client) KillAll() ([]string, error) { return c.killEvery(wire.Kill{All: true}) }

// KillExited removes every exited session and nothing else.
func (c *Client) KillExited() ([]string, error) { return c.killEvery(wire.Kill{Exited: true}) }

func (c *Client) killEvery(req wire.Kill) ([]string, error) {
	var ok wire.OK
	err := c.request("", 0, wire.TypeKill, req, &ok)
	if errors.Is(err, attach.ErrNoServer) {
		return nil, nil
	}
	return ok.Names, err
}

// New creates session name, detached, starting a server from exe (wr's
// own binary) when none runs. It fails if name runs; an exited name is
// replaced.
func (c *Client) New(exe, name string, cfg wire.SessionConfig) error {
	return attach.Create(c.Socket, exe, wire.TypeNew, wire.New{Name: name, Config: cfg}, nil)
}

// timeoutMS is a timeout on the wire: 0 is none, and anything above 0
// is at least a millisecond.
func timeoutMS(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return max(d.Milliseconds(), 1)
}

// Send writes text to session name as if typed, however large: it streams
// (protocol 1.1). It returns how many bytes the program took. A server of
// protocol 1.0 still gets text that fits in one frame.
func (c *Client) Send(name string, text []byte, timeout time.Duration) (int64, error) {
	n, err := c.SendStream(name, bytes.NewReader(text), int64(len(text)), timeout)
	var old *OldServerError
	if !errors.As(err, &old) {
		return n, err
	}
	req := wire.Send{Name: name, Data: text, TimeoutMS: timeoutMS(timeout)}
	if p, eerr := wire.Encode(req); eerr != nil || len(p) > wire.MaxPayload {
		return 0, err
	}
	var ok wire.OK
	err = c.request(name, 0, wire.TypeSend, req, &ok)
	return ok.Bytes, err
}

// SendStream writes what r holds (size bytes, -1 when not known: a pipe)
// to session name as if typed, as it is read. It returns how many bytes
// the program took; a send it did not take within timeout (0: no limit)
// fails with a *wire.Error of code timeout saying how much it did.
func (c *Client) SendStream(name string, r io.Reader, size int64, timeout time.Duration) (int64, error) {
	conn, err := c.dial(name)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	ok, err := conn.SendStream(wire.SendStream{Name: name, Size: size, TimeoutMS: timeoutMS(timeout)}, r)
	if errors.Is(err, attach.ErrOldServer) {
		return 0, &OldServerError{Server: conn.Welcome, Need: 1}
	}
	return ok.Bytes, err
}

// SendKeys types named keys (wire.KeyNames) into session name, encoded by
// the server as the program's current modes expect.
func (c *Client) SendKeys(name string, keys []string, timeout time.Duration) error {
	for _, k := range keys {
		if _, err := wire.AppendKey(nil, k, wire.KeyModes{}); err != nil {
			return err
		}
	}
	return c.request(name, 3, wire.TypeSendKeys, wire.SendKeys{Name: name, Keys: keys, TimeoutMS: timeoutMS(timeout)}, nil)
}

// Capture writes session name's screen as text to w (opt.Name is set from
// name).
func (c *Client) Capture(name string, opt wire.Capture, w io.Writer) error {
	conn, err := c.dial(name)
	if err != nil {
		return err
	}
	defer conn.Close()
	opt.Name = name
	return conn.Capture(opt, w)
}

// Wait blocks until session name ends and returns its exit code (at once
// for an exited session, which this collects). With timeout > 0 it gives
// up after that long with ErrTimeout, and the session is left as it was.
func (c *Client) Wait(name string, timeout time.Duration) (int, error) {
	conn, err := c.dial(name)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// A timer that hangs up rather than a deadline: the handshake sets
	// and clears deadlines of its own.
	var timedOut atomic.Bool
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() {
			timedOut.Store(true)
			conn.Close()
		})
		defer t.Stop()
	}
	var ex wire.Exited
	err = conn.Request(wire.TypeWait, wire.Wait{Name: name}, &ex)
	if err != nil && timedOut.Load() {
		return 0, fmt.Errorf("%w: %s still running after %v", ErrTimeout, name, timeout)
	}
	if err == nil {
		// The server collects the session once the code is written, then
		// hangs up: a script's wr ls right after wr wait must not still
		// list it. Bounded, for a server that keeps the connection.
		_ = conn.SetDeadline(time.Now().Add(waitCollected))
		_, _ = conn.ReadFrame()
	}
	return ex.Code, err
}

// waitCollected bounds how long Wait waits for the server to hang up after
// the code: it collects the session first, which takes microseconds.
const waitCollected = time.Second

// Detach detaches every client of the sessions named (each prints
// [detached from NAME] and exits 0). Recorders stay.
func (c *Client) Detach(names ...string) error {
	if len(names) == 0 {
		return ErrNoNames
	}
	return c.request(names[0], 3, wire.TypeDetachClients, wire.DetachClients{Names: names}, nil)
}

// DetachSession detaches every client of the session whose WR_SESSION_ID
// is id: the session a shell runs in, whatever it is called now.
func (c *Client) DetachSession(id string) error {
	err := c.request("", 3, wire.TypeDetachClients, wire.DetachClients{ID: id}, nil)
	if errors.Is(err, attach.ErrNoServer) {
		return &wire.Error{Code: wire.CodeNoSession, Message: "the session this shell runs in has ended"}
	}
	return err
}

// Rename gives session old the name new. Attached clients, waits and
// kills in progress carry on; the name follows wire.NameRule and must not
// be taken.
func (c *Client) Rename(old, new string) error {
	return c.request(old, 3, wire.TypeRename, wire.Rename{Old: old, New: new}, nil)
}

// Env returns the refreshed variables (wire.RefreshedEnv) of the client
// that last acted in session name: what wr env prints.
func (c *Client) Env(name string) (map[string]string, error) {
	var reply wire.EnvVars
	err := c.request(name, 3, wire.TypeEnv, wire.Env{Name: name}, &reply)
	return reply.Vars, err
}

// SessionEnv is Env for the session whose WR_SESSION_ID is id: the one a
// shell runs in, whatever it is called now.
func (c *Client) SessionEnv(id string) (map[string]string, error) {
	var reply wire.EnvVars
	err := c.request("", 3, wire.TypeEnv, wire.Env{ID: id}, &reply)
	if errors.Is(err, attach.ErrNoServer) {
		return nil, &wire.Error{Code: wire.CodeNoSession, Message: "the session this shell runs in has ended"}
	}
	return reply.Vars, err
}

// Stop kills every session and stops the server; attach.ErrNoServer when
// none runs.
func (c *Client) Stop() error { return c.request("", 0, wire.TypeStop, wire.Stop{}, nil) }

// Status describes the server; attach.ErrNoServer when none runs.
func (c *Client) Status() (wire.ServerStatus, error) {
	var st wire.ServerStatus
	err := c.request("", 0, wire.TypeStatus, wire.Status{}, &st)
	return st, err
}
