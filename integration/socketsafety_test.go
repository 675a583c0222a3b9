//go:build linux

package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The uids of the victim and the attacker in the directory-swap test.
const (
	victimUID   = 1001
	attackerUID = 1002
)

// swapperEnv, when set, makes the test binary the attacker of
// TestSocketDirSwapNotFollowed instead of running tests (see TestMain).
const swapperEnv = "WR_TEST_SWAPPER"

// Another user who may write the socket directory's parent (world-writable,
// no sticky bit) swaps the directory for a symlink to a directory of their
// own, with their own listening socket, in a loop. No connection of the
// victim's may reach the attacker's socket: the directory is checked and
// used through one descriptor. Each of the victim's commands succeeds or
// fails with a sentence saying why.
func TestSocketDirSwapNotFollowed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the victim and the attacker as two other users")
	}
	e := newEnv(t)
	if err := os.Chmod(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(e.dir, "pub")
	if err := os.Mkdir(pub, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pub, 0o777); err != nil { // no sticky bit
		t.Fatal(err)
	}
	socket := filepath.Join(pub, "wr", "s.sock")
	vars := e.with() // WR_SOCKET is set below, replacing the env's
	for i, kv := range vars {
		if strings.HasPrefix(kv, "WR_SOCKET=") {
			vars[i] = "WR_SOCKET=" + socket
		}
	}
	victim := func(args ...string) result {
		t.Helper()
		return runAs(t, victimUID, vars, args...)
	}
	if r := victim("new", "-d", "x", "--", "cat"); r.code != 0 {
		t.Fatalf("wr new as uid %d: exit %d, stderr %q", victimUID, r.code, r.stderr)
	}
	t.Cleanup(func() {
		restoreSwapped(pub)
		_ = runAs(t, victimUID, vars, "server", "stop")
	})

	// The attacker is this test binary, copied where the attacker's uid
	// may run it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(e.dir, "swapper")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	sw := exec.Command(bin)
	sw.Env = []string{swapperEnv + "=1", "SWAP_PUB=" + pub, "SWAP_DIR=wr", "SWAP_NAME=s.sock"}
	sw.Dir = pub
	sw.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: attackerUID, Gid: attackerUID}}
	stdin, err := sw.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := sw.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var swErr strings.Builder
	sw.Stderr = &swErr
	if err := sw.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- sw.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-waited:
		case <-time.After(timeout):
			_ = sw.Process.Kill()
			<-waited
		}
	})
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the attacker exited before %s; stderr %q", what, swErr.String())
			}
			return l
		case <-time.After(timeout):
			t.Fatalf("the attacker did not report %s within %v", what, timeout)
			return ""
		}
	}
	if l := next("ready"); l != "ready" {
		t.Fatalf("the attacker said %q, want ready", l)
	}

	// The victim's commands, two at a time, while the attacker swaps.
	const lsRuns, sendRuns = 120, 80
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var unclear []string
	check := func(args []string, r result) {
		if r.code == 0 {
			ok.Add(1)
			return
		}
		failed.Add(1)
		if !clearSwapError(r.stderr) {
			mu.Lock()
			unclear = append(unclear, fmt.Sprintf("wr %v: exit %d, stderr %q", args, r.code, r.stderr))
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for _, job := range []struct {
		n    int
		args []string
	}{{lsRuns, []string{"ls"}}, {sendRuns, []string{"send", "x", "hello"}}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range job.n {
				check(job.args, runAs(t, victimUID, vars, job.args...))
			}
		}()
	}
	wg.Wait()
	stdin.Close() // the attacker stops, puts the directory back and reports
	var accepts, swaps int
	report := next("its count")
	if _, err := fmt.Sscanf(report, "accepts %d swaps %d", &accepts, &swaps); err != nil {
		t.Fatalf("the attacker reported %q: %v", report, err)
	}
	t.Logf("%d swaps; the victim's commands: %d succeeded, %d failed; the attacker accepted %d", swaps, ok.Load(), failed.Load(), accepts)
	if accepts != 0 {
		t.Errorf("the attacker's socket accepted %d of the victim's %d connections", accepts, lsRuns+sendRuns)
	}
	if swaps == 0 {
		t.Errorf("the attacker never swapped the directory; stderr %q", swErr.String())
	}
	for _, u := range unclear {
		t.Errorf("unclear failure: %s", u)
	}
	// The victim's server is untouched: its session is still there.
	if r := victim("ls"); r.code != 0 || !strings.Contains(r.stdout, "x ") {
		t.Errorf("after the attack wr ls = %+v, want session x", r)
	}
}

