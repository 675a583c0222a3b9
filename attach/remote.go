package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"wr/wire"
)

// A server on another machine is reached through the user's own OpenSSH
// client: `ssh -T HOST wr bridge`, whose stdin and stdout are one end of a
// socket pair and the Conn the other. Every request, stream and attach
// then runs unchanged over it, as over the local socket, and nothing of
// wr listens on a network port: the remote wr bridge connects the ssh
// channel to its own user's server (Bridge).
//
// Such a server is named by an address in place of a socket path
// (RemoteAddress): everything that takes a socket takes one.

// remoteScheme starts the address of a server on another machine. A
// socket path is absolute (wire.SocketPath), so it never starts so.
const remoteScheme = "ssh://"

// RemoteAddress is the address of the server of host, reached through
// ssh: what a socket path is for the local one.
func RemoteAddress(host string) string { return remoteScheme + host }

// RemoteHost is the host an address names, and whether it names one.
func RemoteHost(addr string) (string, bool) { return strings.CutPrefix(addr, remoteScheme) }

// DialWithin is Dial, except that a server on another machine that has
// not answered within d (ssh still connecting, a host that went away) is
// given up on: its ssh is ended and the error says so.
func DialWithin(socket string, d time.Duration) (*Conn, error) {
	if host, ok := RemoteHost(socket); ok {
		return dialRemote(host, remoteOptions{timeout: d})
	}
	return Dial(socket)
}

// ErrRemote is wrapped by a *RemoteError.
var ErrRemote = errors.New("attach: the remote host failed")

// RemoteError is a failure to reach the server of another machine: ssh
// could not connect, or the remote could not run wr bridge. Its text is the
// sentence for a person.
type RemoteError struct {
	Host string
	Msg  string
	// Code is the exit status wr should leave with: ssh's own 255 when
	// ssh failed (authentication, an unknown host), else 1.
	Code int
	// Permanent: retrying cannot help (no wr there, another version, a
	// banner); a reconnecting client gives up at once.
	Permanent bool
}

func (e *RemoteError) Error() string { return e.Msg }
func (e *RemoteError) Unwrap() error { return ErrRemote }

// remoteOptions says how to run the bridge.
type remoteOptions struct {
	start     bool          // start the remote server when none runs (a verb that creates)
	keepalive time.Duration // ask the bridge for a KeepAlive after this much silence (0: none)
	// timeout bounds the wait for the bridge's preamble (0: none, as a
	// first connection may ask for a password on the terminal).
	timeout time.Duration
	// cancel, when closed, ends a connection still being made.
	cancel <-chan struct{}
	// batch: ssh must not ask for anything on the terminal (a
	// reconnection, while the terminal is the session's and raw).
	batch bool
}

// remoteLink is the ssh process behind a remote Conn.
type remoteLink struct {
	host   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has been waited for
	stderr *headBuffer
	hello  wire.BridgeHello
	once   sync.Once
	// stalled: the client ended the link for its silence (watchLink).
	stalled atomic.Bool
}

// kill ends the ssh process: the link is given up (a stalled stream, a
// cancelled attempt), and its end of the socket pair closes with it.
func (l *remoteLink) kill() {
	_ = l.cmd.Process.Kill()
}

// close waits a moment for ssh to finish after its stdin closed (the
// bridge sees EOF and exits, and with it the channel), then ends it.
func (l *remoteLink) close() {
	l.once.Do(func() {
		select {
		case <-l.exited:
		case <-time.After(2 * time.Second):
			l.kill()
			<-l.exited
		}
	})
}

// sshCommand is the command that runs ssh: $WR_SSH split at spaces, or
// ssh.
func sshCommand() []string {
	if words := strings.Fields(os.Getenv("WR_SSH")); len(words) > 0 {
		return words
	}
	return []string{"ssh"}
}

// remoteWr is the remote command that runs wr: $WR_REMOTE, or wr found on
// the remote's PATH.
func remoteWr() string {
	if p := os.Getenv("WR_REMOTE"); p != "" {
		return p
	}
	return "wr"
}

// shellQuote quotes s for the remote shell, which ssh hands the command
// line to.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sshEnv is the environment of the ssh process: this one's, less wr's own
// variables, which describe this machine (its socket, its session) and
// must not choose anything on the other.
func sshEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WR_") {
			out = append(out, kv)
		}
	}
	return out
}

// socketPair returns two connected stream sockets: one as a *net.UnixConn
// for this process, one as a file for a child's stdin and stdout. Unlike a
// pair of pipes, each end has its own file status flags, so ssh setting
// O_NONBLOCK on its side never reaches this one.
func socketPair() (*net.UnixConn, *os.File, error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "wr-ssh")
	defer mine.Close()
	c, err := net.FileConn(mine)
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, err
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "wr-ssh-child"), nil
}

