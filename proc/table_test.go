package proc

import (
	"bytes"
	"fmt"
	"reflect"
	"syscall"
	"testing"
)

// countingTable counts the reads a sweep makes of the process table under
// it: whole-table reads, and environment reads per pid.
type countingTable struct {
	*fakeTable
	tableReads   int
	environReads map[int]int
}

func counting(t *fakeTable) *countingTable {
	return &countingTable{fakeTable: t, environReads: map[int]int{}}
}

func (c *countingTable) entries() ([]entry, error) {
	c.tableReads++
	return c.fakeTable.entries()
}

func (c *countingTable) environ(pid int) []byte {
	c.environReads[pid]++
	return c.fakeTable.environ(pid)
}

// mostReads is the largest count in reads.
func mostReads(reads map[int]int) int {
	most := 0
	for _, n := range reads {
		most = max(most, n)
	}
	return most
}

// perSessionSnapshot is the snapshot as it was before issue 14, kept here
// as the reference every shared-table sweep must agree with: the root looked
// up alone, then a whole read of the table (every environment included) for
// this one session.
func perSessionSnapshot(t table, root, pgrp int, marker string) []process {
	var out []process
	if root > 0 {
		if e, ok := t.lookup(root); ok && !e.zombie {
			out = append(out, process{pid: root, start: e.start})
		}
	} else {
		root = -1
	}
	es, err := t.entries()
	if err != nil {
		return out
	}
	roots := []int{root}
	if marker != "" {
		m := []byte(marker + "\x00")
		nm := append([]byte{0}, m...)
		for _, e := range es {
			if env := t.environ(e.pid); !e.zombie && (bytes.HasPrefix(env, m) || bytes.Contains(env, nm)) {
				roots = append(roots, e.pid)
			}
		}
	}
	byPID := map[int]entry{}
	children := map[int][]entry{}
	for _, e := range es {
		if !e.zombie {
			byPID[e.pid] = e
			children[e.ppid] = append(children[e.ppid], e)
		}
	}
	seen := map[int]bool{roots[0]: true}
	queue := []int{roots[0]}
	for _, r := range roots[1:] {
		if e, ok := byPID[r]; ok && !seen[r] {
			seen[r] = true
			out = append(out, process{pid: r, start: e.start})
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c.pid] {
				seen[c.pid] = true
				out = append(out, process{pid: c.pid, start: c.start})
				queue = append(queue, c.pid)
			}
		}
	}
	return out
}

// sessionTarget is one session of a many-session fake table.
type sessionTarget struct {
	root, pgrp int
	marker     string
}

// manySessions builds a table of n sessions, each a shell with a foreground
// job, a setsid'd grandchild reparented to init that only its environment
// ties to the session, and a worker below that grandchild whose environment
// was cleared. Every fourth session's shell has been reaped already (root
// 0, its job reparented to init), and every fifth's is a zombie. Unrelated processes, one carrying a
// marker that merely begins like a session's, sit between them.
func manySessions(n int) (*fakeTable, []sessionTarget) {
	tab := newTable(entry{pid: 1, ppid: 0, start: 1})
	tab.env = map[int]string{}
	var targets []sessionTarget
	for i := range n {
		shell := 1000 + 10*i
		marker := fmt.Sprintf("WR_SESSION_ID=%04x", i)
		env := "HOME=/h\x00" + marker + "\x00PATH=/bin\x00"
		for pid, ppid := range map[int]int{shell: 1, shell + 1: shell, shell + 2: 1, shell + 3: shell + 2} {
			tab.procs[pid] = entry{pid: pid, ppid: ppid, start: uint64(pid) * 7}
		}
		tab.env[shell] = env
		tab.env[shell+1] = env
		tab.env[shell+2] = env // the setsid'd grandchild: parent links lost it
		tab.procs[shell+5] = entry{pid: shell + 5, ppid: 1, start: 3}
		tab.env[shell+5] = "A=1\x00" + marker + "0\x00" // a longer id: another session's
		target := sessionTarget{root: shell, pgrp: shell + 1, marker: marker}
		switch {
		case i%4 == 3:
			// Reaped: the shell is gone and its job was reparented to init.
			target.root, target.pgrp = 0, 0
			tab.exit(shell)
			tab.procs[shell+1] = entry{pid: shell + 1, ppid: 1, start: uint64(shell+1) * 7}
		case i%5 == 4:
			e := tab.procs[shell]
			e.zombie = true
			tab.procs[shell] = e
		}
		targets = append(targets, target)
	}
	return tab, targets
}

