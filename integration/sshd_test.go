//go:build linux

package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshHost is an OpenSSH server on 127.0.0.1 started for one test, and the
// ssh configuration that reaches it: each alias is the same sshd with its
// own remote environment (its own WR_SOCKET, PATH), as two machines would
// have their own servers.
type sshHost struct {
	e      *env
	dir    string
	config string // the ssh client's -F file
	// sockets are the remote WR_SOCKET of each alias with a server.
	sockets map[string]string
	// banner is a wr on the remote that prints lines before it starts, as
	// a chatty .bashrc does (WR_REMOTE names it).
	banner string

	sshdConfig string
	sshd       *exec.Cmd     // the listening sshd, nil when stopped
	exited     chan struct{} // closed when it has exited
}

// listen starts sshd (again) and waits until a login works.
func (h *sshHost) listen(t *testing.T) {
	t.Helper()
	sshd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", h.sshdConfig)
	logf, err := os.OpenFile(filepath.Join(h.dir, "sshd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	sshd.Stdout, sshd.Stderr = logf, logf
	if err := sshd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = sshd.Wait(); close(exited) }()
	h.sshd, h.exited = sshd, exited
	h.e.eventually("sshd to accept a login", func() bool {
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(h.dir, "sshd.log"))
			t.Fatalf("sshd exited: %s", b)
		default:
		}
		return exec.Command("ssh", "-F", h.config, "dev", "true").Run() == nil
	})
}

// stopListening ends sshd and every connection it serves, as a machine
// that vanished would: their ssh clients see the connection close.
func (h *sshHost) stopListening(t *testing.T) {
	t.Helper()
	if h.sshd == nil {
		return
	}
	// Stopped first, so that it accepts no connection while its
	// connections are killed: a client whose link was cut reconnected in
	// between (under load), to a connection sshd forked after the kill
	// looked for them, which nothing killed, and stayed attached.
	_ = h.sshd.Process.Signal(syscall.SIGSTOP)
	h.signalSessions(syscall.SIGKILL)
	_ = h.sshd.Process.Kill()
	<-h.exited
	h.sshd = nil
}

// newSSHHost starts sshd as the current user on a free port, allowing only
// a throwaway key, with the wr under test on the remote's PATH, and writes
// a client config with the aliases dev and prod (each with its own
// WR_SOCKET), down (nothing listens there) and hang (it takes the
// connection and never answers).
// It skips the test when OpenSSH is not installed. sshd and everything it
// started are ended in t.Cleanup.
func newSSHHost(t *testing.T, e *env) *sshHost {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (openssh-server, openssh-client)", p)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if u.Uid == "0" {
		// sshd run by root insists on its privilege separation directory.
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	h := &sshHost{e: e, dir: filepath.Join(e.dir, "ssh"), sockets: map[string]string{}}
	mkdir(t, h.dir)
	for _, k := range []string{"host_key", "user_key"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(h.dir, k)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(h.dir, "user_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.dir, "authorized_keys"), string(pub), 0o600)

	// The remote side's PATH: wr itself (the binary under test), a
	// wrapper that prints a banner first, or nothing of wr.
	binDir, bannerDir := filepath.Join(h.dir, "bin"), filepath.Join(h.dir, "banner")
	for _, d := range []string{binDir, bannerDir} {
		mkdir(t, d)
	}
	if err := os.Symlink(wrBin, filepath.Join(binDir, "wr")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bannerDir, "wr"), "#!/bin/sh\necho 'Welcome to the banner host!'\necho 'Second line'\nexec "+wrBin+" \"$@\"\n", 0o755)
	sysPath := "/usr/local/bin:/usr/bin:/bin"

	port := freePort(t)
	sshdConfig := filepath.Join(h.dir, "sshd_config")
	writeFile(t, sshdConfig, strings.Join([]string{
		"Port " + port,
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(h.dir, "host_key"),
		"PidFile none",
		"UsePAM no",
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"AuthorizedKeysFile " + filepath.Join(h.dir, "authorized_keys"),
		"AllowUsers " + u.Username,
		// wr on the remote's PATH (sshd ignores a PATH the client sends).
		"SetEnv PATH=" + binDir + ":" + sysPath + " GORACE=atexit_sleep_ms=0",
		"AcceptEnv WR_SOCKET",
		"PrintMotd no",
		"LogLevel ERROR",
		"",
	}, "\n"), 0o600)

	// dev and prod: two machines, each with its own server; down: one
	// that does not answer (nothing listens on its port).
	h.sockets["dev"] = filepath.Join(e.dir, "dev", "s.sock")
	h.sockets["prod"] = filepath.Join(e.dir, "prod", "s.sock")
	var cfg strings.Builder
	for _, a := range []string{"dev", "prod"} {
		fmt.Fprintf(&cfg, "Host %s\n  SetEnv WR_SOCKET=%s\n", a, h.sockets[a])
	}
	fmt.Fprintf(&cfg, "Host down\n  Port %s\n", freePort(t))
	// hang: a host that takes the connection and never says a word.
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hang.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	fmt.Fprintf(&cfg, "Host hang\n  Port %d\n", hang.Addr().(*net.TCPAddr).Port)
	fmt.Fprintf(&cfg, "Host *\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking accept-new\n  BatchMode yes\n  LogLevel ERROR\n",
		port, u.Username, filepath.Join(h.dir, "user_key"), filepath.Join(h.dir, "known_hosts"))
	h.banner = filepath.Join(bannerDir, "wr")
	h.config = filepath.Join(h.dir, "ssh_config")
	writeFile(t, h.config, cfg.String(), 0o600)

	h.sshdConfig = sshdConfig
	t.Cleanup(func() {
		// The remote servers first (their sessions with them), then sshd
		// and the connections it serves.
		for _, s := range h.sockets {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			cmd := exec.CommandContext(ctx, wrBin, "--socket", s, "server", "stop")
			cmd.Env = e.vars
			_ = cmd.Run()
			cancel()
		}
		h.stopListening(t)
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(h.dir, "sshd.log")); err == nil && len(b) > 0 {
				t.Logf("sshd log:\n%s", b)
			}
		}
	})
	h.listen(t)
	return h
}

