//go:build linux

package integration

import (
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wr/wire"
)

// The socket directory is 0700 and the socket 0600 (design section 2).
func TestSocketPermissions(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	dir, err := os.Stat(filepath.Dir(e.socket))
	if err != nil {
		t.Fatal(err)
	}
	if dir.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", dir.Mode().Perm())
	}
	sock, err := os.Stat(e.socket)
	if err != nil {
		t.Fatal(err)
	}
	if sock.Mode().Perm() != 0o600 || sock.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v, want a 0600 socket", sock.Mode())
	}
}

// A socket directory others can write, or another user owns, is refused
// with a message naming it, before any server starts.
func TestUnsafeSocketDirRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"world-writable", func(t *testing.T, dir string) {
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others"},
		{"owned by another user", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to chown")
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			dir := filepath.Dir(e.socket)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			for _, args := range [][]string{{"new", "-d", "x"}, {"ls"}, {"kill", "x"}} {
				r := e.wr(args...)
				if r.code != 1 || !strings.Contains(r.stderr, dir) || !strings.Contains(r.stderr, tc.want) {
					t.Errorf("wr %v: exit %d stderr %q, want 1 naming %s (%s)", args, r.code, r.stderr, dir, tc.want)
				}
			}
			// From $WR_SOCKET (su keeps another user's), the error says
			// where the path came from; from --socket it need not.
			if r := e.wr("ls"); !strings.Contains(r.stderr, "$WR_SOCKET names it") || !strings.Contains(r.stderr, "unset WR_SOCKET") {
				t.Errorf("wr ls with $WR_SOCKET: stderr %q, want it to name $WR_SOCKET", r.stderr)
			}
			var noEnv []string
			for _, v := range e.vars {
				if !strings.HasPrefix(v, "WR_SOCKET=") {
					noEnv = append(noEnv, v)
				}
			}
			if r := e.wrIn("", noEnv, "--socket", e.socket, "ls"); r.code != 1 || strings.Contains(r.stderr, "WR_SOCKET") {
				t.Errorf("wr --socket %s ls: exit %d stderr %q, want 1 without $WR_SOCKET", e.socket, r.code, r.stderr)
			}
			tm := e.term(80, 24, "attach", "x")
			if code := tm.wait(); code != 1 {
				t.Errorf("wr attach: exit %d, want 1", code)
			}
			tm.expect(dir)
			if _, err := os.Stat(e.socket); !os.IsNotExist(err) {
				t.Errorf("a server started in an unsafe directory")
			}
		})
	}
}