// dialRemote runs ssh to host's wr bridge and returns the connection once
// the bridge has said it is ready. With no server there (and o.start
// unset) it returns ErrNoServer, as Dial does for a local socket.
func dialRemote(host string, o remoteOptions) (*Conn, error) {
	if host == "" || strings.HasPrefix(host, "-") {
		return nil, &RemoteError{Host: host, Code: 2, Permanent: true, Msg: fmt.Sprintf("bad host %q: give it as ssh takes it (an alias, host or user@host)", host)}
	}
	if w := remoteWr(); strings.HasPrefix(w, "-") {
		// ssh reads options again after the host, so a command that starts
		// with a dash would be taken as one (-oProxyCommand=... runs a
		// program here); no path to wr starts so.
		return nil, &RemoteError{Host: host, Code: 2, Permanent: true, Msg: fmt.Sprintf("WR_REMOTE %q is not a path to wr on %s", w, host)}
	}
	mine, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	words := sshCommand()
	remote := shellQuote(remoteWr()) + " bridge"
	if o.start {
		remote += " --start"
	}
	if o.keepalive > 0 {
		remote += " --keepalive " + o.keepalive.String()
	}
	args := append([]string(nil), words[1:]...)
	if o.batch {
		args = append(args, "-o", "BatchMode=yes")
	}
	// "--": nothing after it is an option to ssh, whatever it starts with.
	args = append(args, "-T", "--", host, remote)
	cmd := exec.Command(words[0], args...)
	cmd.Env = sshEnv()
	cmd.Stdin, cmd.Stdout = theirs, theirs
	// ssh's stderr is read here, not handed on: what it says while
	// attached (a dropped connection) would draw over the session, and
	// what it says on failure is worded into one line below.
	stderr := &headBuffer{max: 8 << 10}
	errR, errW, err := os.Pipe()
	if err != nil {
		mine.Close()
		theirs.Close()
		return nil, err
	}
	cmd.Stderr = errW
	err = cmd.Start()
	theirs.Close()
	errW.Close()
	if err != nil {
		mine.Close()
		errR.Close()
		return nil, &RemoteError{Host: host, Code: 1, Permanent: true, Msg: fmt.Sprintf("cannot run %s to reach %s: %v (set WR_SSH to the ssh command)", words[0], host, err)}
	}
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, errR)
		errR.Close()
		close(stderrDone)
	}()
	l := &remoteLink{host: host, cmd: cmd, exited: make(chan struct{}), stderr: stderr}
	go func() {
		_ = cmd.Wait()
		close(l.exited)
	}()
	c := &Conn{c: mine, link: l}
	if err := l.readPreamble(mine, o, stderrDone); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// readPreamble reads up to the end of the bridge's BridgeHello line. The
// bridge sends nothing more until the client speaks, so reading in chunks
// never takes a byte of the stream.
func (l *remoteLink) readPreamble(c *net.UnixConn, o remoteOptions, stderrDone <-chan struct{}) error {
	stop := make(chan struct{})
	defer close(stop)
	var timedOut, cancelled bool
	var mu sync.Mutex
	go func() {
		var timeout <-chan time.Time
		if o.timeout > 0 {
			t := time.NewTimer(o.timeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-stop:
			return
		case <-timeout:
			mu.Lock()
			timedOut = true
			mu.Unlock()
		case <-o.cancel:
			mu.Lock()
			cancelled = true
			mu.Unlock()
		}
		l.kill()
	}()
	var buf []byte
	chunk := make([]byte, 16<<10)
	for {
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.Index(buf, []byte(wire.BridgeMagic)); i >= 0 {
			if i > 0 {
				return l.banner(buf[:i])
			}
			rest := buf[len(wire.BridgeMagic):]
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				return l.greeted(rest[:j])
			}
		}
		if err != nil || len(buf) > 1<<20 {
			mu.Lock()
			t, cn := timedOut, cancelled
			mu.Unlock()
			switch {
			case cn:
				return fmt.Errorf("%w: cancelled", ErrRemote)
			case t:
				return &RemoteError{Host: l.host, Code: 1, Msg: fmt.Sprintf("%s did not answer within %v", l.host, o.timeout)}
			}
			return l.failed(buf, stderrDone)
		}
	}
}

