package proc

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"
)

// fakeTable is an in-memory process table.
type fakeTable struct {
	procs map[int]entry
	env   map[int]string // pid -> NUL-separated environment
	err   error          // returned by entries
}

func newTable(es ...entry) *fakeTable {
	t := &fakeTable{procs: map[int]entry{}}
	for _, e := range es {
		t.procs[e.pid] = e
	}
	return t
}

func (t *fakeTable) entries() ([]entry, error) {
	if t.err != nil {
		return nil, t.err
	}
	out := make([]entry, 0, len(t.procs))
	for _, e := range t.procs {
		out = append(out, e)
	}
	// Map order is random; the table's order must not matter, but a
	// deterministic one keeps failures reproducible.
	slices.SortFunc(out, func(a, b entry) int { return a.pid - b.pid })
	return out, nil
}

func (t *fakeTable) lookup(pid int) (entry, bool) {
	e, ok := t.procs[pid]
	return e, ok
}

func (t *fakeTable) environ(pid int) []byte {
	if e, ok := t.env[pid]; ok {
		return []byte(e)
	}
	return nil
}

// exit removes pid, as if it exited and was reaped.
func (t *fakeTable) exit(pid int) { delete(t.procs, pid) }

// recycle gives pid to an unrelated process started later.
func (t *fakeTable) recycle(pid int) {
	t.procs[pid] = entry{pid: pid, ppid: 1, start: t.procs[pid].start + 1000}
}

// call is one signal delivery.
type call struct {
	pid int
	sig syscall.Signal
}

// recorder is a signaller that records every call and then runs effect, so
// a test can make a process die of a signal or make the kernel object.
type recorder struct {
	calls  []call
	effect func(pid int, sig syscall.Signal) error
}

func (r *recorder) send(pid int, sig syscall.Signal) error {
	r.calls = append(r.calls, call{pid, sig})
	if r.effect != nil {
		return r.effect(pid, sig)
	}
	return nil
}

func (r *recorder) sent(sig syscall.Signal) []int {
	var pids []int
	for _, c := range r.calls {
		if c.sig == sig {
			pids = append(pids, c.pid)
		}
	}
	return pids
}

func pids(ps []process) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.pid
	}
	return out
}

func TestDescendants(t *testing.T) {
	// chain is 100 -> 101 -> ... -> 150: a tree 50 deep below 100.
	chain := []entry{{pid: 100, ppid: 1, start: 1000}}
	for pid := 101; pid <= 150; pid++ {
		chain = append(chain, entry{pid: pid, ppid: pid - 1, start: uint64(pid) * 10})
	}
	var chainWant []int
	for pid := 101; pid <= 150; pid++ {
		chainWant = append(chainWant, pid)
	}

	tests := []struct {
		name  string
		table []entry
		root  int
		want  []int // in breadth-first order
	}{
		{"tree 50 deep", chain, 100, chainWant},
		{"root is not its own descendant", chain, 150, nil},
		{
			"forest: unrelated trees are left out",
			[]entry{
				{pid: 1, ppid: 0},
				{pid: 10, ppid: 1}, {pid: 11, ppid: 10}, {pid: 12, ppid: 10}, {pid: 13, ppid: 11},
				{pid: 20, ppid: 1}, {pid: 21, ppid: 20}, {pid: 22, ppid: 21},
				{pid: 30, ppid: 1},
			},
			10, []int{11, 12, 13},
		},
		{
			"setsid grandchild is still found by parent link",
			[]entry{{pid: 10, ppid: 1}, {pid: 11, ppid: 10}, {pid: 12, ppid: 11}},
			10, []int{11, 12},
		},
		{
			"zombies are skipped",
			[]entry{
				{pid: 10, ppid: 1}, {pid: 11, ppid: 10, zombie: true}, {pid: 12, ppid: 10},
				{pid: 13, ppid: 12, zombie: true}, {pid: 14, ppid: 12},
			},
			10, []int{12, 14},
		},
		{"root missing from the table", []entry{{pid: 11, ppid: 10}}, 10, []int{11}},
		{"no children", []entry{{pid: 10, ppid: 1}, {pid: 11, ppid: 1}}, 10, nil},
		{
			"a cycle from a torn read does not loop",
			[]entry{{pid: 11, ppid: 12}, {pid: 12, ppid: 11}, {pid: 13, ppid: 10}, {pid: 14, ppid: 13}, {pid: 10, ppid: 14}},
			13, []int{14, 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := descendants(newTable(tt.table...), tt.root, "")
			if err != nil {
				t.Fatalf("descendants: %v", err)
			}
			if !slices.Equal(pids(got), tt.want) {
				t.Errorf("descendants(%d) = %v, want %v", tt.root, pids(got), tt.want)
			}
		})
	}
}