// handshake dials the socket and says Hello with the given major.
func handshake(t *testing.T, socket string, major int) (net.Conn, wire.Frame) {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(timeout))
	p, _ := wire.Encode(wire.Hello{Protocol: major, Version: "test"})
	// A refusing server may answer and close before reading the Hello, so
	// a failed write is not the end: the answer is still there to read.
	_ = wire.WriteFrame(c, wire.TypeHello, p)
	f, err := wire.ReadFrame(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

// A connection from another uid is refused (SO_PEERCRED); root is not
// special. The server runs as nobody and root connects.
func TestPeerCredentialsRefuseOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a server as another user")
	}
	e := newEnv(t)
	dir := filepath.Dir(e.socket)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(e.dir, 0o755)
	srv := exec.Command(wrBin, "server", "run")
	srv.Env = e.vars
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	// The socket file exists from bind(2); connections are taken only from
	// listen(2), a moment later.
	e.eventually("the server to listen", func() bool {
		c, err := net.Dial("unix", e.socket)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	_, f := handshake(t, e.socket, wire.ProtocolMajor)
	if f.Type != wire.TypeRefused {
		t.Fatalf("got %s, want Refused", f.Type)
	}
	var r wire.Refused
	if err := wire.Decode(f, &r); err != nil || !strings.Contains(r.Message, "another user") {
		t.Fatalf("refusal %q (%v)", r.Message, err)
	}
}

// A client of another protocol major is refused with advice.
func TestProtocolMismatchRefused(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	_, f := handshake(t, e.socket, wire.ProtocolMajor+1)
	var r wire.Refused
	if f.Type != wire.TypeRefused || wire.Decode(f, &r) != nil || !strings.Contains(r.Message, "wr server stop") {
		t.Fatalf("got %s %q, want Refused telling the user to run wr server stop", f.Type, r.Message)
	}
}

// Malformed frames get an error reply and a closed connection, never a
// crash: the server keeps serving.
func TestMalformedFramesAnswered(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	t.Run("oversize after handshake", func(t *testing.T) {
		c, f := handshake(t, e.socket, wire.ProtocolMajor)
		if f.Type != wire.TypeWelcome {
			t.Fatalf("got %s", f.Type)
		}
		var h [5]byte
		h[0] = byte(wire.TypeList)
		binary.BigEndian.PutUint32(h[1:], wire.MaxPayload+1)
		if _, err := c.Write(h[:]); err != nil {
			t.Fatal(err)
		}
		f, err := wire.ReadFrame(c)
		if err != nil || f.Type != wire.TypeError {
			t.Fatalf("got %v %v, want an Error frame", f.Type, err)
		}
		var we wire.Error
		_ = wire.Decode(f, &we)
		if we.Code != wire.CodeBadFrame || !strings.Contains(we.Message, "frame too large") {
			t.Fatalf("error %+v", we)
		}
		if _, err := wire.ReadFrame(c); err == nil {
			t.Fatal("connection still open after an oversize frame")
		}
	})
	t.Run("garbage instead of Hello", func(t *testing.T) {
		c, err := net.Dial("unix", e.socket)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		f, err := wire.ReadFrame(c)
		if err != nil || f.Type != wire.TypeError {
			t.Fatalf("got %v %v, want an Error frame", f.Type, err)
		}
	})
	t.Run("bad JSON in a request", func(t *testing.T) {
		c, _ := handshake(t, e.socket, wire.ProtocolMajor)
		if err := wire.WriteFrame(c, wire.TypeKill, []byte("{not json")); err != nil {
			t.Fatal(err)
		}
		f, err := wire.ReadFrame(c)
		if err != nil || f.Type != wire.TypeError {
			t.Fatalf("got %v %v, want an Error frame", f.Type, err)
		}
	})
	if len(e.ls()) != 1 {
		t.Fatal("the session did not survive malformed frames")
	}
}

// Clients that start at the same instant end up with one server.
func TestConcurrentStartsMakeOneServer(t *testing.T) {
	e := newEnv(t)
	const n = 6
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = e.wr("new", "-d", "s"+string(rune('a'+i)))
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("client %d: exit %d %q", i, r.code, r.stderr)
		}
	}
	if got := len(e.ls()); got != n {
		t.Errorf("%d sessions, want %d", got, n)
	}
	servers := 0
	for _, p := range processesMentioning(e.socket) {
		if strings.Contains(p, "server run") {
			servers++
		}
	}
	if servers != 1 {
		t.Fatalf("%d servers running, want 1: %v", servers, processesMentioning(e.socket))
	}
}

// A server killed with SIGKILL leaves a stale socket; the next client
// detects and replaces it.
func TestStaleSocketReplaced(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	old := e.serverPID()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.eventually("the killed server to be gone", func() bool { return syscall.Kill(old, 0) != nil })
	if _, err := os.Stat(e.socket); err != nil {
		t.Fatalf("expected a stale socket file: %v", err)
	}
	if r := e.wr("ls"); r.code != 0 || r.stdout != "" {
		t.Fatalf("wr ls on a stale socket = %+v, want nothing and exit 0", r)
	}
	e.mustWr("new", "-d", "b")
	if pid := e.serverPID(); pid == old {
		t.Fatal("the new server has the old pid")
	}
	if ss := e.ls(); len(ss) != 1 || ss[0].Name != "b" {
		t.Fatalf("sessions %+v, want just b", ss)
	}
}

