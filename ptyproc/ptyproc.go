// Package ptyproc starts a command on a pseudo-terminal and owns the master
// side: reading, writing whole inputs, resizing, and waiting for the exit
// code in the shell's convention.
//
// It knows nothing of sessions, clients or the wire. It must never put the
// master into blocking mode (no (*os.File).Fd calls): the server relies on
// the runtime poller so that closing the master unblocks a pending read or
// write and read deadlines work.
package ptyproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"wr/internal/rawio"
)

// ErrClosed is returned by operations on a Process whose master was closed.
var ErrClosed = errors.New("ptyproc: pty closed")

// Process is a command running on a PTY.
type Process struct {
	// The child. Not the exec.Cmd it was started from: that is several
	// hundred bytes an idle session would hold for nothing.
	child  *os.Process
	master *os.File
	raw    syscall.RawConn
	closed atomic.Bool

	watchMu sync.Mutex // guards watch
	watch   readWatch  // the master's registration with a Watcher

	// The reader's call (ReadReady) and the writer's (writeAll), with
	// their arguments and results, made once: a closure made per call
	// escapes to the heap, and every keystroke and its echo made two.
	// One reader and one writer at a time, as for the bytes' order.
	rbuf   []byte
	rget   func() []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	wbuf    []byte
	wdone   int
	werrno  syscall.Errno
	writeFn func(fd uintptr) bool
}

// newProcess is the Process of master, its raw side and child (nil until
// started).
func newProcess(master *os.File, raw syscall.RawConn, child *os.Process) *Process {
	p := &Process{master: master, raw: raw, child: child}
	p.readFn, p.writeFn = p.readReady, p.writeReady
	return p
}

// Start runs cmd with a new PTY of the given size as its controlling
// terminal and stdio, in a new session (so the PTY's hang-up reaches its
// process group).
func Start(cmd *exec.Cmd, cols, rows int) (*Process, error) {
	blocking, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a PTY: %w", err)
	}
	master, err := pollable(blocking)
	if err != nil {
		tty.Close()
		return nil, err
	}
	raw, err := master.SyscallConn()
	if err != nil {
		master.Close()
		tty.Close()
		return nil, err
	}
	p := newProcess(master, raw, nil)
	if err := p.Resize(cols, rows); err != nil {
		master.Close()
		tty.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	// The command gets the terminal as 0, 1 and 2 and nothing else
	// (os/exec passes on every descriptor not marked close-on-exec).
	rawio.CloseOnExecInherited()
	err = cmd.Start()
	// The child holds its own copy; ours would keep the PTY open after the
	// child exits and hide the hang-up (EIO) the reader waits for.
	tty.Close()
	if err != nil {
		master.Close()
		// The caller names the command; exec's "fork/exec PATH" would
		// only repeat it, so the reason is returned alone.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	p.child = cmd.Process
	return p, nil
}

// pollable returns the master as a non-blocking, poller-managed file and
// closes f. creack/pty's Open calls (*os.File).Fd on the master, which puts
// it in blocking mode: a pending Read then sits in the kernel where neither
// Close nor a read deadline can reach it, and a session whose background job
// holds the terminal would never end.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	// Close-on-exec from the start: a child forked in between would share
	// the description and could make it blocking, and raw reads on a
	// blocking master would hold the server's only P.
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("copy the PTY descriptor: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("make the PTY non-blocking: %w", err)
	}
	// NewFile sees O_NONBLOCK and registers the descriptor with the poller.
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.child.Pid }

// Read reads output from the PTY. After the child and every process holding
// the terminal have gone it returns an error (EIO on Linux).
func (p *Process) Read(b []byte) (int, error) { return p.master.Read(b) }

