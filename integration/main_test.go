//go:build linux

// Package integration drives the built wr binary the way people do: each
// client under its own PTY, each test with its own server and socket.
package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	// wrBin is the wr binary under test, built once by TestMain.
	wrBin string
	// suiteRoot holds every socket, home and binary of the run; any process
	// whose command line or environment names it was started by the suite.
	suiteRoot string
)

func TestMain(m *testing.M) {
	if os.Getenv(swapperEnv) != "" {
		os.Exit(runSwapper()) // a helper process of a test, not the suite
	}
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	root, err := os.MkdirTemp("", "writ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// 0755 so a test can run a server as another user (peer-credential test).
	_ = os.Chmod(root, 0o755)
	suiteRoot = root
	defer os.RemoveAll(root)

	wrBin = filepath.Join(root, "wr")
	// Built as the README's set-up builds it. -race needs cgo, so only a
	// suite without it gets the static binary the benchmarks measure.
	args := []string{"build", "-o", wrBin, "-tags", "urfave_cli_no_docs"}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "..")...)
	build.Env = os.Environ()
	if !raceEnabled {
		build.Env = append(build.Env, "CGO_ENABLED=0")
	}
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building wr:", err)
		return 1
	}

	code := m.Run()

	// The final check: nothing the suite started may still be running.
	if leaks := waitNoProcesses(root, 5*time.Second); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d processes started by the suite are still running:\n", len(leaks))
		for _, l := range leaks {
			fmt.Fprintf(os.Stderr, "  %s\n", l)
		}
		killProcesses(root)
		code = 1
	} else {
		fmt.Fprintln(os.Stderr, "no process started by the suite is left running")
	}
	return code
}

// processesMentioning lists the processes (other than this one) whose command
// line or environment contains marker, as "pid: cmdline".
func processesMentioning(marker string) []string {
	ds, _ := os.ReadDir("/proc")
	var out []string
	self := os.Getpid()
	m := []byte(marker)
	for _, d := range ds {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue // a zombie is dead; its parent reaps it
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if bytes.Contains(cmd, m) || bytes.Contains(env, m) {
			out = append(out, fmt.Sprintf("%d: %s", pid, strings.ReplaceAll(string(bytes.TrimRight(cmd, "\x00")), "\x00", " ")))
		}
	}
	return out
}

// waitNoProcesses polls until no process mentions marker, or d passes.
func waitNoProcesses(marker string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := processesMentioning(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func killProcesses(marker string) {
	for _, l := range processesMentioning(marker) {
		pidStr, _, _ := strings.Cut(l, ":")
		if pid, err := strconv.Atoi(pidStr); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
