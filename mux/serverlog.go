package mux

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"wr/wire"
)

// maxServerLog bounds the server log: past it the log is renamed to
// SOCKET.log.1 (replacing the one before) and a new one begun, so a server
// that runs for months, or one logging a storm of failed accepts, holds at
// most twice this on disk.
const maxServerLog = 1 << 20

// Daemonize points stdio at a log file beside the socket and leaves the
// caller's session, so the server outlives the terminal that started it.
// The writer it returns is the log, rotated at maxServerLog; stdout and
// stderr follow it to each new file, so a panic's trace lands in the
// current one. restoreStderr points stderr back where it was, so that a
// server that cannot start says why to whoever ran it, not only in a log
// they may never read.
func Daemonize(socket string) (log io.Writer, restoreStderr func(failed bool), err error) {
	dir, err := wire.PrepareDir(socket)
	if err != nil {
		return nil, nil, err
	}
	// Refuse a path that is not a socket before creating anything beside it.
	if _, err := dir.CheckSocket(filepath.Base(socket)); err != nil {
		dir.Close()
		return nil, nil, err
	}
	l := &serverLog{dir: dir, own: true, name: filepath.Base(socket) + ".log", max: maxServerLog}
	if err := l.open(); err != nil {
		dir.Close()
		return nil, nil, fmt.Errorf("cannot open the server log %s: %w", socket+".log", wire.ErrnoOf(err))
	}
	saved, err := unix.FcntlInt(2, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		saved = -1
	}
	// Called with failed once the server serves (false: the copy is let
	// go, so a pipe the starter reads sees its end) or has failed to start
	// (true: stderr is the starter's again). Only the first call counts.
	var once sync.Once
	restoreStderr = func(failed bool) {
		once.Do(func() {
			if saved < 0 {
				return
			}
			if failed {
				_ = unix.Dup2(saved, 2)
			}
			unix.Close(saved)
		})
	}
	_, _ = unix.Setsid() // already a leader when the client started us that way
	_ = os.Chdir("/")    // hold no directory busy; sessions get their own
	if null, err := os.Open(os.DevNull); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		null.Close()
	}
	l.redirect()
	return l, restoreStderr, nil
}

// serverLog is the daemon's log file, rotated once it passes max. The
// directory stays open for the server's life so a rotation renames
// through the same checked descriptor as everything else in it.
type serverLog struct {
	dir  *wire.Dir
	own  bool // dir is the log's own (Daemonize's), not the server's
	name string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

func (l *serverLog) open() error {
	f, err := l.dir.OpenFile(l.name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// redirect points stdout and stderr at the current file.
func (l *serverLog) redirect() {
	_ = unix.Dup2(int(l.f.Fd()), 1)
	_ = unix.Dup2(int(l.f.Fd()), 2)
}

// Write writes one log line (log.Logger makes one Write per line), first
// rotating when the line would take the file past max. A line is never
// split between two files.
func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		l.rotate()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate keeps one old copy. If the rename or the new file fails (a full
// disk, a read-only directory) the server goes on writing the old file:
// losing the bound is better than losing the log or the server.
func (l *serverLog) rotate() {
	if err := l.dir.Rename(l.name, l.name+".1"); err != nil {
		return
	}
	if err := l.open(); err != nil {
		return
	}
	l.redirect()
}

// rehome moves the log into dir, the socket's directory made again after
// the old one was removed (with the log in it): the server's rehome.
func (l *serverLog) rehome(dir *wire.Dir) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.own {
		l.dir.Close() // Daemonize's own; used only under mu
	}
	l.dir, l.own = dir, false
	if l.open() == nil {
		l.redirect()
	}
}

// reopenIfGone makes the log file again when the one written is no longer
// at its path (removed, not rotated: a rotation renames it under mu).
func (l *serverLog) reopenIfGone() {
	l.mu.Lock()
	defer l.mu.Unlock()
	held, err := wire.FileIDOf(l.f)
	if err != nil {
		return
	}
	if now, err := l.dir.ID(l.name); err == nil && now == held {
		return
	}
	if l.open() == nil {
		l.redirect()
	}
}