// ReadNow reads what the master holds into buf without waiting: 0 and a
// nil error when it holds nothing. It is for a caller that must not block,
// the watcher's callback; the error of a read (EIO once the terminal has
// hung up), or ErrClosed, is returned as ReadReady would return it.
func (p *Process) ReadNow(buf []byte) (int, error) {
	var n int
	var rerr syscall.Errno
	err := p.raw.Control(func(fd uintptr) {
		for {
			n, rerr = rawRead(fd, buf)
			if rerr != syscall.EINTR {
				return
			}
		}
	})
	switch {
	case err != nil:
		return 0, ErrClosed
	case rerr == syscall.EAGAIN:
		return 0, nil
	case rerr != 0:
		return 0, &os.PathError{Op: "read", Path: p.master.Name(), Err: rerr}
	case n == 0 && len(buf) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// ReadReady reads output like Read, into buf; or, when buf is nil, into the
// buffer get returns, which it calls only once there is something to read
// (or the terminal has hung up, or poll(2) failed and it cannot tell), so a
// caller that allocates its buffers on demand holds none while the program
// is quiet. Deadlines and Close apply as to Read.
func (p *Process) ReadReady(buf []byte, get func() []byte) (int, error) {
	p.rbuf, p.rget, p.rn, p.rerrno = buf, get, 0, 0
	err := p.raw.Read(p.readFn)
	buf, n, rerr := p.rbuf, p.rn, p.rerrno
	p.rbuf, p.rget = nil, nil // hold no buffer past the call
	switch {
	case err != nil:
		return 0, err
	case rerr != 0:
		return 0, &os.PathError{Op: "read", Path: p.master.Name(), Err: rerr}
	case n == 0 && len(buf) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// readReady is ReadReady's call, made by the poller when the master may be
// readable.
func (p *Process) readReady(fd uintptr) bool {
	if p.rbuf == nil {
		// A level check, like the read it stands for: output that
		// arrives after it wakes the poller's wait as a read's EAGAIN
		// would.
		if !readable(fd) {
			return false
		}
		p.rbuf = p.rget()
	}
	for {
		p.rn, p.rerrno = rawRead(fd, p.rbuf)
		if p.rerrno != syscall.EINTR {
			return p.rerrno != syscall.EAGAIN
		}
	}
}

// SetReadDeadline bounds a pending Read, used to drain what is left after
// the child exits while a background process still holds the terminal.
func (p *Process) SetReadDeadline(t time.Time) error { return p.master.SetReadDeadline(t) }

// Resize sets the terminal size; the kernel sends SIGWINCH to the
// foreground process group. A size of 0 in either direction is ignored.
func (p *Process) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return nil
	}
	ws := &unix.Winsize{Col: uint16(min(cols, 0xffff)), Row: uint16(min(rows, 0xffff))}
	var ioErr error
	err := p.raw.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws)
	})
	if err != nil {
		return fmt.Errorf("resize the PTY: %w", err)
	}
	if ioErr != nil {
		return fmt.Errorf("resize the PTY: %w", ioErr)
	}
	return nil
}

// ForegroundPgrp is the terminal's foreground process group, or 0 when it
// cannot be read (the terminal is gone).
func (p *Process) ForegroundPgrp() int {
	var pgrp int
	_ = p.raw.Control(func(fd uintptr) {
		v, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
		if err == nil {
			pgrp = v
		}
	})
	return pgrp
}

// Close closes the master. Pending reads and writes return; the session's
// processes see a hang-up.
func (p *Process) Close() error {
	p.closed.Store(true)
	p.unwatch()
	return p.master.Close()
}

// Signal sends sig to the child.
func (p *Process) Signal(sig os.Signal) error { return p.child.Signal(sig) }

// Wait waits for the child and returns its exit code in the shell
// convention. Only one goroutine may call it.
func (p *Process) Wait() (int, error) {
	// The child's stdio are the terminal's files, not pipes, so there is
	// nothing of exec.Cmd.Wait's copying to wait for.
	st, err := p.child.Wait()
	if st == nil {
		return 1, err
	}
	return exitCode(st), nil
}
