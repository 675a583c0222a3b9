package ptyproc_test

import (
	"errors"
	"os/exec"
	"testing"

	"wr/ptyproc"
)

// exitCases are shell scripts and the $? a shell would report for them.
var exitCases = []struct {
	name   string
	script string
	want   int
}{
	{"exit 0", "exit 0", 0},
	{"exit 7", "exit 7", 7},
	{"exit 255", "exit 255", 255},
	{"exit 256 wraps", "exit 256", 0},
	{"SIGHUP", "kill -HUP $$", 129},
	{"SIGINT", "kill -INT $$", 130},
	{"SIGTERM", "kill -TERM $$", 143},
	{"SIGKILL", "kill -KILL $$", 137},
}

func TestExitCodeOnPTY(t *testing.T) {
	for _, tt := range exitCases {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, sh(t, tt.script), 80, 24)
			code, err := c.wait(t)
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if code != tt.want {
				t.Errorf("Wait = %d, want %d", code, tt.want)
			}
		})
	}
}

// ExitCode reads any finished process's state, PTY or not.
func TestExitCode(t *testing.T) {
	for _, tt := range exitCases {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", "-c", tt.script)
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("Run: %v", err)
			}
			if got := ptyproc.ExitCode(cmd.ProcessState); got != tt.want {
				t.Errorf("ExitCode = %d, want %d", got, tt.want)
			}
		})
	}
}
