//go:build linux

package integration

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A server whose socket was removed from outside (a /tmp cleaner) binds it
// again at once, and its lock file too: its sessions stay in reach, and no
// second server can start beside it. Before, every verb started a server
// that found the lock held and gave up, and wr ls said there were no
// sessions.
func TestServerBindsItsRemovedSocketAgain(t *testing.T) {
	for _, tt := range []struct {
		name    string
		removed []string
		upgrade bool // the server that sees it is the upgrade's new binary
	}{
		{"socket", []string{""}, false},
		{"socket and lock", []string{"", ".lock"}, false},
		{"lock", []string{".lock"}, false},
		{"socket after an upgrade", []string{""}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
			pid := e.serverPID()
			if tt.upgrade {
				e.mustWr("server", "upgrade")
			}
			for _, suffix := range tt.removed {
				if err := os.Remove(e.socket + suffix); err != nil {
					t.Fatal(err)
				}
			}
			if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") {
				t.Fatalf("wr ls after the removal: %q, want the session", ls)
			}
			if now := e.serverPID(); now != pid {
				t.Fatalf("server pid %d, want the first server (%d)", now, pid)
			}
			e.eventually("the lock file to name the server again", func() bool {
				b, _ := os.ReadFile(e.socket + ".lock")
				return strings.HasSuffix(string(b), "\n"+strconv.Itoa(pid)+"\n")
			})
			if r := e.wr("server", "run"); r.code == 0 || !strings.Contains(r.stderr, "already running") {
				t.Fatalf("a second wr server run: exit %d, stderr %q; want it refused while the first holds the lock", r.code, r.stderr)
			}
		})
	}
}

// A server that has not bound its removed socket again (here, stopped) is
// named, with what to do, rather than reported as no server: wr ls used
// to print an empty list with exit 0, and wr new to start a server that
// gave up on the lock after 5 s.
func TestAClientNamesAServerWhoseSocketIsGone(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	if err := os.Remove(e.socket); err != nil {
		t.Fatal(err)
	}
	want := "kill -USR1 " + strconv.Itoa(pid)
	for _, args := range [][]string{{"ls"}, {"new", "-d", "other", "--", "sleep", "1000"}} {
		r := e.wr(args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("wr %s with the server's socket gone: exit %d, stdout %q, stderr %q; want exit 1 naming %q", args[0], r.code, r.stdout, r.stderr, want)
		}
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") || strings.Contains(ls, "other") {
		t.Fatalf("wr ls once the server runs again: %q, want kept alone", ls)
	}
}

// SIGUSR1 asks the server to bind its socket again, as tmux's does; with
// the socket in place it changes nothing, and it never ends the server.
func TestSIGUSR1LeavesAServingServerServing(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	before, err := os.Stat(e.socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") {
		t.Fatalf("wr ls after SIGUSR1: %q", ls)
	}
	after, err := os.Stat(e.socket)
	if err != nil || !os.SameFile(before, after) || e.serverPID() != pid {
		t.Fatalf("SIGUSR1 replaced the socket or the server (%v)", err)
	}
}
