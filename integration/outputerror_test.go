//go:build linux

package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A verb whose output cannot be written fails: `wr ls --json > file` on a
// full disk used to exit 0 with nothing in the file, and the script that
// read it went on with no sessions.
func TestVerbsFailWhenTheirOutputCannotBeWritten(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "s", "--", "sleep", "1000")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"ls"}, {"ls", "--json"}, {"env", "s"}, {"version"}, {"server", "status"}, {"completion", "bash"}, {"help"}, {"capture", "s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, wrBin, args...)
			cmd.Env = e.vars
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = full, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != 1 || !strings.Contains(stderr.String(), "cannot write the output") {
				t.Errorf("wr %s > /dev/full: exit %d, stderr %q; want exit 1 saying the output could not be written", strings.Join(args, " "), code, stderr.String())
			}
		})
	}
	// And the same verb to a working stdout still succeeds.
	if ls := e.mustWr("ls"); !strings.Contains(ls, "s ") {
		t.Fatalf("wr ls: %q", ls)
	}
}
