//go:build linux

package integration

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
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
			// With both gone a client cannot tell the server is there
			// until it has bound them again.
			stillServes(e, pid, "kept")
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
	stopProcess(e, pid)
	if err := os.Remove(e.socket); err != nil {
		t.Fatal(err)
	}
	want := "kill -CONT " + strconv.Itoa(pid) // on Linux its watch and beacon would have put it back
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

// SIGUSR1 (a tmux habit for a removed socket) never ends the server: on
// Linux it is dropped (the watch and the beacon do its work), elsewhere
// it binds the socket again; with the socket in place it changes nothing.
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

// stillServes waits until wr ls shows session name again, and checks
// that the server pid, the first one, shows it.
func stillServes(e *env, pid int, name string) {
	e.t.Helper()
	e.eventually("wr ls to show "+name+" again", func() bool {
		return strings.Contains(e.mustWr("ls"), name)
	})
	if now := e.serverPID(); now != pid {
		e.t.Fatalf("server pid %d, want the first server (%d)", now, pid)
	}
}

// stopProcess stops pid and waits until every thread of it is stopped
// (SIGSTOP reaches each thread in its own time, and one still running
// would act on what the test does next); the cleanup lets it go on.
func stopProcess(e *env, pid int) {
	e.t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	e.eventually("the process to stop", func() bool { return allInState(pid, 'T') })
}

// A FIFO put at the lock's path is never read: a client reading the
// server's version from it waited for ever, and with it every verb.
func TestAFIFOForALockFileHangsNothing(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	stopProcess(e, pid) // so that it does not make the lock file again first
	if err := os.Remove(e.socket + ".lock"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(e.socket+".lock", 0o600); err != nil {
		t.Fatal(err)
	}
	// Held open, as a server that locked it would: a read then waits
	// for data instead of finding none.
	fifo, err := os.OpenFile(e.socket+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") {
		t.Fatalf("wr ls with a FIFO for the lock file: %q", ls)
	}
	if fi, err := os.Lstat(e.socket + ".lock"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced (%v): the test no longer tests it", err)
	}
}

// SIGUSR1 sent while an upgrade execs the new binary (as a person told to
// send one might) neither kills the server nor stops the upgrade: between
// the exec and the new binary's Notify it was the default, which ends the
// process and every session with it.
func TestSIGUSR1DuringAnUpgrade(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	stop := make(chan struct{})
	storming := make(chan struct{})
	go func() {
		defer close(storming)
		for {
			select {
			case <-stop:
				return
			default:
				_ = syscall.Kill(pid, syscall.SIGUSR1)
				runtime.Gosched()
			}
		}
	}()
	r := e.wr("server", "upgrade")
	close(stop)
	<-storming
	if r.code != 0 {
		log, _ := os.ReadFile(e.socket + ".log")
		t.Fatalf("wr server upgrade under SIGUSR1: exit %d, stderr %q; the server's log:\n%s", r.code, r.stderr, log)
	}
	stillServes(e, pid, "kept")
}

// A server whose whole socket directory was removed makes it again, with
// its lock, log and socket, and its sessions are in reach: before, it ran
// on out of everyone's reach, and the next wr started a second server.
func TestServerMakesItsRemovedDirectoryAgain(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	dir := filepath.Dir(e.socket)
	first, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The server may bind its socket again while rm runs, as it would
	// under a cleaner: remove until the directory it had is gone.
	e.eventually("the socket directory to be removed", func() bool {
		_ = os.RemoveAll(dir)
		now, err := os.Stat(dir)
		return err != nil || !os.SameFile(first, now)
	})
	stillServes(e, pid, "kept")
	e.eventually("the server's log in the new directory to say so", func() bool {
		log, _ := os.ReadFile(e.socket + ".log")
		return strings.Contains(string(log), "made the socket directory")
	})
}

// At a user's last logout logind empties $XDG_RUNTIME_DIR, detaches its
// mount and removes it, and the next login mounts a new one; the server
// and its sessions run on (KillUserProcesses=no). The next login's first
// wr, even one that runs at once and starts a server, reaches the server
// that has the sessions: it asks on the server's beacon, and the server
// makes its directory in the new runtime directory. Before, every session
// was out of reach for good after a logout (a dropped ssh link, ten
// seconds later). In the second case the server made its directory again
// in the runtime directory before logind detached it, and sees no event.
func TestServerComesBackAfterALogout(t *testing.T) {
	for _, tt := range []struct {
		name        string
		remadeFirst bool // wait for the server to make wr/ again before the detach
	}{
		{"removed then detached", false},
		{"made again before the detach", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rundir := filepath.Join(e.dir, "user")
			login := func() {
				if err := os.Mkdir(rundir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mount("tmpfs", rundir, "tmpfs", 0, "mode=700"); err != nil {
					t.Skipf("cannot mount a tmpfs as a runtime directory here: %v", err)
				}
			}
			logout := func() {
				_ = os.RemoveAll(filepath.Join(rundir, "wr")) // as logind does; the server may bind again meanwhile
				if tt.remadeFirst {
					e.eventually("the server to make its directory again", func() bool {
						_, err := os.Stat(e.socket)
						return err == nil
					})
				}
				if err := syscall.Unmount(rundir, syscall.MNT_DETACH); err != nil {
					t.Fatal(err)
				}
				// Removed whole, as logind does: the server may make its
				// directory in it again meanwhile.
				e.eventually("the runtime directory to be removed", func() bool {
					_ = os.RemoveAll(rundir)
					_, err := os.Stat(rundir)
					return os.IsNotExist(err)
				})
			}
			login()
			e.socket = filepath.Join(rundir, "wr", "s.sock")
			for i, v := range e.vars {
				if strings.HasPrefix(v, "WR_SOCKET=") {
					e.vars[i] = "WR_SOCKET=" + e.socket
				}
			}
			// Runs before the harness's own cleanup: the server is stopped
			// while its socket is in reach, then the mount goes.
			t.Cleanup(func() {
				_ = e.wr("server", "stop")
				_ = syscall.Unmount(rundir, syscall.MNT_DETACH)
			})
			e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
			pid := e.serverPID()
			logout()
			login()
			// At once: a wr that starts a server, as an attach in a login
			// shell's rc file does.
			e.mustWr("new", "-d", "other", "--", "sleep", "1000")
			if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") || !strings.Contains(ls, "other") {
				t.Fatalf("wr ls in the new login: %q; want kept and other on one server", ls)
			}
			if now := e.serverPID(); now != pid {
				t.Fatalf("server pid %d, want the first server (%d)", now, pid)
			}
		})
	}
}