// A server that gets no session exits after 10 s.
func TestServerExitsWhenNoSessionArrives(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := exec.Command(wrBin, "server", "run")
	srv.Env = e.vars
	start := time.Now()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	t.Cleanup(func() { _ = srv.Process.Kill() })
	select {
	case err := <-done:
		took := time.Since(start)
		if err != nil || took < 9*time.Second {
			t.Fatalf("server exited after %v with %v, want a clean exit after about 10s", took, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the idle server did not exit")
	}
}

// The server exits when its last session ends with nothing to keep
// (--keep 0; issue 16 keeps a session that ends detached, and the server
// with it, until its code is seen: TestServerExitsWhenLastExitedIsCollected).
func TestServerExitsWithLastSession(t *testing.T) {
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	e.mustWr("new", "-d", "--keep", "0", "short", "--", "sh", "-c", "while [ ! -e "+gate+" ]; do sleep 0.01; done")
	pid := e.serverPID()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.eventually("the server to exit after its only session ended", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
	// The server unlinks the socket before it exits; polled all the same,
	// so that a failure shows what was there for a while, not a moment.
	deadline := time.Now().Add(timeout)
	for {
		_, err := os.Stat(e.socket)
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(e.socket + ".log")
			entries, _ := os.ReadDir(filepath.Dir(e.socket))
			names := []string{}
			for _, de := range entries {
				names = append(names, de.Name())
			}
			t.Fatalf("the socket outlived its server (pid %d): %v; the directory holds %v; the server's log:\n%s", pid, err, names, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A server that exits removes its socket only while the path is still its
// own. A cleaner of /tmp that removes the socket and its lock lets a
// second server start at the same path; the first, when its last session
// ended, used to remove the second's socket, stranding its sessions.
func TestServerLeavesAnotherServersSocket(t *testing.T) {
	e := newEnv(t)
	gate := filepath.Join(e.dir, "gate")
	e.mustWr("new", "-d", "--keep", "0", "old", "--", "sh", "-c", "while [ ! -e "+gate+" ]; do sleep 0.01; done")
	first := e.serverPID()
	// Stopped, so that it cannot bind its socket again (relisten) before
	// the second server does.
	stopProcess(e, first)
	for _, f := range []string{e.socket, e.socket + ".lock"} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	e.mustWr("new", "-d", "new", "--", "sleep", "1000")
	if second := e.serverPID(); second == first {
		t.Fatalf("no second server: pid %d serves the socket", second)
	}
	if err := syscall.Kill(first, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.eventually("the first server to exit after its only session ended", func() bool {
		return syscall.Kill(first, 0) != nil
	})
	if ls := e.mustWr("ls"); !strings.Contains(ls, "new") {
		t.Fatalf("after the first server exited, wr ls shows %q, want the second server's session", ls)
	}
}

// A server whose last session ended detached stays up while it holds the
// exited session, and exits once wr wait has collected its code.
func TestServerExitsWhenLastExitedIsCollected(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "short", "--", "sh", "-c", "exit 4")
	pid := e.serverPID()
	e.waitExited("short")
	if syscall.Kill(pid, 0) != nil {
		t.Fatal("the server exited while it held an exited session")
	}
	if r := e.wr("wait", "short"); r.code != 4 {
		t.Fatalf("wr wait short: exit %d (stderr %q), want 4", r.code, r.stderr)
	}
	e.eventually("the server to exit once its last session was collected", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
}

// wr server stop kills every session and exits; status reports.
func TestServerStopAndStatus(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	e.mustWr("new", "-d", "b")
	out := e.mustWr("server", "status")
	for _, want := range []string{"pid ", "version " + wire.Version, "uptime ", "sessions 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("wr server status lacks %q:\n%s", want, out)
		}
	}
	pid := e.serverPID()
	var shells []int
	for _, s := range e.ls() {
		shells = append(shells, s.PID)
	}
	e.mustWr("server", "stop")
	e.eventually("the server to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	for _, sh := range shells {
		if syscall.Kill(sh, 0) == nil {
			t.Errorf("shell %d survived wr server stop", sh)
		}
	}
	r := e.wr("server", "status")
	if r.code != 1 || !strings.Contains(r.stderr, "no server running") {
		t.Fatalf("status after stop = %+v", r)
	}
	if r := e.wr("server", "stop"); r.code != 1 {
		t.Fatalf("stop with no server = %+v, want 1", r)
	}
}

// The server reads every PTY with nobody attached: a program that prints
// 8 MiB into a detached session finishes.
func TestDetachedSessionIsRead(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.dir, "finished")
	e.mustWr("new", "-d", "w", "--", "sh", "-c", "head -c 8388608 /dev/zero; echo > "+marker+"; exec sleep 100")
	e.eventually("the detached writer to finish", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}

// wr attach X inside session X refuses instead of looping.
func TestAttachInsideItselfRefused(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "self")
	tm.expect(prompt)
	tm.send(wrBin + " attach self; echo RC=$?-$((1+1))\r")
	tm.expect("already inside session self")
	tm.expect("RC=1-2")
	tm.send("exit\r")
	tm.wait()
}
