package mux

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"wr/ptyproc"
	"wr/wire"
)

// defaultKeep is how long a session that ends with nobody attached is kept,
// exited, when its creator did not say (SessionConfig.KeepMS 0).
const defaultKeep = 24 * time.Hour

// maxKeep is the longest keep: a Duration's largest (292 years).
const maxKeep = time.Duration(1<<63 - 1)

// startSession starts the command of cfg on a new PTY. Its output is not
// read until run is called, so the creating client can be registered first
// and see the shell's first prompt.
func (s *server) startSession(name string, cfg wire.SessionConfig) (*session, error) {
	id := newSessionID()
	marker := "WR_SESSION_ID=" + id
	env := append(sessionEnv(cfg.Env, name, s.socket), marker)
	link := ""
	// s.dir() is nil only in tests that run sessions without a socket. A
	// link whose path is too long for a socket address would break ssh:
	// the session keeps the client's own agent then (appended last, the
	// link's path wins over it: exec keeps the last of a name).
	if s.dir() != nil {
		if p := s.agentPath(agentLinkPrefix(s.socket) + id); len(p) <= maxSocketAddr {
			link = agentLinkPrefix(s.socket) + id
			env = append(env, "SSH_AUTH_SOCK="+p)
		} else {
			s.logf("session %s: no agent link, its path would be too long for a socket (%d bytes)", name, len(p))
		}
	}
	lookup := wire.LookupIn(env)
	argv := cfg.Command
	if len(argv) == 0 {
		sh, _ := lookup("SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		argv = []string{sh}
	}
	pathEnv, _ := lookup("PATH")
	path, err := lookPath(argv[0], pathEnv, cfg.Cwd)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", argv[0], err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Dir: cfg.Cwd}
	cols, rows := clientSize(cfg.Cols, cfg.Rows)
	if cols == 0 || rows == 0 {
		cols, rows = 80, 24
	}
	p, err := ptyproc.Start(cmd, cols, rows)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", argv[0], err)
	}
	// The child has its own copy: the server need not hold the environment
	// (a few KiB, the client's whole one) for the session's life.
	cmd.Env = nil
	ss := &session{
		srv: s, marker: marker, agentLink: link, proc: p, ptySize: p, pid: p.Pid(), created: time.Now(),
		command: argv, cwd: cfg.Cwd, clients: map[int]*client{},
		cols: cols, rows: rows, done: make(chan struct{}),
	}
	ss.drained.Add(1)
	ss.setName(name)
	switch {
	case cfg.KeepMS > 0:
		// Bounded, or a keep_ms past 292 years wraps negative and the
		// session is collected at once.
		ss.keep = time.Duration(min(cfg.KeepMS, int64(maxKeep/time.Millisecond))) * time.Millisecond
	case cfg.KeepMS == 0:
		ss.keep = defaultKeep
	}
	ss.model = newModel(cols, rows, cfg.Scrollback, &ss.mu,
		func(p []byte) { _ = ss.writePTY(p) })
	ss.model.dropped = ss.killed.Load
	ss.model.typing, ss.model.self = &ss.srv.typing, ss
	// The creating client acted first: its variables, and its agent.
	ss.env = wire.RefreshedEnv(wire.LookupIn(cfg.Env))
	ss.pointAgentLocked(ss.env["SSH_AUTH_SOCK"])
	return ss, nil
}

// run starts reading the PTY and waiting for the child.
func (ss *session) run() {
	ss.readMu.Lock()
	ss.reader = readRunning
	ss.readMu.Unlock()
	go ss.readLoop()
	ss.proc.NotifyExit(ss.srv.watcher, func() { go ss.waitLoop() })
	ss.srv.sessionStarted()
}

// sessionEnv is the client's environment plus WR_SESSION and WR_SOCKET, with
// TERM defaulted when the client had none a program could use.
func sessionEnv(clientEnv []string, name, socket string) []string {
	env := make([]string, 0, len(clientEnv)+3)
	term := ""
	for _, kv := range clientEnv {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "WR_SESSION", "WR_SOCKET", "WR_SESSION_ID":
			continue
		case "TERM":
			term = v
			continue
		}
		env = append(env, kv)
	}
	if term == "" || term == "dumb" {
		term = "xterm-256color"
	}
	return append(env, "TERM="+term, "WR_SESSION="+name, "WR_SOCKET="+socket)
}

// newSessionID is unique to one session: a session of the same name created
// later, or on another socket, never shares it, so wr kill sweeps only its
// own processes.
//
// It needs to be unique, not secret (it is in the session's environment,
// for any process of the user to read), so it comes from math/rand/v2,
// which the runtime seeds from the system's randomness, not from
// crypto/rand: its package inits (and crypto's under it) cost every wr
// process, an attach's client among them, about 30 µs before main
// (their sum under GODEBUG=inittrace=1).
func newSessionID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// lookPath finds file in the client's PATH (not the server's: the server may
// have been started from another environment).
func lookPath(file, pathEnv, dir string) (string, error) {
	if strings.Contains(file, "/") {
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		if err := executable(file); err != nil {
			return "", err
		}
		return file, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return os.ErrPermission
	}
	return nil
}
