package ptyproc

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Adopt takes over a PTY master and a child this process already has:
// after an exec in place (wr server upgrade) the child is still this
// process's child, and the master is an inherited descriptor. The master
// must be non-blocking, as Start leaves it: NewFile then hands it to the
// runtime's poller. Adopt marks it close-on-exec again.
func Adopt(masterFD, pid int) (*Process, error) {
	flags, err := unix.FcntlInt(uintptr(masterFD), unix.F_GETFL, 0)
	if err != nil {
		return nil, fmt.Errorf("adopt the PTY of pid %d: %w", pid, err)
	}
	if flags&unix.O_NONBLOCK == 0 {
		return nil, fmt.Errorf("adopt the PTY of pid %d: the master is in blocking mode", pid)
	}
	unix.CloseOnExec(masterFD)
	child, err := os.FindProcess(pid)
	if err != nil {
		return nil, fmt.Errorf("adopt pid %d: %w", pid, err)
	}
	master := os.NewFile(uintptr(masterFD), "/dev/ptmx")
	raw, err := master.SyscallConn()
	if err != nil {
		master.Close()
		return nil, err
	}
	return newProcess(master, raw, child), nil
}

// MasterFD is the master's descriptor number, for a hand-off to name it.
func (p *Process) MasterFD() int {
	fd := -1
	_ = p.raw.Control(func(d uintptr) { fd = int(d) })
	return fd
}

// KeepAcrossExec clears close-on-exec on the master, so that an exec in
// place hands it over. The master stays open and non-blocking. It is done
// right before the exec, and undone (CloseOnExec) if the exec fails.
func (p *Process) KeepAcrossExec() error {
	var ferr error
	err := p.raw.Control(func(d uintptr) { _, ferr = unix.FcntlInt(d, unix.F_SETFD, 0) })
	if err == nil {
		err = ferr
	}
	return err
}

// CloseOnExec undoes KeepAcrossExec, for a hand-off that failed.
func (p *Process) CloseOnExec() {
	_ = p.raw.Control(func(d uintptr) { unix.CloseOnExec(int(d)) })
}
