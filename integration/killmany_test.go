//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// parentOf reads pid's parent from /proc/PID/stat, 0 if it cannot.
func parentOf(pid int) int {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}

// sessionIDOf returns the WR_SESSION_ID entry in pid's environment, "" if
// there is none.
func sessionIDOf(pid int) string {
	env, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.HasPrefix(kv, []byte("WR_SESSION_ID=")) {
			return string(kv)
		}
	}
	return ""
}

// Issue 14: wr kill --all over many sessions, each with a setsid'd
// grandchild that only its environment still ties to the session (its
// parent exited, so parent links cannot find it), leaves none of them
// running when it returns, and touches nothing outside the sessions, not
// even a process whose WR_SESSION_ID merely begins like a session's. Among
// them, wr kill NAME takes that session's processes and no other's.
func TestKillAllManySessionsWithOrphans(t *testing.T) {
	e := newEnv(t)
	const n = 50
	var args []string
	for i := range n {
		arg := fmt.Sprint(31000 + i)
		args = append(args, arg)
		// The inner shell exits at once, leaving its setsid'd sleep to init.
		e.mustWr("new", "-d", fmt.Sprint("s", i), "--", "sh", "-c",
			fmt.Sprintf(`sh -c 'setsid sleep %s &'; exec sleep 1000`, arg))
	}
	var orphans map[string]int
	e.eventually("every grandchild to start and be orphaned", func() bool {
		orphans = e.sleepers(args...)
		if len(orphans) != n {
			return false
		}
		for _, pid := range orphans {
			if sessionIDOf(parentOf(pid)) != "" { // its parent is still in the session
				return false
			}
		}
		return true
	})
	shells := map[string]int{}
	for _, s := range e.ls() {
		shells[s.Name] = s.PID
	}
	if len(shells) != n {
		t.Fatalf("%d sessions listed, want %d", len(shells), n)
	}

	// A bystander outside every session, whose WR_SESSION_ID is a
	// session's with one more digit: the marker must match whole entries.
	id := sessionIDOf(shells["s0"])
	if id == "" {
		t.Fatalf("no WR_SESSION_ID in the environment of session s0's command")
	}
	bystander := exec.Command("sleep", "32000")
	bystander.Env = e.with(id + "0")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = bystander.Process.Kill()
		_ = bystander.Wait()
	})

	// wr kill NAME among many: that session's orphan goes, no other does.
	victim := args[7]
	e.mustWr("kill", "s7")
	if running(orphans[victim]) {
		t.Errorf("the orphan of s7 (pid %d) survived wr kill s7", orphans[victim])
	}
	for _, arg := range args {
		if arg != victim && !running(orphans[arg]) {
			t.Errorf("wr kill s7 ended sleep %s (pid %d) of another session", arg, orphans[arg])
		}
	}

	e.mustWr("kill", "--all")
	// Checked at once, with no waiting: kill returns after the sweep.
	for _, arg := range args {
		if pid := orphans[arg]; running(pid) {
			t.Errorf("the orphan sleep %s (pid %d) survived wr kill --all", arg, pid)
		}
	}
	for name, pid := range shells {
		if running(pid) {
			t.Errorf("the command of %s (pid %d) survived wr kill --all", name, pid)
		}
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil || !running(bystander.Process.Pid) {
		t.Errorf("the bystander (pid %d), outside every session, did not survive wr kill --all: %v", bystander.Process.Pid, err)
	}
}