// clearSwapError reports whether stderr is one of the sentences a victim may
// see while its directory is swapped: the directory is a symlink, or was
// one when it was opened.
func clearSwapError(stderr string) bool {
	s := strings.TrimSuffix(stderr, "\n")
	if strings.Contains(s, "\n") || !strings.HasPrefix(s, "wr: ") {
		return false
	}
	for _, bad := range []string{"wire:", "attach:", "mux:", "/proc/self/fd", "EOF", "handshake"} {
		if strings.Contains(s, bad) {
			return false
		}
	}
	return strings.Contains(s, "is a symbolic link") || strings.Contains(s, "was replaced while wr opened it") ||
		s == "wr: no session named x"
}

// runAs runs wr as uid with no terminal.
func runAs(t *testing.T, uid int, vars []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrBin, args...)
	cmd.Env = vars
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	r, err := runCmd(cmd)
	if err != nil {
		t.Errorf("wr %v as uid %d: %v", args, uid, err)
		r.code = -1
	}
	if ctx.Err() != nil {
		t.Errorf("wr %v as uid %d did not finish within %v", args, uid, timeout)
	}
	return r
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// restoreSwapped puts the victim's directory back if the attacker was
// stopped in the middle of its swapping.
func restoreSwapped(pub string) {
	dir, link := filepath.Join(pub, "wr"), filepath.Join(pub, ".link")
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if fi, err := os.Lstat(link); err == nil && fi.IsDir() {
			_ = os.Remove(dir)
			_ = os.Rename(link, dir)
		}
	}
}

// runSwapper is the attacker: it listens in a directory of its own and
// swaps the victim's socket directory for a symlink to it, over and over,
// until its stdin closes (or a bound is reached). It then puts the
// directory back and prints how many connections it accepted.
func runSwapper() int {
	pub := os.Getenv("SWAP_PUB")
	dir := filepath.Join(pub, os.Getenv("SWAP_DIR"))
	link := filepath.Join(pub, ".link")
	evil := filepath.Join(pub, ".evil")
	if err := os.Mkdir(evil, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(evil)
	sock := filepath.Join(evil, os.Getenv("SWAP_NAME"))
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = os.Chmod(sock, 0o777) // let the victim connect
	var accepts atomic.Int64
	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			c.Close()
		}
	}()
	var stop atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	fmt.Println("ready")

	// Each exchange swaps the victim's directory and a symlink to ours
	// in one step: the path names one, then the other, as fast as the
	// kernel allows. Bounded: the test closes stdin when its victim is
	// done, but a test that dies must not leave this running.
	if err := os.Symlink(".evil", link); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	deadline := time.Now().Add(2 * time.Minute)
	swaps := 0
	for i := 0; i < 10_000_000 && !stop.Load() && (i%1024 != 0 || time.Now().Before(deadline)); i++ {
		if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if i%2 == 0 {
			swaps++
		}
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		_ = unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	}
	_ = os.Remove(link)
	ln.Close()
	<-acceptDone
	fmt.Printf("accepts %d swaps %d\n", accepts.Load(), swaps)
	return 0
}

// A --socket naming an existing file that is not a socket is refused with
// the path in the message, by every verb, and the file is left exactly as
// it was: the server removes only a stale socket.
func TestSocketPathNotASocketRefused(t *testing.T) {
	e := newEnv(t)
	notes := filepath.Join(e.dir, "notes.md")
	const content = "# my notes\nnothing here may be lost\n"
	if err := os.WriteFile(notes, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--socket", notes, "new", "-d", "x", "--", "sh"},
		{"--socket", notes, "server", "run"},
		{"--socket", notes, "server", "run", "--daemon"},
		// Verbs that never start a server said nothing, and ls printed no
		// sessions: a mistyped WR_SOCKET read as "nothing running".
		{"--socket", notes, "ls"},
		{"--socket", notes, "ls", "--json"},
		{"--socket", notes, "kill", "--all"},
		{"--socket", notes, "has", "x"},
		{"--socket", notes, "server", "status"},
	} {
		r := e.wr(args...)
		want := "wr: " + notes + " exists and is not a socket; pick another --socket\n"
		if r.code != 1 || r.stderr != want {
			t.Errorf("wr %v: exit %d stderr %q, want 1 and %q", args, r.code, r.stderr, want)
		}
		b, err := os.ReadFile(notes)
		if err != nil || string(b) != content {
			t.Fatalf("after wr %v the file holds %q (%v), want %q", args, b, err, content)
		}
	}
	for _, suffix := range []string{".log", ".start"} {
		if _, err := os.Lstat(notes + suffix); err == nil {
			t.Errorf("%s was created beside a path that is not a socket", notes+suffix)
		}
	}
}

