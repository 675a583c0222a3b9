package proc

import (
	"bytes"
	"strings"
)

// Table is one read of the process table, shared by every session of a kill
// sweep: the stat of every process, read once when the Table is made, and
// the environment of every process, read once per marker name (a kill uses
// one, WR_SESSION_ID), the first time a marker of that name is asked for.
//
// Issue 14: each session used to read the whole table (environments
// included) for itself, so killing n sessions read n tables and the sweep
// grew as sessions × processes; 500 sessions took 35 s. Every session's set
// is now built from the one Table.
//
// A Table is not safe for concurrent use.
type Table struct {
	src      table
	err      error         // the read failed: nothing below a root is known
	live     []entry       // every process not a zombie, in the order read
	byPID    map[int]entry // live, by pid
	children map[int][]entry
	// carriers maps a marker's name ("WR_SESSION_ID=") to every whole
	// NAME=VALUE entry with that name found in an environment, and each of
	// those to the live processes carrying it, in table order.
	carriers map[string]map[string][]int
}

// ReadTable reads the process table once. Read it before signalling any of
// the processes a sweep is to find: once a shell is hung up its children
// start exiting and reparenting, and a descendant that has left the table
// can no longer be found by parent links.
func ReadTable() *Table { return readTable(osTable) }

func readTable(src table) *Table {
	es, err := src.entries()
	t := &Table{
		src:      src,
		err:      err,
		byPID:    make(map[int]entry, len(es)),
		children: make(map[int][]entry, len(es)),
		carriers: map[string]map[string][]int{},
	}
	for _, e := range es {
		if e.zombie { // exited: nothing left to signal, nothing below it
			continue
		}
		t.live = append(t.live, e)
		t.byPID[e.pid] = e
		t.children[e.ppid] = append(t.children[e.ppid], e)
	}
	return t
}

// Sweep records one session's processes from the table: root (the child;
// 0 for none), all its descendants, and every process that carries marker
// (a NAME=VALUE environment entry unique to the session; "" for none) with
// its descendants. The caller must know that root has not been reaped since
// the table was read (mux holds the session's reap lock and has checked):
// then the table's entry for root is the child's, not that of a process
// that reused its pid.
//
// A root of 0 records no root (a child already reaped, whose pid may belong
// to someone else by now): only the marked processes are taken.
func (t *Table) Sweep(root, foregroundPgrp int, marker string) *Sweep {
	s := &Sweep{pgrp: foregroundPgrp, marker: marker}
	if root <= 0 {
		root = -1 // no process has it: the walk starts from the marked ones alone
	} else if e, ok := t.byPID[root]; ok {
		s.procs = append(s.procs, process{pid: root, start: e.start})
	} else if e, ok := t.src.lookup(root); ok && !e.zombie {
		// Missing from the read (its stat was unreadable then, or the
		// table could not be read at all): the child, still unreaped, is
		// looked up alone.
		s.procs = append(s.procs, process{pid: root, start: e.start})
	}
	if t.err != nil { // an unreadable table leaves the child alone in the sweep
		return s
	}
	s.procs = append(s.procs, t.below(append([]int{root}, t.marked(marker)...))...)
	return s
}

// holds reports whether p is in the table as the process recorded, by the
// same rule as alive.
func (t *Table) holds(p process) bool {
	if p.pid <= 0 {
		return false
	}
	e, ok := t.byPID[p.pid]
	return ok && (p.start == 0 || e.start == 0 || e.start == p.start)
}

// marked returns the live processes whose environment holds marker as a
// whole NAME=VALUE entry ("" matches nothing), in table order.
//
// The first marker of a name reads every live process's environment once
// and indexes every entry of that name, so n sessions' markers cost one
// pass over the environments, not n.
func (t *Table) marked(marker string) []int {
	if marker == "" || t.err != nil {
		return nil
	}
	name := marker
	if i := strings.IndexByte(marker, '='); i >= 0 {
		name = marker[:i+1]
	}
	index, ok := t.carriers[name]
	if !ok {
		index = map[string][]int{}
		prefix := []byte(name)
		for _, e := range t.live {
			env := t.src.environ(e.pid)
			// Only NUL-terminated entries count: a torn read's last,
			// cut-off entry might merely begin with the marker.
			for i := bytes.IndexByte(env, 0); i >= 0; i = bytes.IndexByte(env, 0) {
				if entry := env[:i]; bytes.HasPrefix(entry, prefix) {
					pids := index[string(entry)]
					if len(pids) == 0 || pids[len(pids)-1] != e.pid { // an entry repeated in one environment
						index[string(entry)] = append(pids, e.pid)
					}
				}
				env = env[i+1:]
			}
		}
		t.carriers[name] = index
	}
	return index[marker]
}

// below walks parent links down from roots. Every root but the first is
// itself part of the result.
func (t *Table) below(roots []int) []process {
	var out []process
	seen := map[int]bool{roots[0]: true}
	queue := []int{roots[0]}
	for _, r := range roots[1:] {
		e, ok := t.byPID[r]
		if !ok || seen[r] { // gone since it was named: nothing to record
			continue
		}
		seen[r] = true
		out = append(out, process{pid: r, start: e.start})
		queue = append(queue, r)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range t.children[p] {
			if seen[c.pid] { // a cycle would mean a torn read; never loop
				continue
			}
			seen[c.pid] = true
			out = append(out, process{pid: c.pid, start: c.start})
			queue = append(queue, c.pid)
		}
	}
	return out
}
