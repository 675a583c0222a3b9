//go:build linux

package mux

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// upgradeSupported: Linux hands a server over in place.
func upgradeSupported() error { return nil }

// execHandoff execs binary in this process, handing over exactly the
// listener, the lock, every held PTY master, every held client's
// connection and the request's: close-on-exec is cleared on those alone,
// right before the exec, and set again if the exec fails. It returns only
// on failure.
func (s *server) execHandoff(binary, state string, h *upgradeHold, req *net.UnixConn) error {
	var fds []int
	keep := func(fd int) error {
		if fd < 0 {
			return fmt.Errorf("a descriptor to hand over is closed")
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
			return fmt.Errorf("keep descriptor %d across the exec: %w", fd, err)
		}
		fds = append(fds, fd)
		return nil
	}
	undo := func() {
		for _, fd := range fds {
			unix.CloseOnExec(fd)
		}
	}
	conns := []syscall.Conn{s.ln, req}
	for _, w := range h.waiters {
		conns = append(conns, w)
	}
	for _, c := range h.clients {
		if !isClosed(c.done) {
			conns = append(conns, c.conn.(syscall.Conn))
		}
	}
	err := keep(int(s.lockFile.Fd()))
	for _, c := range conns {
		if err == nil {
			err = keep(fdOf(c))
		}
	}
	for _, ss := range h.reaping {
		if err == nil {
			err = keep(ss.proc.MasterFD())
		}
	}
	if err != nil {
		undo()
		return err
	}
	argv := []string{binary, "server", "run", "--socket", s.socket, "--handoff", state}
	if s.daemon {
		argv = append(argv, "--daemon")
	}
	s.logf("upgrade: exec %s with %d descriptors", binary, len(fds))
	// Ignored across the exec, which puts back SIGUSR1's default (to end
	// the process) until the new binary's runtime catches it: a kill
	// -USR1 in that moment (a tmux habit for a socket removed) killed the
	// server and every session. An ignored signal stays so across exec.
	restore := ignoreAcrossExec(syscall.SIGUSR1)
	err = syscall.Exec(binary, argv, os.Environ())
	restore()
	undo()
	return fmt.Errorf("exec %s: %w", binary, err)
}
