// Package proc finds a process's descendants and signals them without ever
// touching a process that merely reused one of their pids.
//
// A descendant is found by parent links (the one relation setsid cannot
// escape) and recorded with its start time. Every signal after the snapshot
// re-reads the start time first: a pid that now belongs to an unrelated
// process is left alone. This package must never signal a bare pid.
package proc

import (
	"errors"
	"syscall"
)

// process is one process, named by pid and start time together. start is in
// the platform's own unit (clock ticks since boot on Linux, microseconds
// since the epoch on macOS); 0 means it could not be read.
type process struct {
	pid   int
	start uint64
}

// entry is one row of the process table.
type entry struct {
	pid, ppid int
	start     uint64
	zombie    bool // exited, not yet reaped: nothing left to signal
}

// table reads the process table. Tests substitute a fake one.
type table interface {
	entries() ([]entry, error)
	// lookup reads one process now; ok=false if there is no such pid. An
	// entry whose start time cannot be read has start 0.
	lookup(pid int) (e entry, ok bool)
	// environ returns the NUL-separated environment pid started with, or
	// nil when it cannot be read.
	environ(pid int) []byte
}

// signaller delivers a signal; tests substitute a recorder.
type signaller func(pid int, sig syscall.Signal) error

func killSignal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// descendants returns the processes below root (not root itself), found by
// following parent links through one read of t, and, when marker is set, the
// processes whose environment holds marker (a NAME=VALUE entry) and the
// processes below those. The marker finds what parent links cannot: a
// daemon that double-forked, or a `setsid cmd &` whose intermediate parent
// exited, has been reparented to init before anyone thought to look.
func descendants(t table, root int, marker string) ([]process, error) {
	tab := readTable(t)
	if tab.err != nil {
		return nil, tab.err
	}
	return tab.below(append([]int{root}, tab.marked(marker)...)), nil
}

// current returns pid's identity now: the pid with its current start time.
func current(pid int) process {
	e, _ := osTable.lookup(pid)
	return process{pid: pid, start: e.start}
}

// alive reports whether p is still the process that was recorded, by t. An
// unknown recorded or current start time falls back to existence: leaving a
// real descendant running forever is worse than a rare wrong answer.
func alive(t table, p process) bool {
	if p.pid <= 0 {
		return false
	}
	now, ok := t.lookup(p.pid)
	if !ok || now.zombie {
		return false
	}
	return p.start == 0 || now.start == 0 || now.start == p.start
}

// signal sends sig to p through send if t says p is still the recorded
// process. A process that has gone (or whose pid was reused) is not an
// error.
func signal(t table, send signaller, p process, sig syscall.Signal) error {
	if !alive(t, p) {
		return nil
	}
	if err := send(p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