// vars is the local environment of a wr that reaches the test's sshd.
func (h *sshHost) vars(kv ...string) []string {
	return h.e.with(append([]string{"WR_SSH=ssh -F " + h.config}, kv...)...)
}

// wr runs a wr command with the ssh config in its environment.
func (h *sshHost) wr(args ...string) result {
	h.e.t.Helper()
	return h.e.wrIn("", h.vars(), args...)
}

// mustWr runs one that must succeed.
func (h *sshHost) mustWr(args ...string) string {
	h.e.t.Helper()
	r := h.wr(args...)
	if r.code != 0 {
		h.e.t.Fatalf("wr %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// term starts an attached client on a new PTY, reaching the test's sshd.
func (h *sshHost) term(cols, rows int, args ...string) *term {
	h.e.t.Helper()
	return h.e.termEnv(cols, rows, h.vars(), args...)
}

// freePort is a TCP port of 127.0.0.1 nothing listens on at the moment.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// dropLink takes the link of client a down and keeps it down: sshd stops
// listening and the session it served is killed; it returns once a says
// it is reconnecting. h.listen brings the link back.
func (h *sshHost) dropLink(t *testing.T, a *term) {
	t.Helper()
	h.stopListening(t)
	h.signalSessions(syscall.SIGKILL)
	a.expect("link to dev ")
}

// signalSessions sends sig to the processes sshd forked for connections,
// not to what those run.
func (h *sshHost) signalSessions(sig syscall.Signal) []int {
	var pids []int
	if h.sshd == nil {
		return nil
	}
	for _, pid := range descendants(h.sshd.Process.Pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) == "sshd" {
			_ = syscall.Kill(pid, sig)
			pids = append(pids, pid)
		}
	}
	return pids
}

// descendants lists the processes below pid, children first.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		var p int
		if _, err := fmt.Sscan(d.Name(), &p); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			var pp int
			fmt.Sscan(f[1], &pp)
			parent[p] = pp
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

// sshChild is the pid of the ssh process a wr client runs.
func sshChild(t *testing.T, client int) int {
	t.Helper()
	for _, p := range descendants(client) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "ssh" {
			return p
		}
	}
	return 0
}
