package mux

import (
	"time"

	"wr/proc"
)

// sessionEndWait bounds how long a kill waits, after its sweep, for the
// sessions to drain and leave the registry.
const sessionEndWait = 2 * time.Second

// killSessions ends every target the way design section 7 orders it, and
// returns only when the sweep is over:
//
//  1. Snapshot every session's process tree before signalling anything,
//     all from one read of the process table (issue 14: a read per session
//     made killing n sessions cost n full tables, 35 s for 500):
//     once a shell is hung up its children exit and reparent, and a
//     descendant that has left the tree can no longer be found. The tree is
//     the child's descendants plus every process carrying the session's
//     WR_SESSION_ID (and theirs): a double-forked daemon was reparented to
//     init long before the kill, and only its environment still says where
//     it came from.
//  2. SIGHUP the foreground group, the child and every descendant; close the
//     PTY master.
//  3. Wait once, for all of them together, then SIGKILL what is left.
//
// No lock is held while waiting, so wr ls answers during a sweep. The
// server does not exit while a sweep runs (sweeps): the last session gone
// stops the server, and a server that exited between the hang-up and the
// SIGKILL left every process that ignores SIGHUP running.
func (s *server) killSessions(targets []*session) {
	s.mu.Lock()
	counted := !s.sweepsClosed
	if counted {
		s.sweeps.Add(1)
	}
	s.mu.Unlock()
	if counted {
		defer s.sweeps.Done()
	}
	for _, ss := range targets {
		ss.killed.Store(true)
	}
	table := proc.ReadTable()
	sweeps := make([]*proc.Sweep, 0, len(targets))
	for _, ss := range targets {
		sweeps = append(sweeps, ss.snapshot(table))
	}
	for i, ss := range targets {
		sweeps[i].Hangup()
		_ = ss.proc.Close()
	}
	proc.KillAfter(sweeps, proc.Grace)
	deadline := time.After(sessionEndWait)
	for _, ss := range targets {
		select {
		case <-ss.done:
		case <-deadline:
		}
	}
}

// waitSweeps is Run's last wait for the sweeps under way; none is counted
// after it begins.
func (s *server) waitSweeps() {
	s.mu.Lock()
	s.sweepsClosed = true
	s.mu.Unlock()
	s.sweeps.Wait()
}

// snapshot records the session's processes from table. Once the child has
// been reaped its pid (and process group) may already be someone else's, so
// only the processes carrying the session's marker are taken then.
//
// The table must have been read before reapMu is taken here. A child found
// unreaped under reapMu was unreaped when the table was read too (reaping
// happens once, under reapMu), so the table's entry for its pid is the
// child's. Read the other way round (check, unlock, then read the table),
// the child could be reaped in between and its pid reused, and the sweep
// would record and signal an unrelated process.
func (ss *session) snapshot(table *proc.Table) *proc.Sweep {
	ss.reapMu.Lock()
	defer ss.reapMu.Unlock()
	if ss.exitedAt.Load() != 0 {
		return table.Sweep(0, 0, ss.marker)
	}
	return table.Sweep(ss.pid, ss.proc.ForegroundPgrp(), ss.marker)
}
