//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sleepers finds the running `sleep ARG` processes started under this test's
// socket, by their unique argument, and returns arg -> pid.
func (e *env) sleepers(args ...string) map[string]int {
	found := map[string]int{}
	ds, _ := os.ReadDir("/proc")
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !running(pid) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if !bytes.Contains(env, []byte("WR_SOCKET="+e.socket+"\x00")) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		for _, a := range args {
			if string(cmd) == "sleep\x00"+a+"\x00" {
				found[a] = pid
			}
		}
	}
	return found
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// The cases of issue 3 item 3, each a line typed into the session's shell
// that leaves a `sleep N` running, N unique per case.
var treeCases = []struct {
	name, arg, line string
}{
	{"setsid grandchild", "1001", "setsid sleep 1001 &"},
	{"double-forked daemon", "1002", `sh -c 'setsid sh -c "sleep 1002" &'`},
	{"ignores SIGHUP", "1003", `setsid sh -c 'trap "" HUP; sleep 1003' &`},
	{"background job", "1004", "sleep 1004 &"},
	{"foreground process", "1005", "sleep 1005"},
}

// startTree attaches to a new session and starts every case in it, waiting
// until each sleep is running.
func startTree(t *testing.T, e *env, name string) (*term, map[string]int) {
	t.Helper()
	tm := e.term(80, 24, "attach", name)
	tm.expect(prompt)
	var args []string
	for _, c := range treeCases {
		tm.send(c.line + "\r")
		args = append(args, c.arg)
	}
	var pids map[string]int
	e.eventually("every descendant to start", func() bool {
		pids = e.sleepers(args...)
		return len(pids) == len(args)
	})
	return tm, pids
}

// wr kill reaches every descendant, including those that left the shell's
// session with setsid, and returns only after they are gone.
func TestKillLeavesNothingBehind(t *testing.T) {
	e := newEnv(t)
	tm, pids := startTree(t, e, "tree")
	start := time.Now()
	e.mustWr("kill", "tree")
	took := time.Since(start)
	// Checked at once, with no waiting: kill returns after the sweep.
	for _, c := range treeCases {
		if pid := pids[c.arg]; running(pid) {
			t.Errorf("%s (pid %d) is still running after wr kill returned", c.name, pid)
		}
	}
	if code := tm.wait(); code != 129 {
		t.Errorf("attached client exit %d, want 129", code)
	}
	t.Logf("wr kill took %v", took)
}

// A shell that exits by itself leaves its background daemons alone, as it
// would without wr: only wr kill sweeps.
func TestShellExitLeavesDaemons(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "nohup")
	tm.expect(prompt)
	tm.send("setsid sleep 1011 &\r")
	var pids map[string]int
	e.eventually("the daemon to start", func() bool {
		pids = e.sleepers("1011")
		return len(pids) == 1
	})
	pid := pids["1011"]
	t.Cleanup(func() { _ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run() })
	tm.send("exit\r")
	if code := tm.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	e.eventually("the server to exit with its last session", func() bool {
		return e.wr("server", "status").code == 1
	})
	if !running(pid) {
		t.Fatalf("the setsid daemon (pid %d) died with the shell; wr must leave it alone", pid)
	}
}

// wr kill --all and wr server stop sweep every session with one wait, and
// the registry stays answerable meanwhile.
func TestKillAllSweepsTogether(t *testing.T) {
	for _, how := range [][]string{{"kill", "--all"}, {"server", "stop"}} {
		t.Run(strings.Join(how, " "), func(t *testing.T) {
			e := newEnv(t)
			const n = 5
			var args []string
			for i := 0; i < n; i++ {
				arg := fmt.Sprint(2000 + i)
				args = append(args, arg)
				// Each holds a descendant that ignores SIGHUP, so the sweep
				// must wait out its grace period and SIGKILL.
				e.mustWr("new", "-d", fmt.Sprint("s", i), "--", "sh", "-c",
					fmt.Sprintf(`setsid sh -c 'trap "" HUP; exec sleep %s' & exec sleep 1000`, arg))
			}
			var pids map[string]int
			e.eventually("every descendant to start", func() bool {
				pids = e.sleepers(args...)
				return len(pids) == n
			})

			kill := exec.Command(wrBin, how...)
			kill.Env = e.vars
			if err := kill.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- kill.Wait() }()
			// wr ls must answer while the sweep waits out its grace period.
			answered := false
			for !answered {
				r := e.wr("ls")
				select {
				case err := <-done:
					done <- err
					if r.code != 0 {
						t.Fatalf("wr ls during the sweep: %+v", r)
					}
					t.Skip("the sweep finished before wr ls could be timed against it (machine too slow to tell)")
				default:
					answered = r.code == 0
				}
			}
			if err := <-done; err != nil {
				t.Fatalf("wr %v: %v", how, err)
			}
			for arg, pid := range pids {
				if running(pid) {
					t.Errorf("sleep %s (pid %d) survived wr %v", arg, pid, how)
				}
			}
		})
	}
}