// greeted checks the bridge's hello.
func (l *remoteLink) greeted(line []byte) error {
	if err := json.Unmarshal(line, &l.hello); err != nil {
		return &RemoteError{Host: l.host, Code: 1, Permanent: true, Msg: fmt.Sprintf("the wr on %s sent a greeting this wr cannot read: %v", l.host, err)}
	}
	h := l.hello
	if h.Protocol != wire.ProtocolMajor {
		return &RemoteError{Host: l.host, Code: 1, Permanent: true, Msg: fmt.Sprintf(
			"the wr on %s is version %s (protocol %d.%d), which this wr %s (protocol %d.%d) cannot speak to; install the same version there",
			l.host, h.Version, h.Protocol, h.Minor, wire.Version, wire.ProtocolMajor, wire.ProtocolMinor)}
	}
	switch h.State {
	case wire.BridgeReady:
		return nil
	case wire.BridgeNoServer:
		return fmt.Errorf("%w on %s", ErrNoServer, l.host)
	default:
		return &RemoteError{Host: l.host, Code: 1, Msg: fmt.Sprintf("on %s: %s", l.host, h.Error)}
	}
}

// banner: the remote shell printed text before wr bridge started.
func (l *remoteLink) banner(text []byte) error {
	first := strings.TrimSpace(string(text))
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = strings.TrimSpace(first[:i])
	}
	if len(first) > 80 {
		first = first[:80] + "..."
	}
	return &RemoteError{Host: l.host, Code: 1, Permanent: true, Msg: fmt.Sprintf(
		"the shell on %s printed %q before wr bridge started; make its startup files (~/.bashrc) print nothing when not interactive, e.g. with `[ -z \"$PS1\" ] && return` before the output", l.host, first)}
}

// failed words a bridge that never greeted: ssh failed, or the remote
// could not run wr bridge.
func (l *remoteLink) failed(out []byte, stderrDone <-chan struct{}) error {
	<-l.exited
	select {
	case <-stderrDone:
	case <-time.After(time.Second): // something ssh started holds stderr
	}
	code := l.cmd.ProcessState.ExitCode()
	said := l.stderr.String()
	last := lastLine(said)
	switch {
	case code == 255:
		if last == "" {
			last = "ssh exited with 255"
		}
		return &RemoteError{Host: l.host, Code: 255, Msg: last}
	case code == 127 || code == 126 && strings.Contains(said, "ermission"):
		return &RemoteError{Host: l.host, Code: 1, Permanent: true, Msg: fmt.Sprintf("wr not found on %s: install it there, or set WR_REMOTE to its path", l.host)}
	case strings.Contains(said, `unknown command "bridge"`):
		return &RemoteError{Host: l.host, Code: 1, Permanent: true, Msg: fmt.Sprintf("the wr on %s is older than this wr %s and has no `wr bridge`; install wr %s there", l.host, wire.Version, wire.Version)}
	case len(bytes.TrimSpace(out)) > 0:
		return l.banner(out)
	case last != "":
		return &RemoteError{Host: l.host, Code: 1, Msg: fmt.Sprintf("wr bridge on %s failed: %s", l.host, last)}
	}
	return &RemoteError{Host: l.host, Code: 1, Msg: fmt.Sprintf("wr bridge on %s ended before it started (exit %d)", l.host, code)}
}

// lastLine is the last line of s that says something.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.buf)
}

// remoteConfig is cfg for a session created on the remote: its
// environment and working directory are the remote's (the bridge's), less
// the terminal's own variables, which follow the client.
func (l *remoteLink) remoteConfig(cfg wire.SessionConfig) wire.SessionConfig {
	local := wire.LookupIn(cfg.Env)
	env := make([]string, 0, len(l.hello.Env)+2)
	for _, kv := range l.hello.Env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "TERM" && k != "COLORTERM" {
			env = append(env, kv)
		}
	}
	for _, k := range []string{"TERM", "COLORTERM"} {
		if v, ok := local(k); ok {
			env = append(env, k+"="+v)
		}
	}
	cfg.Env, cfg.Cwd = env, l.hello.Cwd
	return cfg
}

// remoteRequest is req as the remote's server must see it: a session it
// creates runs in the remote's environment, and the variables a client
// refreshes are those of its ssh login there (the agent it forwarded), not
// of this machine.
func (l *remoteLink) remoteRequest(req any) any {
	switch r := req.(type) {
	case wire.New:
		r.Config = l.remoteConfig(r.Config)
		return r
	case wire.Attach:
		r.Config = l.remoteConfig(r.Config)
		colorterm, hasColor := os.LookupEnv("COLORTERM")
		r.Env = wire.RefreshedEnv(func(k string) (string, bool) {
			if k == "COLORTERM" {
				return colorterm, hasColor
			}
			return wire.LookupIn(l.hello.Env)(k)
		})
		// The session this client runs in, if any: sessions' ids are
		// unique on every machine, so the remote server refuses only an
		// attach to the session it runs in, reached through ssh.
		r.Inside = os.Getenv("WR_SESSION_ID")
		r.InsideSocket, r.Outside = "", nil
		return r
	}
	return req
}