// A symlink to a socket nobody listens on is no server, as a stale socket
// is: only a path that is not a socket at all is refused by name.
func TestSymlinkToAStaleSocketIsNoServer(t *testing.T) {
	e := newEnv(t)
	stale := filepath.Join(e.dir, "stale.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	link := filepath.Join(e.dir, "link.sock")
	if err := os.Symlink(stale, link); err != nil {
		t.Fatal(err)
	}
	if r := e.wr("--socket", link, "ls"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("wr ls through a symlink to a stale socket: exit %d, stdout %q, stderr %q; want nothing, as with no server", r.code, r.stdout, r.stderr)
	}
}

// A session's command holds the terminal as 0, 1 and 2 and no other
// descriptor, whatever the client that started the server had open; and
// the server does not hold the client's descriptors either.
func TestSessionGetsOnlyTheTerminal(t *testing.T) {
	// The session's command: a shell, not interactive (an interactive dash
	// opens /dev/tty itself for job control), that holds what it was given.
	const cmdline = "read line"
	secretFile := func(t *testing.T, e *env) *os.File {
		f, err := os.OpenFile(filepath.Join(e.dir, "secret"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	t.Run("server started by a client", func(t *testing.T) {
		e := newEnv(t)
		secret := secretFile(t, e)
		cmd := exec.Command(wrBin, "new", "-d", "x", "--", "sh", "-c", cmdline)
		cmd.Env = e.vars
		cmd.Dir = e.dir
		cmd.ExtraFiles = []*os.File{secret} // fd 3, not close-on-exec
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wr new: %v: %s", err, out)
		}
		s, ok := e.session("x")
		if !ok {
			t.Fatal("no session x")
		}
		if fds := openFDs(t, s.PID); strings.Join(fds, " ") != "0 1 2" {
			t.Errorf("the session's command holds descriptors %v, want 0 1 2", fds)
		}
		if n := fdsOnFile(t, e.serverPID(), secret); n > 0 {
			t.Errorf("the server holds the client's descriptor (%d times)", n)
		}
	})
	t.Run("server run from a shell", func(t *testing.T) {
		e := newEnv(t)
		secret := secretFile(t, e)
		srv := exec.Command(wrBin, "server", "run")
		srv.Env = e.vars
		srv.Dir = e.dir
		srv.ExtraFiles = []*os.File{secret}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = srv.Wait(); close(exited) }()
		t.Cleanup(func() {
			_ = e.wr("server", "stop")
			select {
			case <-exited:
			case <-time.After(timeout):
				_ = srv.Process.Kill()
				<-exited
			}
		})
		e.eventually("the server to listen", func() bool {
			return e.wr("server", "status").code == 0
		})
		e.mustWr("new", "-d", "x", "--", "sh", "-c", cmdline)
		s, ok := e.session("x")
		if !ok {
			t.Fatal("no session x")
		}
		if fds := openFDs(t, s.PID); strings.Join(fds, " ") != "0 1 2" {
			t.Errorf("the session's command holds descriptors %v, want 0 1 2", fds)
		}
	})
}

// openFDs lists the descriptors pid holds, in order.
func openFDs(t *testing.T, pid int) []string {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	for _, d := range ents {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			t.Fatal(err)
		}
		nums = append(nums, n)
	}
	slices.Sort(nums)
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// fdsOnFile counts pid's descriptors open on f's file.
func fdsOnFile(t *testing.T, pid int, f *os.File) int {
	t.Helper()
	want, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range ents {
		if fi, err := os.Stat(fmt.Sprintf("/proc/%d/fd/%s", pid, d.Name())); err == nil && os.SameFile(fi, want) {
			n++
		}
	}
	return n
}
