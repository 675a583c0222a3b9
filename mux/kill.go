package mux

import (
	"sort"
	"time"

	"wr/proc"
)

// sessionEndWait bounds how long a kill waits, after its sweep, for the
// sessions to drain and leave the registry.
const sessionEndWait = 2 * time.Second

// killSessions ends every target the way design section 7 orders it, and
// returns only when the sweep is over:
//
//  1. Snapshot every session's process tree before signalling anything:
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
// No lock is held while waiting, so wr ls answers during a sweep.
func killSessions(targets []*session) []string {
	sweeps := make([]*proc.Sweep, 0, len(targets))
	for _, ss := range targets {
		ss.killed.Store(true)
		sweeps = append(sweeps, ss.snapshot())
	}
	for i, ss := range targets {
		sweeps[i].Hangup()
		_ = ss.proc.Close()
	}
	proc.Finish(sweeps, proc.Grace)
	deadline := time.After(sessionEndWait)
	names := make([]string, 0, len(targets))
	for _, ss := range targets {
		select {
		case <-ss.done:
		case <-deadline:
		}
		names = append(names, ss.name)
	}
	sort.Strings(names)
	return names
}

// snapshot records the session's processes. Once the child has been reaped
// its pid (and process group) may already be someone else's, so only the
// processes carrying the session's marker are taken then.
func (ss *session) snapshot() *proc.Sweep {
	ss.reapMu.Lock()
	defer ss.reapMu.Unlock()
	if ss.exitedAt.Load() != 0 {
		return proc.Snapshot(0, 0, ss.marker)
	}
	return proc.Snapshot(ss.pid, ss.proc.ForegroundPgrp(), ss.marker)
}
