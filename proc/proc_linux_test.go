package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// statLine builds a /proc/<pid>/stat line with all 52 fields, as Linux 5.x
// writes it.
func statLine(pid int, comm string, state byte, ppid int, start uint64) string {
	return fmt.Sprintf("%d (%s) %c %d %d %d 34816 %d 4194304 1043 0 0 0 2 1 0 0 20 0 1 0 %d "+
		"8192000 900 18446744073709551615 1 1 0 0 0 0 65536 3670020 1266777851 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		pid, comm, state, ppid, pid, pid, pid, start)
}

func TestStatLineShape(t *testing.T) {
	line := statLine(42, "sh", 'S', 1, 9999)
	if n := len(strings.Fields(line)); n != 52 {
		t.Fatalf("statLine has %d fields, want 52", n)
	}
	if f := strings.Fields(line); f[3] != "1" || f[21] != "9999" {
		t.Fatalf("statLine: field 4 = %s, field 22 = %s", f[3], f[21])
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		line string
		want entry
	}{
		{"normal", statLine(1234, "bash", 'S', 1000, 987654), entry{pid: 1234, ppid: 1000, start: 987654}},
		{"running", statLine(7, "cat", 'R', 6, 1), entry{pid: 7, ppid: 6, start: 1}},
		{"stopped is not a zombie", statLine(7, "vim", 'T', 6, 5), entry{pid: 7, ppid: 6, start: 5}},
		{"name with ') (' and spaces", statLine(77, "a) (b c", 'S', 76, 555), entry{pid: 77, ppid: 76, start: 555}},
		{"name that looks like fields", statLine(77, "x) R 1 2 3", 'S', 76, 555), entry{pid: 77, ppid: 76, start: 555}},
		{"name is only parentheses", statLine(77, ")()(", 'S', 76, 555), entry{pid: 77, ppid: 76, start: 555}},
		{"empty name", statLine(77, "", 'S', 76, 555), entry{pid: 77, ppid: 76, start: 555}},
		{"zombie", statLine(9, "sleep", 'Z', 8, 300), entry{pid: 9, ppid: 8, start: 300, zombie: true}},
		{"dead", statLine(9, "sleep", 'X', 8, 300), entry{pid: 9, ppid: 8, start: 300, zombie: true}},
		{"largest start time", statLine(9, "s", 'S', 8, 18446744073709551615), entry{pid: 9, ppid: 8, start: 18446744073709551615}},
		{"exactly 22 fields", "9 (s) S 8 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4242", entry{pid: 9, ppid: 8, start: 4242}},
		{"21 fields: start unknown", "9 (s) S 8 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0", entry{pid: 9, ppid: 8}},
		{"only state and ppid", "9 (s) S 8", entry{pid: 9, ppid: 8}},
		{"unparsable start: unknown", "9 (s) S 8 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 soon", entry{pid: 9, ppid: 8}},
		{"init has ppid 0", statLine(1, "init", 'S', 0, 2), entry{pid: 1, ppid: 0, start: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(tt.want.pid, []byte(tt.line))
			if err != nil {
				t.Fatalf("parseStat: %v", err)
			}
			if got != tt.want {
				t.Errorf("parseStat = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseStatErrors(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"empty", ""},
		{"no command name", "9 s S 8 9 9"},
		{"nothing after the name", "9 (s)"},
		{"state only", "9 (s) S"},
		{"ppid not a number", "9 (s) S x 9 9"},
		{"ppid inside the name only", "9 (s S 8 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, err := parseStat(9, []byte(tt.line)); err == nil {
				t.Errorf("parseStat(%q) = %+v, want an error", tt.line, e)
			}
		})
	}
}

// The real stat of this process parses to what the kernel says otherwise.
func TestParseStatSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	e, err := parseStat(os.Getpid(), b)
	if err != nil {
		t.Fatalf("parseStat(%q): %v", b, err)
	}
	if e.ppid != os.Getppid() || e.start == 0 || e.zombie {
		t.Errorf("parseStat of /proc/self/stat = %+v, want ppid %d, a start time, not a zombie", e, os.Getppid())
	}
}

// fakeProc writes a directory shaped like /proc: stats maps a pid to its
// stat line.
func fakeProc(t *testing.T, stats map[string]string) procfs {
	t.Helper()
	root := t.TempDir()
	for name, stat := range stats {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if stat == "" {
			continue // a process that vanished between ReadDir and the read
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return procfs{root: root}
}

func TestProcfsEntries(t *testing.T) {
	fs := fakeProc(t, map[string]string{
		"1":      statLine(1, "init", 'S', 0, 1),
		"10":     statLine(10, "sh", 'S', 1, 100),
		"11":     statLine(11, "a) (b", 'Z', 10, 110),
		"12":     "",                              // gone
		"13":     "13 (broken",                    // unparsable
		"self":   statLine(10, "sh", 'S', 1, 100), // not a pid
		"sys":    "",
		"0":      statLine(0, "swapper", 'S', 0, 0),
		"-3":     statLine(-3, "neg", 'S', 0, 0),
		"1a":     statLine(1, "init", 'S', 0, 1),
		"000014": statLine(14, "padded", 'S', 10, 140),
	})
	es, err := fs.entries()
	if err != nil {
		t.Fatalf("entries: %v", err)
	}
	slices.SortFunc(es, func(a, b entry) int { return a.pid - b.pid })
	want := []entry{
		{pid: 1, ppid: 0, start: 1},
		{pid: 10, ppid: 1, start: 100},
		{pid: 11, ppid: 10, start: 110, zombie: true},
	}
	// "000014" parses as pid 14, but its stat lives at /proc/14, which the
	// fake tree does not have: it is skipped like any vanished process.
	if !slices.Equal(es, want) {
		t.Errorf("entries = %+v, want %+v", es, want)
	}
}

func TestProcfsEntriesMissingRoot(t *testing.T) {
	if _, err := (procfs{root: filepath.Join(t.TempDir(), "absent")}).entries(); err == nil {
		t.Error("entries of a missing /proc succeeded")
	}
}

func TestProcfsLookup(t *testing.T) {
	fs := fakeProc(t, map[string]string{
		"10": statLine(10, "sh", 'S', 1, 100),
		"11": statLine(11, "sleep", 'Z', 10, 110),
		"12": "",
		"13": "13 (broken",
	})
	tests := []struct {
		name   string
		pid    int
		want   entry
		wantOK bool
	}{
		{"present", 10, entry{pid: 10, ppid: 1, start: 100}, true},
		{"zombie", 11, entry{pid: 11, ppid: 10, start: 110, zombie: true}, true},
		{"no directory", 99, entry{}, false},
		{"directory without stat", 12, entry{}, false},
		{"unparsable stat: exists, start unknown", 13, entry{pid: 13}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fs.lookup(tt.pid)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("lookup(%d) = %+v, %v; want %+v, %v", tt.pid, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestProcfsDescendantsDeep(t *testing.T) {
	stats := map[string]string{"1": statLine(1, "init", 'S', 0, 1), "500": statLine(500, "other", 'S', 1, 5)}
	var want []int
	for pid := 100; pid <= 150; pid++ {
		stats[strconv.Itoa(pid)] = statLine(pid, "sh", 'S', pid-1, uint64(pid))
		if pid > 100 {
			want = append(want, pid)
		}
	}
	stats["151"] = statLine(151, "dead", 'Z', 150, 151)
	got, err := descendants(fakeProc(t, stats), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pids(got), want) {
		t.Errorf("descendants = %v, want %v", pids(got), want)
	}
	for _, p := range got {
		if p.start != uint64(p.pid) {
			t.Errorf("pid %d recorded start %d, want %d", p.pid, p.start, p.pid)
		}
	}
}

// tree is a real process tree under a shell, torn down when the test ends.
type tree struct {
	cmd  *exec.Cmd
	pid  int
	seen []process // every process the test saw, for cleanup
}

// startTree runs script under /bin/sh in a new process group.
func startTree(t *testing.T, script string) *tree {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := &tree{cmd: cmd, pid: cmd.Process.Pid}
	t.Cleanup(func() {
		// Setsid'd descendants are outside the group: kill them by
		// identity, then the group, then reap the shell.
		for _, p := range append(tr.seen, snapshot(osTable, tr.pid, 0, "").procs...) {
			_ = signal(osTable, killSignal, p, syscall.SIGKILL)
		}
		_ = syscall.Kill(-tr.pid, syscall.SIGKILL)
		_ = tr.cmd.Wait()
	})
	return tr
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// waitSleeps waits until the shell's descendants are exactly n sleep
// processes (the shell forks before it execs, so a descendant is briefly a
// copy of sh).
func (tr *tree) waitSleeps(t *testing.T, n int) []process {
	t.Helper()
	var ds []process
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var err error
		ds, err = descendants(osTable, tr.pid, "")
		if err != nil {
			t.Fatalf("Descendants: %v", err)
		}
		tr.seen = append(tr.seen, ds...)
		sleeps := 0
		for _, p := range ds {
			if comm(p.pid) == "sleep" {
				sleeps++
			}
		}
		if len(ds) == n && sleeps == n {
			return ds
		}
	}
	t.Fatalf("descendants of %d never became %d sleeps; last saw %v", tr.pid, n, ds)
	return nil
}

func TestDescendantsReal(t *testing.T) {
	tr := startTree(t, "sleep 100 & sleep 100 & wait")
	ds := tr.waitSleeps(t, 2)
	for _, p := range ds {
		if p.start == 0 {
			t.Errorf("pid %d: start time 0", p.pid)
		}
		if self := current(p.pid); self != p {
			t.Errorf("current(%d) = %+v, descendants recorded %+v", p.pid, self, p)
		}
		if !alive(osTable, p) {
			t.Errorf("%+v is not Alive", p)
		}
	}
	if sh := current(tr.pid); sh.start == 0 || !alive(osTable, sh) {
		t.Errorf("current(shell) = %+v, want a live process with a start time", sh)
	}
	if slices.Contains(pids(ds), tr.pid) {
		t.Error("the root is among its own descendants")
	}
	if gone := current(1 << 30); gone.start != 0 || alive(osTable, gone) {
		t.Errorf("current of a pid that cannot exist = %+v, alive %v", gone, alive(osTable, gone))
	}

	t.Run("recycled pid is left alone", func(t *testing.T) {
		impostor := process{pid: ds[0].pid, start: ds[0].start + 1}
		if alive(osTable, impostor) {
			t.Error("a pid with another start time is Alive")
		}
		if err := signal(osTable, killSignal, impostor, syscall.SIGKILL); err != nil {
			t.Errorf("Signal: %v", err)
		}
		if !alive(osTable, ds[0]) {
			t.Fatal("SIGKILL for a different start time reached the process")
		}
	})
	t.Run("signal by identity", func(t *testing.T) {
		if err := signal(osTable, killSignal, ds[0], syscall.SIGTERM); err != nil {
			t.Fatalf("Signal: %v", err)
		}
		waitGone(t, ds[0])
		if !alive(osTable, ds[1]) {
			t.Error("the other sleep died too")
		}
		if err := signal(osTable, killSignal, ds[0], syscall.SIGTERM); err != nil {
			t.Errorf("Signal to a process that has gone: %v", err)
		}
	})
}

func waitGone(t *testing.T, ps ...process) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !slices.ContainsFunc(ps, func(p process) bool { return alive(osTable, p) }) {
			return
		}
	}
	for _, p := range ps {
		if alive(osTable, p) {
			t.Errorf("%+v (%s) still alive", p, comm(p.pid))
		}
	}
}

// A real kill sweep leaves nothing running, whatever the processes do.
func TestSweepReal(t *testing.T) {
	setsid, _ := exec.LookPath("setsid")
	tests := []struct {
		name    string
		script  string
		sleeps  int
		setsid  bool
		grace   time.Duration
		shellBy syscall.Signal // what the shell dies of
	}{
		{"hangup ends the tree", "sleep 100 & sleep 100 & wait", 2, false, Grace, syscall.SIGHUP},
		{"setsid grandchild is reached", "setsid sleep 100 & sleep 100 & wait", 2, true, Grace, syscall.SIGHUP},
		{"hangup ignored: SIGKILL after grace", `trap "" HUP; sleep 100 & setsid sleep 100 & wait`, 2, true, 100 * time.Millisecond, syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setsid && setsid == "" {
				t.Skip("no setsid(1)")
			}
			tr := startTree(t, tt.script)
			tr.waitSleeps(t, tt.sleeps)
			s := snapshot(osTable, tr.pid, tr.pid, "")
			if got := len(s.procs); got != 1+tt.sleeps {
				t.Fatalf("snapshot recorded %d processes, want %d", got, 1+tt.sleeps)
			}
			if s.procs[0].pid != tr.pid {
				t.Errorf("snapshot starts with %d, want the root %d", s.procs[0].pid, tr.pid)
			}
			s.Hangup()
			KillAfter([]*Sweep{s}, tt.grace)
			// Killed is not yet gone: a process dies of SIGKILL when it
			// next runs, which on a loaded machine was after this looked
			// (a sleep still listed as running). One the sweep missed
			// would still be there when waitGone gives up.
			waitGone(t, s.procs...)
			err := tr.cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("shell: %v", err)
			}
			if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != tt.shellBy {
				t.Errorf("shell ended with %v, want death by %v", ws, tt.shellBy)
			}
		})
	}
}