func TestDescendantsRecordsStart(t *testing.T) {
	tab := newTable(entry{pid: 10, ppid: 1, start: 5}, entry{pid: 11, ppid: 10, start: 77}, entry{pid: 12, ppid: 11})
	got, err := descendants(tab, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []process{{pid: 11, start: 77}, {pid: 12, start: 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("descendants = %+v, want %+v", got, want)
	}
}

func TestDescendantsTableError(t *testing.T) {
	boom := errors.New("boom")
	tab := newTable()
	tab.err = boom
	if _, err := descendants(tab, 1, ""); !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
}

func TestAlive(t *testing.T) {
	tab := newTable(
		entry{pid: 10, start: 500},
		entry{pid: 11, start: 0}, // start unreadable now
		entry{pid: 12, start: 500, zombie: true},
	)
	tests := []struct {
		name string
		p    process
		want bool
	}{
		{"same start", process{10, 500}, true},
		{"pid reused: different start", process{10, 499}, false},
		{"recorded start unknown: exists", process{10, 0}, true},
		{"current start unknown: exists", process{11, 500}, true},
		{"gone", process{13, 500}, false},
		{"zombie", process{12, 500}, false},
		{"pid 0 is never a process", process{0, 0}, false},
		{"negative pid is never a process", process{-10, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := alive(tab, tt.p); got != tt.want {
				t.Errorf("alive(%+v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestSignal(t *testing.T) {
	tests := []struct {
		name       string
		table      []entry
		p          process
		sendErr    error
		wantSent   bool
		wantErr    error
		wantNilErr bool
	}{
		{"same process is signalled", []entry{{pid: 10, start: 500}}, process{10, 500}, nil, true, nil, true},
		{"pid reused by another process is not", []entry{{pid: 10, start: 900}}, process{10, 500}, nil, false, nil, true},
		{"vanished pid is not, and is no error", nil, process{10, 500}, nil, false, nil, true},
		{"zombie is not", []entry{{pid: 10, start: 500, zombie: true}}, process{10, 500}, nil, false, nil, true},
		{"unknown recorded start falls back to existence", []entry{{pid: 10, start: 900}}, process{10, 0}, nil, true, nil, true},
		{"unknown current start falls back to existence", []entry{{pid: 10, start: 0}}, process{10, 500}, nil, true, nil, true},
		{"ESRCH (exited in between) is no error", []entry{{pid: 10, start: 500}}, process{10, 500}, syscall.ESRCH, true, nil, true},
		{"EPERM is reported", []entry{{pid: 10, start: 500}}, process{10, 500}, syscall.EPERM, true, syscall.EPERM, false},
		{"pid 0 would be our own group: never", []entry{{pid: 0}}, process{0, 0}, nil, false, nil, true},
		{"pid -1 would be everyone: never", []entry{{pid: -1}}, process{-1, 0}, nil, false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{effect: func(int, syscall.Signal) error { return tt.sendErr }}
			err := signal(newTable(tt.table...), rec.send, tt.p, syscall.SIGTERM)
			if tt.wantNilErr && err != nil {
				t.Errorf("signal = %v, want nil", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("signal = %v, want %v", err, tt.wantErr)
			}
			var want []call
			if tt.wantSent {
				want = []call{{tt.p.pid, syscall.SIGTERM}}
			}
			if !slices.Equal(rec.calls, want) {
				t.Errorf("sent %v, want %v", rec.calls, want)
			}
		})
	}
}

// session is a shell (10) with a job (11, 12 in the foreground group 11), a
// setsid grandchild (13) and an unrelated process (20).
func session() *fakeTable {
	return newTable(
		entry{pid: 10, ppid: 1, start: 100},
		entry{pid: 11, ppid: 10, start: 110},
		entry{pid: 12, ppid: 11, start: 120},
		entry{pid: 13, ppid: 12, start: 130},
		entry{pid: 20, ppid: 1, start: 200},
	)
}

func TestSnapshot(t *testing.T) {
	t.Run("child first, then every descendant", func(t *testing.T) {
		s := snapshot(session(), 10, 11, "")
		want := []process{{10, 100}, {11, 110}, {12, 120}, {13, 130}}
		if !reflect.DeepEqual(s.procs, want) {
			t.Errorf("Procs = %v, want %v", s.procs, want)
		}
	})
	t.Run("zombie child is left out, its descendants are not", func(t *testing.T) {
		tab := session()
		tab.procs[10] = entry{pid: 10, ppid: 1, start: 100, zombie: true}
		if got, want := pids(snapshot(tab, 10, 0, "").procs), []int{11, 12, 13}; !slices.Equal(got, want) {
			t.Errorf("Procs = %v, want %v", got, want)
		}
	})
	t.Run("gone child", func(t *testing.T) {
		if got := snapshot(newTable(), 10, 0, "").procs; len(got) != 0 {
			t.Errorf("Procs = %v, want none", got)
		}
	})
	t.Run("unreadable table keeps the child", func(t *testing.T) {
		tab := session()
		tab.err = errors.New("boom")
		if got, want := snapshot(tab, 10, 0, "").procs, []process{{10, 100}}; !reflect.DeepEqual(got, want) {
			t.Errorf("Procs = %v, want %v", got, want)
		}
	})
}

func TestHangup(t *testing.T) {
	tests := []struct {
		name   string
		pgrp   int
		change func(*fakeTable) // between snapshot and hangup
		want   []call
	}{
		{
			"group first, then every live process", 11, nil,
			[]call{{-11, syscall.SIGHUP}, {10, syscall.SIGHUP}, {11, syscall.SIGHUP}, {12, syscall.SIGHUP}, {13, syscall.SIGHUP}},
		},
		{
			"unknown group is skipped", 0, nil,
			[]call{{10, syscall.SIGHUP}, {11, syscall.SIGHUP}, {12, syscall.SIGHUP}, {13, syscall.SIGHUP}},
		},
		{
			"group 1 would be kill(-1): skipped", 1, nil,
			[]call{{10, syscall.SIGHUP}, {11, syscall.SIGHUP}, {12, syscall.SIGHUP}, {13, syscall.SIGHUP}},
		},
		{
			"exited and recycled pids are not signalled", 11,
			func(tab *fakeTable) { tab.exit(12); tab.recycle(13) },
			[]call{{-11, syscall.SIGHUP}, {10, syscall.SIGHUP}, {11, syscall.SIGHUP}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := session()
			s := snapshot(tab, 10, tt.pgrp, "")
			if tt.change != nil {
				tt.change(tab)
			}
			rec := &recorder{}
			s.hangup(tab, rec.send)
			if !slices.Equal(rec.calls, tt.want) {
				t.Errorf("sent %v, want %v", rec.calls, tt.want)
			}
		})
	}
}

// clock is a fake time source for finish: sleep advances it and runs
// whatever was scheduled for the new time.
type clock struct {
	now    time.Duration
	slept  time.Duration
	events []event
}

type event struct {
	at time.Duration
	do func()
}

func (c *clock) at(d time.Duration, do func()) { c.events = append(c.events, event{d, do}) }

func (c *clock) sleep(d time.Duration) {
	c.now += d
	c.slept += d
	rest := c.events[:0]
	for _, e := range c.events {
		if e.at <= c.now {
			e.do()
		} else {
			rest = append(rest, e)
		}
	}
	c.events = rest
}

func TestKillAfter(t *testing.T) {
	const grace = 500 * time.Millisecond
	tests := []struct {
		name string
		// setup runs after snapshot and hangup, with the clock at 0.
		setup func(tab *fakeTable, clk *clock)
		// dieOnKill makes SIGKILL remove the process at once.
		dieOnKill bool
		wantKill  []int
		// wantSlept is how long finish slept in all.
		wantSlept time.Duration
	}{
		{
			name:      "all gone at once: no wait, no SIGKILL",
			setup:     func(tab *fakeTable, _ *clock) { tab.exit(10); tab.exit(11); tab.exit(12); tab.exit(13) },
			wantSlept: 0,
		},
		{
			name: "all die within grace: no SIGKILL",
			setup: func(tab *fakeTable, clk *clock) {
				tab.exit(10)
				tab.exit(11)
				clk.at(100*time.Millisecond, func() { tab.exit(12) })
				clk.at(200*time.Millisecond, func() { tab.exit(13) })
			},
			wantSlept: 200 * time.Millisecond,
		},
		{
			name: "survivors past grace get SIGKILL",
			setup: func(tab *fakeTable, _ *clock) {
				tab.exit(10)
				tab.exit(11)
			},
			dieOnKill: true,
			wantKill:  []int{12, 13},
			wantSlept: grace,
		},
		{
			name: "a pid recycled during grace is never SIGKILLed",
			setup: func(tab *fakeTable, clk *clock) {
				tab.exit(10)
				tab.exit(11)
				clk.at(100*time.Millisecond, func() { tab.recycle(12) })
			},
			dieOnKill: true,
			wantKill:  []int{13},
			wantSlept: grace,
		},
		{
			name: "only a recycled pid left: nothing to wait for",
			setup: func(tab *fakeTable, clk *clock) {
				tab.exit(10)
				tab.exit(11)
				tab.exit(12)
				clk.at(50*time.Millisecond, func() { tab.recycle(13) })
			},
			wantSlept: 50 * time.Millisecond,
		},
		{
			name: "zombies count as gone",
			setup: func(tab *fakeTable, _ *clock) {
				for pid := 10; pid <= 13; pid++ {
					e := tab.procs[pid]
					e.zombie = true
					tab.procs[pid] = e
				}
			},
			wantSlept: 0,
		},
		{
			name:      "unkillable survivors: finish still returns after a second grace",
			setup:     func(*fakeTable, *clock) {},
			dieOnKill: false,
			wantKill:  []int{10, 11, 12, 13},
			wantSlept: 2 * grace,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := session()
			s := snapshot(tab, 10, 11, "")
			rec := &recorder{}
			s.hangup(tab, rec.send)
			rec.calls = nil

			clk := &clock{}
			tt.setup(tab, clk)
			var killedAt []time.Duration
			rec.effect = func(pid int, sig syscall.Signal) error {
				if sig == syscall.SIGKILL {
					killedAt = append(killedAt, clk.now)
					if tt.dieOnKill {
						tab.exit(pid)
					}
				}
				return nil
			}
			killAfter(tab, rec.send, []*Sweep{s}, grace, clk.sleep)

			if got := rec.sent(syscall.SIGKILL); !slices.Equal(got, tt.wantKill) {
				t.Errorf("SIGKILL sent to %v, want %v", got, tt.wantKill)
			}
			if other := len(rec.calls) - len(rec.sent(syscall.SIGKILL)); other != 0 {
				t.Errorf("finish sent %d signals other than SIGKILL: %v", other, rec.calls)
			}
			for _, at := range killedAt {
				if at < grace {
					t.Errorf("SIGKILL at %v, before the %v grace", at, grace)
				}
			}
			if clk.slept != tt.wantSlept {
				t.Errorf("finish slept %v, want %v", clk.slept, tt.wantSlept)
			}
		})
	}
}

// Many sweeps share one grace period: killing twenty sessions costs one
// wait, not twenty.
func TestKillAfterSharesOneGrace(t *testing.T) {
	const grace = 500 * time.Millisecond
	const sessions = 20
	tab := newTable()
	var sweeps []*Sweep
	for i := range sessions {
		root := 1000 + 10*i
		tab.procs[root] = entry{pid: root, ppid: 1, start: uint64(root)}
		tab.procs[root+1] = entry{pid: root + 1, ppid: root, start: uint64(root + 1)}
		sweeps = append(sweeps, snapshot(tab, root, root, ""))
	}
	clk := &clock{}
	rec := &recorder{effect: func(pid int, sig syscall.Signal) error {
		if sig == syscall.SIGKILL {
			tab.exit(pid)
		}
		return nil
	}}
	killAfter(tab, rec.send, sweeps, grace, clk.sleep)
	if got := len(rec.sent(syscall.SIGKILL)); got != 2*sessions {
		t.Errorf("%d SIGKILLs, want %d", got, 2*sessions)
	}
	if clk.slept != grace {
		t.Errorf("finish slept %v for %d sessions, want one grace of %v", clk.slept, sessions, grace)
	}
}

func TestKillAfterNothing(t *testing.T) {
	clk := &clock{}
	rec := &recorder{}
	killAfter(newTable(), rec.send, nil, Grace, clk.sleep)
	killAfter(newTable(), rec.send, []*Sweep{snapshot(newTable(), 10, 0, "")}, Grace, clk.sleep)
	if len(rec.calls) != 0 || clk.slept != 0 {
		t.Errorf("empty sweeps: sent %v, slept %v", rec.calls, clk.slept)
	}
}

func TestGrace(t *testing.T) {
	if Grace != 500*time.Millisecond {
		t.Errorf("Grace = %v, want 500ms (design §7)", Grace)
	}
}

func (c call) String() string { return fmt.Sprintf("%s->%d", c.sig, c.pid) }

// Processes reparented to init before the kill (a double-forked daemon, a
// `setsid cmd &` whose parent exited) carry the session's marker in their
// environment; the snapshot finds them and what is below them, and nothing
// whose environment merely resembles it.
func TestSnapshotFindsMarkedOrphans(t *testing.T) {
	const marker = "WR_SESSION_ID=ab12"
	tab := newTable(
		entry{pid: 10, ppid: 1, start: 100},  // the session's shell
		entry{pid: 11, ppid: 10, start: 101}, // an ordinary child
		entry{pid: 20, ppid: 1, start: 102},  // an orphaned daemon of the session
		entry{pid: 21, ppid: 20, start: 103}, // its worker, whose environment was cleared
		entry{pid: 30, ppid: 1, start: 104},  // another session's daemon: a longer id
		entry{pid: 31, ppid: 1, start: 105},  // the marker as a value, not an entry
		entry{pid: 40, ppid: 1, start: 106},  // marker first in its environment
		entry{pid: 50, ppid: 1, start: 107, zombie: true},
	)
	tab.env = map[int]string{
		10: "HOME=/h\x00" + marker + "\x00",
		20: "A=1\x00" + marker + "\x00B=2\x00",
		30: "A=1\x00" + marker + "cd\x00",
		31: "X=" + marker + "\x00",
		40: marker + "\x00PATH=/bin\x00",
		50: marker + "\x00",
	}
	got := pids(snapshot(tab, 10, 0, marker).procs)
	slices.Sort(got)
	if want := []int{10, 11, 20, 21, 40}; !slices.Equal(got, want) {
		t.Fatalf("snapshot with marker = %v, want %v", got, want)
	}
	got = pids(snapshot(tab, 10, 0, "").procs)
	slices.Sort(got)
	if want := []int{10, 11}; !slices.Equal(got, want) {
		t.Fatalf("snapshot without marker = %v, want %v", got, want)
	}
}

// A process that answers SIGHUP by starting another (or forks while the
// sweep waits) must not escape: the sweep looks again before and after its
// SIGKILL, by parent links and by the marker.
func TestKillAfterKillsWhatAppearsDuringTheSweep(t *testing.T) {
	const marker = "WR_SESSION_ID=feed"
	tab := newTable(
		entry{pid: 10, ppid: 1, start: 100},
		entry{pid: 11, ppid: 10, start: 101}, // traps HUP and starts 20
	)
	tab.env = map[int]string{10: marker + "\x00", 11: marker + "\x00"}
	rec := &recorder{}
	rec.effect = func(pid int, sig syscall.Signal) error {
		switch {
		case pid == 11 && sig == syscall.SIGHUP:
			// Its trap starts a child that ignores SIGHUP...
			tab.procs[20] = entry{pid: 20, ppid: 11, start: 200}
			tab.env[20] = marker + "\x00"
		case pid == 11 && sig == syscall.SIGKILL:
			// ...and, at the last moment, an orphan carrying the marker.
			tab.procs[30] = entry{pid: 30, ppid: 1, start: 300}
			tab.env[30] = "A=1\x00" + marker + "\x00"
			delete(tab.procs, 11)
		case sig == syscall.SIGKILL:
			delete(tab.procs, pid)
		}
		return nil
	}
	s := snapshot(tab, 10, 0, marker)
	s.hangup(tab, rec.send)
	clk := &clock{}
	killAfter(tab, rec.send, []*Sweep{s}, Grace, clk.sleep)
	killed := rec.sent(syscall.SIGKILL)
	slices.Sort(killed)
	if want := []int{10, 11, 20, 30}; !slices.Equal(killed, want) {
		t.Fatalf("SIGKILL went to %v, want %v", killed, want)
	}
}
