// Package proc finds a process's descendants and signals them without ever
// touching a process that merely reused one of their pids.
//
// A descendant is found by parent links (the one relation setsid cannot
// escape) and recorded with its start time. Every signal after the snapshot
// re-reads the start time first: a pid that now belongs to an unrelated
// process is left alone. This package must never signal a bare pid.
package proc

import (
	"bytes"
	"errors"
	"syscall"
)

// Proc is one process, named by pid and start time together. Start is in
// the platform's own unit (clock ticks since boot on Linux, microseconds
// since the epoch on macOS); 0 means it could not be read.
type Proc struct {
	PID   int
	Start uint64
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

// Descendants returns every process below root (not root itself), found by
// following parent links through one read of the process table.
func Descendants(root int) ([]Proc, error) { return descendants(osTable, root, "") }

// descendants returns the processes below root and, when marker is set, the
// processes whose environment holds marker (a NAME=VALUE entry) and the
// processes below those. The marker finds what parent links cannot: a
// daemon that double-forked, or a `setsid cmd &` whose intermediate parent
// exited, has been reparented to init before anyone thought to look.
func descendants(t table, root int, marker string) ([]Proc, error) {
	es, err := t.entries()
	if err != nil {
		return nil, err
	}
	return below(es, append([]int{root}, marked(t, es, marker)...)), nil
}

// marked returns the live processes among es whose environment holds
// marker as a whole NAME=VALUE entry ("" matches nothing).
func marked(t table, es []entry, marker string) []int {
	if marker == "" {
		return nil
	}
	m := []byte(marker + "\x00")
	nm := append([]byte{0}, m...)
	var out []int
	for _, e := range es {
		if e.zombie {
			continue
		}
		if env := t.environ(e.pid); bytes.HasPrefix(env, m) || bytes.Contains(env, nm) {
			out = append(out, e.pid)
		}
	}
	return out
}

// below walks parent links down from roots. Every root but the first is
// itself part of the result.
func below(es []entry, roots []int) []Proc {
	byPID := make(map[int]entry, len(es))
	children := make(map[int][]entry, len(es))
	for _, e := range es {
		if e.zombie {
			continue
		}
		byPID[e.pid] = e
		children[e.ppid] = append(children[e.ppid], e)
	}
	var out []Proc
	seen := map[int]bool{roots[0]: true}
	queue := []int{roots[0]}
	for _, r := range roots[1:] {
		e, ok := byPID[r]
		if !ok || seen[r] { // gone since it was named: nothing to record
			continue
		}
		seen[r] = true
		out = append(out, Proc{PID: r, Start: e.start})
		queue = append(queue, r)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if seen[c.pid] { // a cycle would mean a torn read; never loop
				continue
			}
			seen[c.pid] = true
			out = append(out, Proc{PID: c.pid, Start: c.start})
			queue = append(queue, c.pid)
		}
	}
	return out
}

// Self returns p's identity now: its pid with its current start time.
func Self(pid int) Proc {
	e, _ := osTable.lookup(pid)
	return Proc{PID: pid, Start: e.start}
}

// Alive reports whether p is still the process that was recorded. An
// unknown recorded or current start time falls back to existence: leaving a
// real descendant running forever is worse than a rare wrong answer.
func (p Proc) Alive() bool { return alive(osTable, p) }

func alive(t table, p Proc) bool {
	if p.PID <= 0 {
		return false
	}
	now, ok := t.lookup(p.PID)
	if !ok || now.zombie {
		return false
	}
	return p.Start == 0 || now.start == 0 || now.start == p.Start
}

// Signal sends sig to p if it is still the recorded process. A process that
// has gone (or whose pid was reused) is not an error.
func (p Proc) Signal(sig syscall.Signal) error { return signal(osTable, killSignal, p, sig) }

func signal(t table, send signaller, p Proc, sig syscall.Signal) error {
	if !alive(t, p) {
		return nil
	}
	if err := send(p.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