// A server's log removed from outside is made again, and what the server
// logs next is in it: it wrote on into the removed file, and every error
// that pointed at the log pointed at nothing.
func TestServerMakesItsRemovedLogAgain(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a", "--", "sleep", "1000")
	if err := os.Remove(e.socket + ".log"); err != nil {
		t.Fatal(err)
	}
	e.eventually("the log to be made again", func() bool {
		_, err := os.Stat(e.socket + ".log")
		return err == nil
	})
	e.mustWr("new", "-d", "b", "--", "sleep", "1000")
	e.eventually("the new log to hold what the server did next", func() bool {
		log, _ := os.ReadFile(e.socket + ".log")
		return strings.Contains(string(log), "session b started")
	})
}

// A server that cannot start says why, at once: in a read-only socket
// directory wr new waited 5 s and then pointed at a log that could not
// exist.
func TestAServerThatCannotStartSaysWhy(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Dir(e.socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_RDONLY, "mode=700"); err != nil {
		t.Skipf("cannot mount a read-only tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	r := e.wr("new", "-d", "x", "--", "sleep", "1000")
	if r.code != 1 || !strings.Contains(r.stderr, "the server could not start") || !strings.Contains(r.stderr, "read-only file system") {
		t.Fatalf("wr new in a read-only socket directory: exit %d, stderr %q; want 1 and why", r.code, r.stderr)
	}
}

// A server lets its beacon go as it begins to stop, not when its last
// connection has gone: the next server, started meanwhile (a client on a
// stalled link holds the old one for seconds), found the name taken and
// served without one, so a logout stranded its sessions.
func TestTheNextServerGetsTheBeacon(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x", "--", "sleep", "1000")
	first := e.serverPID()
	// A connection that never says Hello holds the old server's exit.
	c, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.mustWr("kill", "x")
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	if second := e.serverPID(); second == first {
		t.Fatalf("the first server (%d) serves the new session", first)
	}
	if log, _ := os.ReadFile(e.socket + ".log"); strings.Contains(string(log), "no beacon") {
		t.Fatalf("the next server served without its beacon:\n%s", log)
	}
}

// An upgrade ends the directory's watch before it holds output (closing
// an inotify descriptor waits for the kernel, which the exec did inside
// the pause); one that fails makes the watch again, so a socket removed
// after it is still put back.
func TestAFailedUpgradeWatchesTheSocketAgain(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	// Passes its check, then is gone: the exec fails after the hold.
	vanishing := filepath.Join(e.dir, "vanishing-wr")
	script := "#!/bin/sh\nif [ \"$2\" = check-handoff ]; then echo 'wr-handoff-ok 1 3 test'; rm -f -- \"$0\"; exit 0; fi\nexit 1\n"
	if err := os.WriteFile(vanishing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := e.wr("server", "upgrade", "--binary", vanishing); r.code != 1 || !strings.Contains(r.stderr, "serves on") {
		t.Fatalf("upgrade to a binary that vanished: exit %d, stderr %q", r.code, r.stderr)
	}
	stopProcess(e, pid) // so that only the watch, not a client's ask, can put it back
	if err := os.Remove(e.socket); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	e.eventually("the watch to put the socket back", func() bool {
		_, err := os.Stat(e.socket)
		return err == nil
	})
	if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") {
		t.Fatalf("wr ls: %q", ls)
	}
}
