package attach

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"wr/internal/rawio"
	"wr/wire"
)

// startTimeout bounds how long a client waits for a server it started.
const startTimeout = 5 * time.Second

// stoppingRetries bounds how often a request is made again because the
// server answering it was on its way out.
const stoppingRetries = 20

// Create makes request t (a New) on a connection to the server, starting
// one from exe (the client's own binary) when none is running, and closes
// the connection.
func Create(socket, exe string, t wire.Type, req, reply any) error {
	conn, err := request(socket, exe, t, req, reply, 0)
	if err == nil {
		conn.Close()
	}
	return err
}

// request makes request t on a fresh connection and returns it open. With
// exe set a server is started when none answers. A server that has
// decided to exit refuses a new session (CodeStopping) but may still hold
// the socket for a moment; the request is made again, and the dial after
// that one starts a fresh server. This is the one home of that retry:
// wr new and wr attach both come through here.
//
// need is the protocol minor the request needs; above 0 the Hello goes
// first on its own, and a server older than need is never sent the
// request (ErrOldServer): it would ignore the fields it does not know and
// do something else (an attach that records would collect an exited
// session as a plain attach does).
func request(socket, exe string, t wire.Type, req, reply any, need int) (*Conn, error) {
	for try := 0; ; try++ {
		var conn *Conn
		var err error
		if exe != "" {
			conn, err = dialOrStart(socket, exe)
		} else {
			conn, err = Dial(socket)
		}
		if err != nil {
			return nil, err
		}
		if conn.link != nil {
			req = conn.link.remoteRequest(req)
		}
		if need > 0 {
			if err := conn.greet(need, t); err != nil {
				conn.Close()
				return nil, err
			}
		}
		err = conn.Request(t, req, reply)
		if err == nil {
			return conn, nil
		}
		conn.Close()
		if wire.IsCode(err, wire.CodeStopping) && try < stoppingRetries {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if exe != "" && errors.Is(err, ErrNoServer) && try < stoppingRetries {
			// The server exited as this client connected (readWelcome):
			// start the next one, as a moment later this client would
			// have.
			continue
		}
		return nil, err
	}
}

// dialOrStart connects to the server, starting one from exe (the client's
// own binary) when none is running. Clients that start at the same instant
// serialise on a lock beside the socket, so they end up with one server.
func dialOrStart(socket, exe string) (*Conn, error) {
	if host, ok := RemoteHost(socket); ok {
		return dialRemote(host, remoteOptions{start: true})
	}
	c, err := Dial(socket)
	if err == nil || !errors.Is(err, ErrNoServer) {
		return c, err
	}
	dir, err := wire.PrepareDir(socket)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	name := filepath.Base(socket)
	// Something other than a socket at the path (a mistyped --socket naming
	// a file): say so, rather than start a server that would refuse it.
	if _, err := dir.CheckSocket(name); err != nil {
		return nil, err
	}
	unlock, err := dir.Lock(startTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()

	// Another client may have started it while we waited for the lock.
	if c, err := Dial(socket); err == nil || !errors.Is(err, ErrNoServer) {
		return c, err
	}
	deadline := time.Now().Add(startTimeout)
	for {
		c, err := startServer(socket, exe, deadline)
		if err == nil || !errors.Is(err, errExitedAtStart) || time.Now().After(deadline) {
			return c, err
		}
		// A server that was shutting down still held the server lock, so
		// ours stepped aside; by now the old one has let go.
		time.Sleep(20 * time.Millisecond)
	}
}

// errExitedAtStart: the started server exited without answering.
var errExitedAtStart = errors.New("the server exited as it started")

// startServer starts one server process and waits for the socket to answer.
func startServer(socket, exe string, deadline time.Time) (*Conn, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	// The server gets stdio and nothing else: a descriptor this client
	// inherited without close-on-exec (a shell's `exec 5>file`) would
	// otherwise stay open in the server for its whole life.
	rawio.CloseOnExecInherited()
	cmd := exec.Command(exe, "--socket", socket, "server", "run", "--daemon")
	// Its stderr is this client's until it serves (mux.Daemonize): a
	// server that cannot start says why there, and this client says it
	// at once instead of waiting out startTimeout to point at a log that
	// may not exist (a read-only directory).
	var said startStderr
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, &said
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The server serves every session of this socket: it must not carry the
	// identity of the session it happened to be started from, or killing
	// that session would sweep the server too.
	cmd.Env = WithoutSessionVars(os.Environ())
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the server (%s): %w", exe, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		c, err := Dial(socket)
		if err == nil || !errors.Is(err, ErrNoServer) {
			return c, err
		}
		select {
		case werr := <-exited:
			// It may have lost a race to another server; try that one.
			if c, err := Dial(socket); err == nil {
				return c, nil
			}
			// A server holding the lock means ours lost a race to it
			// (or to one on its way out): dialOrStart tries again.
			// Otherwise ours could not start, and said why.
			if held, _ := lockHolder(socket); !held {
				if why := said.reason(); why != "" {
					return nil, fmt.Errorf("the server could not start: %s", why)
				}
			}
			return nil, fmt.Errorf("%w (%v); see %s.log", errExitedAtStart, werr, socket)
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server did not answer on %s within %v; see %s.log", socket, startTimeout, socket)
		}
	}
}

// WithoutSessionVars drops the variables that tie a process to a session,
// for a process wr starts that must not be swept with the session it was
// started from (the server, a background recorder).
func WithoutSessionVars(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "WR_SESSION=") || strings.HasPrefix(kv, "WR_SESSION_ID=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// startStderr keeps the first KiB a starting server writes to its stderr.
// exec.Cmd copies into it from its own goroutine, and Wait returns only
// once the copy is done, so it is read after Wait without a lock.
type startStderr struct{ b []byte }

func (s *startStderr) Write(p []byte) (int, error) {
	s.b = append(s.b, p[:min(len(p), max(0, 1024-len(s.b)))]...)
	return len(p), nil
}

// reason is the last line the server said, without its prefix ("wr: "
// from main, "wr server: " from its log).
func (s *startStderr) reason() string {
	text := strings.TrimSpace(string(s.b))
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	for _, prefix := range []string{"wr server: ", "wr: "} {
		text = strings.TrimPrefix(text, prefix)
	}
	return text
}
