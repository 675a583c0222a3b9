package proc

import (
	"syscall"
	"time"
)

// Grace is how long a hung-up process has to exit before SIGKILL.
const Grace = 500 * time.Millisecond

// Sweep is one session's processes, recorded before anything is signalled.
type Sweep struct {
	pgrp   int    // the terminal's foreground process group, 0 if unknown
	marker string // the session's environment marker, "" for none
	procs  []Proc // the child first, then every descendant
}

// Snapshot records root, all its descendants, and every process that carries
// marker (a NAME=VALUE environment entry unique to the session; "" for
// none) with its descendants. It must run before any of them is signalled:
// once the shell is hung up its children start exiting and reparenting, and
// a descendant that has left the table can no longer be found by parent
// links.
//
// A root of 0 records no root (a child already reaped, whose pid may belong
// to someone else by now): only the marked processes are taken.
func Snapshot(root, foregroundPgrp int, marker string) *Sweep {
	return snapshot(osTable, root, foregroundPgrp, marker)
}

func snapshot(t table, root, pgrp int, marker string) *Sweep {
	s := &Sweep{pgrp: pgrp, marker: marker}
	if root <= 0 {
		ds, _ := descendants(t, -1, marker)
		s.procs = ds
		return s
	}
	if e, ok := t.lookup(root); ok && !e.zombie {
		s.procs = append(s.procs, Proc{PID: root, Start: e.start})
	}
	ds, _ := descendants(t, root, marker) // an unreadable table leaves the child alone in the sweep
	s.procs = append(s.procs, ds...)
	return s
}

// Procs returns what the snapshot recorded.
func (s *Sweep) Procs() []Proc { return s.procs }

// Hangup sends SIGHUP to the foreground process group, then to every
// recorded process that is still the one recorded.
func (s *Sweep) Hangup() { s.hangup(osTable, killSignal) }

func (s *Sweep) hangup(t table, send signaller) {
	if s.pgrp > 1 {
		// Sent straight after the snapshot, the first signal of the sweep.
		_ = send(-s.pgrp, syscall.SIGHUP)
	}
	for _, p := range s.procs {
		_ = signal(t, send, p, syscall.SIGHUP)
	}
}

// rescan adds what appeared since the snapshot: children of recorded
// processes that are still the ones recorded, and new carriers of the
// marker (a process that answers SIGHUP by starting another must not
// escape). It reports whether it found anything.
func (s *Sweep) rescan(t table) bool {
	es, err := t.entries()
	if err != nil {
		return false
	}
	known := make(map[Proc]bool, len(s.procs))
	var roots []int
	for _, p := range s.procs {
		known[p] = true
		if alive(t, p) {
			roots = append(roots, p.PID)
		}
	}
	roots = append(roots, marked(t, es, s.marker)...)
	found := false
	for _, p := range below(es, append([]int{-1}, roots...)) {
		if !known[p] {
			known[p] = true
			s.procs = append(s.procs, p)
			found = true
		}
	}
	return found
}

// alive reports whether any recorded process is still running.
func (s *Sweep) alive(t table) bool {
	for _, p := range s.procs {
		if alive(t, p) {
			return true
		}
	}
	return false
}

func (s *Sweep) kill(t table, send signaller) {
	for _, p := range s.procs {
		_ = signal(t, send, p, syscall.SIGKILL)
	}
}

// Finish waits up to grace for every process of every sweep to exit, then
// sends SIGKILL to whatever is still the process it was. Many sessions share
// one wait, so killing twenty costs one grace period, not twenty.
func Finish(sweeps []*Sweep, grace time.Duration) {
	finish(osTable, killSignal, sweeps, grace, time.Sleep)
}

func finish(t table, send signaller, sweeps []*Sweep, grace time.Duration, sleep func(time.Duration)) {
	const poll = 10 * time.Millisecond
	for waited := time.Duration(0); ; waited += poll {
		any := false
		for _, s := range sweeps {
			if s.alive(t) {
				any = true
				break
			}
		}
		if !any {
			return
		}
		if waited >= grace {
			break
		}
		sleep(poll)
	}
	// Kill, then look again: a process may have started another in
	// answer to the hang-up, or between the last look and the kill. Each
	// round's kill stops its targets forking, so this ends.
	for round := 0; round < 8; round++ {
		for _, s := range sweeps {
			s.rescan(t)
			s.kill(t, send)
		}
		found := false
		for _, s := range sweeps {
			if s.rescan(t) {
				found = true
			}
		}
		if !found {
			break
		}
	}
	// SIGKILL cannot be caught; give the kernel a moment so the caller
	// returns after the processes are gone, not merely doomed.
	for waited := time.Duration(0); waited < grace; waited += poll {
		any := false
		for _, s := range sweeps {
			if s.alive(t) {
				any = true
				break
			}
		}
		if !any {
			return
		}
		sleep(poll)
	}
}