// Issue 14: a sweep of many sessions reads the process table once, and each
// process's environment at most once, and still records for each session
// exactly what a snapshot of that session alone recorded.
func TestSweepOfManySessionsReadsTheTableOnce(t *testing.T) {
	const n = 60
	tab, targets := manySessions(n)
	reads := counting(tab)

	shared := readTable(reads)
	var sweeps []*Sweep
	for _, tg := range targets {
		sweeps = append(sweeps, shared.Sweep(tg.root, tg.pgrp, tg.marker))
	}

	if reads.tableReads != 1 {
		t.Errorf("a sweep of %d sessions read the process table %d times, want once", n, reads.tableReads)
	}
	if most := mostReads(reads.environReads); most > 1 {
		t.Errorf("an environment was read %d times, want at most once", most)
	}
	for i, tg := range targets {
		want := perSessionSnapshot(tab, tg.root, tg.pgrp, tg.marker)
		if got := sweeps[i].procs; !reflect.DeepEqual(got, want) {
			t.Errorf("session %d (root %d): shared table gave %v, a table of its own %v", i, tg.root, got, want)
		}
	}
	// The reference itself must see the setsid'd grandchild and its worker,
	// or the comparison above proves nothing.
	if got := pids(sweeps[0].procs); !reflect.DeepEqual(got, []int{1000, 1001, 1002, 1003}) {
		t.Errorf("session 0 = %v, want the shell, its job, the setsid'd grandchild and its worker", got)
	}
	if got := pids(sweeps[3].procs); !reflect.DeepEqual(got, []int{1031, 1032, 1033}) {
		t.Errorf("session 3, shell reaped = %v, want only the marked job, grandchild and worker", got)
	}
}

// Issue 14: the kill rounds after the grace period look for new processes
// with one read of the table per round for all the sessions, not one per
// session: the count does not grow with the number of sessions.
func TestKillAfterTableReadsDoNotGrowWithSessions(t *testing.T) {
	readsFor := func(n int) (tableReads int, killed int) {
		tab, targets := manySessions(n)
		var sweeps []*Sweep
		shared := readTable(tab)
		for _, tg := range targets {
			sweeps = append(sweeps, shared.Sweep(tg.root, tg.pgrp, tg.marker))
		}
		reads := counting(tab)
		// Nothing answers the hang-up; everything dies of SIGKILL.
		rec := &recorder{effect: func(pid int, sig syscall.Signal) error {
			if sig == syscall.SIGKILL {
				tab.exit(pid)
			}
			return nil
		}}
		killAfter(reads, rec.send, sweeps, Grace, (&clock{}).sleep)
		if most := mostReads(reads.environReads); most > reads.tableReads {
			t.Errorf("%d sessions: an environment was read %d times in %d table reads", n, most, reads.tableReads)
		}
		return reads.tableReads, len(rec.sent(syscall.SIGKILL))
	}
	one, _ := readsFor(1)
	many, killed := readsFor(50)
	if many != one {
		t.Errorf("finish read the table %d times for 50 sessions, %d for one: want the same", many, one)
	}
	if one > 2 {
		t.Errorf("finish read the table %d times when one kill round sufficed, want at most 2", one)
	}
	if killed == 0 {
		t.Error("nothing was SIGKILLed: the test did not reach the kill rounds")
	}
}
