//go:build linux

package integration

import (
	"os"
	"strings"
	"testing"
)

// wr server run --daemon that cannot start says why on the stderr of
// whoever ran it, not only in the log, and exits 1.
func TestDaemonThatCannotStartSaysWhy(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x", "--", "sh", "-c", "read line")
	r := e.wr("server", "run", "--daemon")
	want := "a server is already running on " + e.socket
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("wr server run --daemon beside a running server: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
	log, err := os.ReadFile(e.socket + ".log")
	if err != nil || !strings.Contains(string(log), want) {
		t.Errorf("the log does not say it either: %v\n%s", err, log)
	}
}
