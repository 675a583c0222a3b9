package proc

import (
	"syscall"
	"time"
)

// Grace is how long a hung-up process has to exit before SIGKILL.
const Grace = 500 * time.Millisecond

// Sweep is one session's processes, recorded before anything is signalled.
type Sweep struct {
	pgrp   int       // the terminal's foreground process group, 0 if unknown
	marker string    // the session's environment marker, "" for none
	procs  []process // the child first, then every descendant
}

// snapshot records one session's processes through a read of t for it
// alone; see Table.Sweep, which a kill uses: a sweep of many sessions reads
// one Table and takes every session's Sweep from it. It must run before any
// of the processes is signalled: once the shell is hung up its children
// start exiting and reparenting, and a descendant that has left the table
// can no longer be found by parent links.
func snapshot(t table, root, pgrp int, marker string) *Sweep {
	return readTable(t).Sweep(root, pgrp, marker)
}

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

// rescan adds what the fresh table t shows appeared since the snapshot:
// children of recorded processes that are still the ones recorded, and new
// carriers of the marker (a process that answers SIGHUP by starting another
// must not escape). It reports whether it found anything.
func (s *Sweep) rescan(t *Table) bool {
	if t.err != nil {
		return false
	}
	known := make(map[process]bool, len(s.procs))
	roots := []int{-1}
	for _, p := range s.procs {
		known[p] = true
		if t.holds(p) {
			roots = append(roots, p.pid)
		}
	}
	roots = append(roots, t.marked(s.marker)...)
	found := false
	for _, p := range t.below(roots) {
		if !known[p] {
			known[p] = true
			s.procs = append(s.procs, p)
			found = true
		}
	}
	return found
}

// survivors finds a recorded process of any sweep that is still running.
// A process seen gone (exited, or its pid now another process's) never
// comes back, so each look resumes at the first process not yet seen gone:
// the polls of one wait read each process about once in all, not once per
// poll. Make a new one after a rescan, which may add processes anywhere.
type survivors struct {
	sweeps []*Sweep
	sweep  int // the first sweep with a process not yet seen gone
	proc   int // that process, within the sweep
}

func (w *survivors) any(t table) bool {
	for ; w.sweep < len(w.sweeps); w.sweep, w.proc = w.sweep+1, 0 {
		procs := w.sweeps[w.sweep].procs
		for ; w.proc < len(procs); w.proc++ {
			if alive(t, procs[w.proc]) {
				return true
			}
		}
	}
	return false
}

func (s *Sweep) kill(t table, send signaller) {
	for _, p := range s.procs {
		_ = signal(t, send, p, syscall.SIGKILL)
	}
}

// KillAfter waits up to grace for every process of every sweep to exit,
// then sends SIGKILL to whatever is still the process it was. Many sessions
// share one wait, so killing twenty costs one grace period, not twenty.
func KillAfter(sweeps []*Sweep, grace time.Duration) {
	killAfter(osTable, killSignal, sweeps, grace, time.Sleep)
}

// killAfter reads the process table at most once per kill round for all the
// sweeps together, never once per sweep: a per-sweep read made the kill of
// n sessions cost n full tables per round (issue 14).
func killAfter(t table, send signaller, sweeps []*Sweep, grace time.Duration, sleep func(time.Duration)) {
	const poll = 10 * time.Millisecond
	running := &survivors{sweeps: sweeps}
	for waited := time.Duration(0); running.any(t); waited += poll {
		if waited >= grace {
			break
		}
		sleep(poll)
	}
	if !running.any(t) {
		return
	}
	// Kill, then look again: a process may have started another in
	// answer to the hang-up, or between the last look and the kill. Each
	// round's kill stops its targets forking, so this ends. The look
	// before the first kill catches what started during the grace period.
	tab := readTable(t)
	for _, s := range sweeps {
		s.rescan(tab)
	}
	for round := 0; round < 8; round++ {
		for _, s := range sweeps {
			s.kill(t, send)
		}
		tab = readTable(t)
		found := false
		for _, s := range sweeps {
			if s.rescan(tab) {
				found = true
			}
		}
		if !found {
			break
		}
	}
	// SIGKILL cannot be caught; give the kernel a moment so the caller
	// returns after the processes are gone, not merely doomed.
	running = &survivors{sweeps: sweeps}
	for waited := time.Duration(0); waited < grace && running.any(t); waited += poll {
		sleep(poll)
	}
}
