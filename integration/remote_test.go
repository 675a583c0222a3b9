//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A session on another machine, through the user's own ssh: created,
// listed, captured, sent to, waited for and killed as HOST:NAME, with its
// exit code passed through, and never on this machine's server.
func TestRemoteVerbs(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	h.mustWr("new", "-d", "dev:job", "--", "sh", "-c", "echo READY; read x; echo got-$x; exit 7")
	e.eventually("the remote session's output", func() bool { return strings.Contains(h.mustWr("capture", "dev:job"), "READY") })
	if r := h.wr("has", "dev:job"); r.code != 0 {
		t.Fatalf("has dev:job: exit %d, %q", r.code, r.stderr)
	}
	if r := h.wr("has", "prod:job"); r.code != 1 {
		t.Fatalf("has prod:job (another host): exit %d, want 1; %q", r.code, r.stderr)
	}
	if r := e.wr("has", "job"); r.code != 1 {
		t.Fatalf("the local server has job too: exit %d", r.code)
	}
	// The remote session runs in the remote environment: its WR_SOCKET is
	// dev's, not this machine's.
	h.mustWr("send", "dev:job", "--enter", "hello")
	r := h.wr("wait", "dev:job")
	if r.code != 7 {
		t.Fatalf("wait dev:job: exit %d, want the session's 7; stderr %q", r.code, r.stderr)
	}
	h.mustWr("new", "-d", "dev:env", "--", "sh", "-c", `echo "sock=$WR_SOCKET pwd=$(pwd)"; exec sleep 1000`)
	e.eventually("the environment line", func() bool { return strings.Contains(h.mustWr("capture", "dev:env"), "sock=") })
	line := h.mustWr("capture", "dev:env")
	if !strings.Contains(line, "sock="+h.sockets["dev"]) {
		t.Errorf("the remote session's WR_SOCKET is not dev's %s: %q", h.sockets["dev"], line)
	}
	if strings.Contains(line, "pwd="+e.dir+"\n") {
		t.Errorf("the remote session started in this machine's working directory: %q", line)
	}
	// ls --json behaves as locally.
	var list []sessionInfo
	if err := json.Unmarshal([]byte(h.mustWr("ls", "--json", "dev:")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "env" {
		t.Fatalf("ls --json dev: %+v", list)
	}
	h.mustWr("rename", "dev:env", "env2")
	h.mustWr("kill", "dev:env2")
	if r := h.wr("has", "dev:env2"); r.code != 1 {
		t.Fatalf("dev:env2 still there after kill: exit %d", r.code)
	}
	if r := h.wr("kill", "dev:a", "prod:b"); r.code != 2 {
		t.Fatalf("kill of two hosts at once: exit %d, want a usage error", r.code)
	}
}

// wr ls of two hosts asks both and prints one table with a HOST column;
// a host that fails says so on its own line and the others are listed.
func TestRemoteListSeveralHosts(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	h.mustWr("new", "-d", "dev:a", "--", "sleep", "1000")
	h.mustWr("new", "-d", "prod:b", "--", "sleep", "1000")
	out := h.mustWr("ls", "dev:", "prod:")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "HOST") {
		t.Fatalf("ls dev: prod: printed %q", out)
	}
	if f := strings.Fields(lines[1]); f[0] != "dev" || f[1] != "a" {
		t.Errorf("first row %q, want dev a", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "prod" || f[1] != "b" {
		t.Errorf("second row %q, want prod b", lines[2])
	}
	r := h.wr("ls", "dev:", "down:", "prod:")
	if r.code != 1 || len(strings.Split(strings.TrimSpace(r.stdout), "\n")) != 3 {
		t.Fatalf("ls with a host that does not answer: exit %d, stdout %q", r.code, r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "wr: down: ") || !strings.Contains(r.stderr, "Connection refused") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line about down", r.stderr)
	}
	// A host that never answers is given up on at --timeout; the others
	// are listed.
	r = h.wr("ls", "--timeout", "2s", "dev:", "hang:", "prod:")
	if r.code != 1 || len(strings.Split(strings.TrimSpace(r.stdout), "\n")) != 3 {
		t.Fatalf("ls with a host that never answers: exit %d, stdout %q", r.code, r.stdout)
	}
	if want := "wr: hang: hang did not answer within 2s\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// The failures of reaching another machine are one line each.
func TestRemoteFailures(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	// A wr of another protocol, and one from before wr bridge.
	newer := filepath.Join(e.dir, "wr-newer")
	writeFile(t, newer, `#!/bin/sh
printf '\000\033wr-bridge\000{"version":"9.0.0","protocol":9,"minor":0,"state":"ready"}\n'
`, 0o755)
	older := filepath.Join(e.dir, "wr-older")
	writeFile(t, older, "#!/bin/sh\necho 'wr: unknown command \"bridge\"; run `wr help` for the list' >&2\nexit 2\n", 0o755)
	cases := []struct {
		name string
		vars []string
		args []string
		code int
		want string
	}{
		{"no wr on the remote's PATH", []string{"WR_REMOTE=wr-not-installed"}, []string{"capture", "dev:x"}, 1, "wr: wr not found on dev: install it there, or set WR_REMOTE to its path\n"},
		{"WR_REMOTE names a missing path", []string{"WR_REMOTE=/nonexistent/wr"}, []string{"ls", "dev:"}, 1, "wr: dev: wr not found on dev: install it there, or set WR_REMOTE to its path\n"},
		{"a banner", []string{"WR_REMOTE=" + h.banner}, []string{"attach", "dev:x"}, 1, `wr: the shell on dev printed "Welcome to the banner host!" before wr bridge started`},
		{"authentication", []string{"WR_SSH=ssh -F " + h.config + " -l wr-no-such-user"}, []string{"capture", "dev:x"}, 255, "Permission denied"},
		{"another protocol", []string{"WR_REMOTE=" + newer}, []string{"attach", "dev:x"}, 1, "the wr on dev is version 9.0.0 (protocol 9.0), which this wr 0.1.0 (protocol 1."},
		{"a wr without bridge", []string{"WR_REMOTE=" + older}, []string{"capture", "dev:x"}, 1, "the wr on dev is older than this wr 0.1.0 and has no `wr bridge`"},
		{"unreachable", nil, []string{"attach", "down:x"}, 255, "Connection refused"},
		{"no such session", nil, []string{"capture", "dev:nothing"}, 1, "wr: no session named nothing\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars := h.vars(c.vars...)
			if len(c.vars) > 0 && strings.HasPrefix(c.vars[0], "WR_SSH=") {
				vars = e.with(c.vars...)
			}
			r := e.wrIn("", vars, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("wr %v: exit %d, stderr %q; want exit %d and one line with %q", c.args, r.code, r.stderr, c.code, c.want)
			}
		})
	}
}

// A remote attach behaves as a local one: the detach key (handled here),
// the session's exit code, and the size with one local and one remote
// client of the same session.
func TestRemoteAttach(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:s", "--", "sh")
	a.send("echo remote-$((40+2))\r")
	a.expect("remote-42")
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach: exit %d", code)
	}
	a.expect("[detached from dev:s]")
	if r := h.wr("has", "dev:s"); r.code != 0 {
		t.Fatal("the session ended with the detach")
	}

	// The same session through its server's own socket (a client on
	// that machine) and through ssh: the first attached owns the size.
	local := e.termEnv(90, 30, e.with("WR_SOCKET="+h.sockets["dev"]), "attach", "s")
	local.run("echo local-here")
	remote := h.term(120, 40, "attach", "dev:s")
	e.eventually("two clients", func() bool {
		var l []sessionInfo
		_ = json.Unmarshal([]byte(h.mustWr("ls", "--json", "dev:")), &l)
		return len(l) == 1 && l[0].Clients == 2
	})
	var l []sessionInfo
	_ = json.Unmarshal([]byte(h.mustWr("ls", "--json", "dev:")), &l)
	if l[0].Cols != 90 || l[0].Rows != 30 {
		t.Fatalf("with the remote client attached, untyped, the session is %dx%d; want the local owner's 90x30", l[0].Cols, l[0].Rows)
	}
	// Typing takes the size, from either side.
	remote.send("stty size\r")
	remote.expect("40 120")
	local.send("stty size\r")
	local.expect("30 90")
	remote.run("exit 5")
	if code := remote.wait(); code != 5 {
		t.Fatalf("remote client: exit %d, want the session's 5", code)
	}
	if code := local.wait(); code != 5 {
		t.Fatalf("local client: exit %d, want the session's 5", code)
	}
}

// The ssh process does not carry this machine's wr variables: the remote
// chooses its own socket.
func TestRemoteSSHEnvironment(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	fake := filepath.Join(e.dir, "fake-ssh")
	log := filepath.Join(e.dir, "fake-ssh.env")
	writeFile(t, fake, "#!/bin/sh\nenv > "+log+"\nexec ssh \"$@\"\n", 0o755)
	r := e.wrIn("", e.with("WR_SSH="+fake+" -F "+h.config, "WR_SESSION=outer", "WR_DETACH_KEY=ctrl-a"), "ls", "dev:")
	if r.code != 0 {
		t.Fatalf("ls dev: through the fake ssh: exit %d %q", r.code, r.stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "WR_") {
			t.Errorf("ssh got wr's own variable %s", l)
		}
	}
}

// A dropped link is not the end: the client says it is reconnecting, on
// one line, gets the link back, and draws the session's current screen;
// the session never noticed and the client types on. The link is dropped
// by killing the ssh client, by killing the sshd that served it, and by
// stopping that sshd (a stalled link, found by the keep-alive), each while
// the session writes.
func TestRemoteReconnect(t *testing.T) {
	cases := []struct {
		name string
		drop func(t *testing.T, h *sshHost, a *term)
	}{
		{"ssh killed", func(t *testing.T, h *sshHost, a *term) {
			pid := sshChild(t, a.cmd.Process.Pid)
			if pid == 0 {
				t.Fatal("no ssh below the client")
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}},
		{"sshd killed", func(t *testing.T, h *sshHost, a *term) { h.signalSessions(syscall.SIGKILL) }},
		{"link stalled", func(t *testing.T, h *sshHost, a *term) {
			stopped := h.signalSessions(syscall.SIGSTOP)
			t.Cleanup(func() {
				for _, p := range stopped {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			h := newSSHHost(t, e)
			a := h.term(80, 24, "attach", "--keepalive", "2s", "dev:r", "--", "sh")
			a.send("for i in $(seq 1 300); do echo out-$i; sleep 0.01; done; echo LOOP-$((6*7))\r")
			a.expect("out-20")
			c.drop(t, h, a)
			a.expect("link to dev ")
			a.expect("\x1b[2K\x1b8") // the status line erased (not redrawn): reconnected
			a.expect("LOOP-42")      // the session wrote on, and is shown
			a.send("echo typed-$((6*7))\r")
			a.expect("typed-42")
			a.settled()
			want := trimScreen(h.stableCaptureOf("dev:r", "typed-42"))
			if got := vtScreen(80, 24, a.output()); got != want {
				t.Fatalf("after the reconnect the terminal shows\n%s\nbut the session's screen is\n%s", got, want)
			}
			a.send("\x1c")
			if code := a.wait(); code != 0 {
				t.Fatalf("detach: exit %d", code)
			}
			if out := string(a.output()); strings.Contains(out, "was not run") {
				t.Fatalf("the reattach took the session for one this client did not create: %q", out[max(0, len(out)-300):])
			}
		})
	}
}

// stableCaptureOf is stableCapture of a session named HOST:NAME.
func (h *sshHost) stableCaptureOf(name, want string) string {
	h.e.t.Helper()
	var prev, cur string
	h.e.eventually("the screen of "+name+" to settle showing "+want, func() bool {
		r := h.wr("capture", name)
		prev, cur = cur, r.stdout
		return r.code == 0 && strings.Contains(cur, want) && cur == prev
	})
	return cur
}

// While the link is down, keys are dropped (the status line counts them),
// and the detach key gives up as a detach: exit 0, the session left
// running.
func TestRemoteReconnectGiveUp(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:g", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	h.dropLink(t, a)
	a.send("abc")
	a.expect("3 typed bytes dropped")
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("giving up: exit %d, want 0 as a detach", code)
	}
	a.expect("[detached from dev:g]")
	// The session is there, on dev's own socket, and got none of the keys.
	local := e.wrIn("", e.with("WR_SOCKET="+h.sockets["dev"]), "capture", "g")
	if local.code != 0 || strings.Contains(local.stdout, "abc") {
		t.Fatalf("the session after giving up: exit %d, screen %q", local.code, local.stdout)
	}
}

// --reconnect bounds the tries: with the host gone for longer, the client
// says so and exits 1; the session runs on.
func TestRemoteReconnectLimit(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "--reconnect", "3s", "dev:l", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	h.dropLink(t, a)
	if code := a.wait(); code != 1 {
		t.Fatalf("after --reconnect 3s without a link: exit %d, want 1", code)
	}
	a.expect("wr: lost the link to dev and could not get it back within 3s")
	if r := e.wrIn("", e.with("WR_SOCKET="+h.sockets["dev"]), "has", "l"); r.code != 0 {
		t.Fatalf("the session ended with its client's link")
	}
}

// A session that ends while its client is away passes its exit code on
// at the reattach, as a local one does.
func TestRemoteReconnectExitCode(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:x", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	h.dropLink(t, a)
	e.wrIn("", e.with("WR_SOCKET="+h.sockets["dev"]), "send", "x", "--enter", "exit 9")
	h.listen(t)
	if code := a.wait(); code != 9 {
		t.Fatalf("exit %d, want the session's 9", code)
	}
}

// endBehindADeadLink stops sshd, as a laptop gone to sleep leaves a link
// dead with nobody noticing, ends session x there with code 9 (until's
// condition on wr ls there says it has ended), then kills the link and
// listens again: a's reconnection must get the code.
func endBehindADeadLink(t *testing.T, e *env, h *sshHost, a *term, until func(ls string) bool) {
	t.Helper()
	there := e.with("WR_SOCKET=" + h.sockets["dev"])
	h.signalSessions(syscall.SIGSTOP)
	e.wrIn("", there, "send", "x", "--enter", "exit 9")
	e.eventually("the session to end", func() bool {
		r := e.wrIn("", there, "ls")
		return r.code == 0 && until(r.stdout)
	})
	h.dropLink(t, a)
	h.listen(t)
	if code := a.wait(); code != 9 {
		t.Fatalf("exit %d, want the session's 9; the terminal shows %q", code, a.output())
	}
}

// A session that ends while its client's link is dead but nobody has
// noticed yet keeps its code for the client's return. The server still
// counts the client as attached and sends the code into the dead link; it
// used to collect the session right then, and the client, back, found no
// session and exited 1.
func TestRemoteExitCodeOutlivesAnUnnoticedDeadLink(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:x", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	endBehindADeadLink(t, e, h, a, func(ls string) bool { return !strings.Contains(ls, "running") })
	// Seen: collected, as a local attach collects it.
	if r := e.wrIn("", e.with("WR_SOCKET="+h.sockets["dev"]), "has", "x"); r.code != 1 {
		t.Fatalf("wr has x after the code was shown: exit %d, want 1", r.code)
	}
}

// A client over ssh still confirms the code after the server there was
// upgraded: the hand-off used to drop that, and a session ending behind a
// dead link was removed again.
func TestRemoteExitCodeOutlivesADeadLinkAfterAnUpgrade(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:x", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	if r := e.wrIn("", e.with("WR_SOCKET="+h.sockets["dev"]), "server", "upgrade"); r.code != 0 {
		t.Fatalf("wr server upgrade there: exit %d, stderr %q", r.code, r.stderr)
	}
	a.send("echo still-$((6*7))\r")
	a.expect("still-42")
	endBehindADeadLink(t, e, h, a, func(ls string) bool { return strings.Contains(ls, "exited 9") })
}

// Over a live link the code is confirmed at once: the attach exits with
// it, and by then the session is collected, as a local attach leaves it,
// both for a session that ends while attached and for one that had ended.
func TestRemoteAttachCollectsTheCodeItShows(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	there := e.with("WR_SOCKET=" + h.sockets["dev"])
	a := h.term(80, 24, "attach", "dev:live", "--", "sh", "-c", "read x; exit 7")
	e.eventually("the session to start", func() bool { return e.wrIn("", there, "has", "live").code == 0 })
	a.send("\r")
	if code := a.wait(); code != 7 {
		t.Fatalf("exit %d, want 7", code)
	}
	if r := e.wrIn("", there, "has", "live"); r.code != 1 {
		t.Fatalf("wr has live after its attach showed the code: exit %d, want 1", r.code)
	}

	h.mustWr("new", "-d", "dev:done", "--", "sh", "-c", "exit 5")
	e.eventually("the session to exit", func() bool {
		return strings.Contains(e.wrIn("", there, "ls").stdout, "exited 5")
	})
	b := h.term(80, 24, "attach", "dev:done")
	if code := b.wait(); code != 5 {
		t.Fatalf("attach to the exited session: exit %d, want 5", code)
	}
	if r := e.wrIn("", there, "has", "done"); r.code != 1 {
		t.Fatalf("wr has done after its attach showed the code: exit %d, want 1", r.code)
	}
}

// A reconnection follows the session through a rename: it attaches by the
// name the session has now, so another session that took the old name is
// never shown, nor typed into.
func TestRemoteReconnectAfterRename(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:old", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	h.mustWr("rename", "dev:old", "new")
	// Output after the rename reaches the client after its Renamed frame.
	a.send("echo renamed-$((6*7))\r")
	a.expect("renamed-42")
	h.mustWr("new", "-d", "dev:old", "--", "sh", "-c", "echo IMPOSTOR; exec sleep 1000")
	e.eventually("the impostor's output", func() bool { return strings.Contains(h.mustWr("capture", "dev:old"), "IMPOSTOR") })
	pid := sshChild(t, a.cmd.Process.Pid)
	if pid == 0 {
		t.Fatal("no ssh below the client")
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	a.expect("link to dev ")
	a.expect("\x1b[2K\x1b8") // the status line erased (not redrawn): reconnected
	a.send("echo typed-$((6*7))\r")
	a.expect("typed-42")
	h.stableCaptureOf("dev:new", "typed-42")
	if got := h.mustWr("capture", "dev:old"); strings.Contains(got, "typed") {
		t.Fatalf("the keys reached the session that took the old name: %q", got)
	}
	if strings.Contains(string(a.output()), "IMPOSTOR") {
		t.Fatal("the client showed the session that took the old name")
	}
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach: exit %d", code)
	}
	a.expect("[detached from dev:new]")
}

// A session killed while its client's link was down, its name taken by
// another: the client gets its link back but never attaches to the other
// session; it says so and exits 1.
func TestRemoteReconnectReplaced(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:k", "--", "sh")
	a.send("echo up-$((6*7))\r")
	a.expect("up-42")
	h.dropLink(t, a)
	dev := e.with("WR_SOCKET=" + h.sockets["dev"])
	if r := e.wrIn("", dev, "kill", "k"); r.code != 0 {
		t.Fatalf("kill k: exit %d, %q", r.code, r.stderr)
	}
	if r := e.wrIn("", dev, "new", "-d", "k", "--", "sh", "-c", "echo IMPOSTOR; exec sleep 1000"); r.code != 0 {
		t.Fatalf("new k: exit %d, %q", r.code, r.stderr)
	}
	e.eventually("the impostor's output", func() bool { return strings.Contains(e.wrIn("", dev, "capture", "k").stdout, "IMPOSTOR") })
	h.listen(t)
	if code := a.wait(); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	a.expect("wr: dev:k is gone (the session now called that is another one)")
	if strings.Contains(string(a.output()), "IMPOSTOR") {
		t.Fatal("the client showed the session that took the name")
	}
	if r := e.wrIn("", dev, "has", "k"); r.code != 0 {
		t.Fatalf("the other session did not survive the refused attach: exit %d", r.code)
	}
}

// A read-only remote client watches and never types, as a local one.
func TestRemoteReadOnly(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:ro", "--", "sh")
	a.send("echo one-$((6*7))\r")
	a.expect("one-42")
	ro := h.term(100, 30, "attach", "-r", "dev:ro")
	ro.expect("one-42")
	ro.send("echo typed-by-the-watcher\r")
	a.send("echo two-$((6*7))\r")
	ro.expect("two-42")
	if strings.Contains(h.mustWr("capture", "dev:ro"), "typed-by-the-watcher") {
		t.Fatal("the read-only client's keys reached the session")
	}
	var l []sessionInfo
	_ = json.Unmarshal([]byte(h.mustWr("ls", "--json", "dev:")), &l)
	if len(l) != 1 || l[0].Cols != 80 || l[0].Rows != 24 {
		t.Fatalf("the read-only client took the size: %+v", l)
	}
	ro.send("\x1c")
	if code := ro.wait(); code != 0 {
		t.Fatalf("read-only detach: exit %d", code)
	}
}

// Attaching, through ssh, to the session this terminal runs in would show
// the session inside itself: refused, as a local attach is.
func TestRemoteAttachToItself(t *testing.T) {
	e := newEnv(t)
	h := newSSHHost(t, e)
	a := h.term(80, 24, "attach", "dev:in", "--", "sh")
	a.send("WR_SSH='ssh -F " + h.config + "' " + wrBin + " attach dev:in; echo code-$?-done\r")
	a.expect("would loop")
	a.expect("code-1-done")
}

// WR_REMOTE is a path on the remote, never an option to the local ssh:
// ssh reads options again after the host, and a WR_REMOTE of
// -oProxyCommand=PROGRAM ran PROGRAM on this machine.
func TestRemoteWrIsNotAnSSHOption(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh")
	}
	e := newEnv(t)
	marker := filepath.Join(e.dir, "ran-here")
	prog := filepath.Join(e.dir, "proxy")
	writeFile(t, prog, "#!/bin/sh\ntouch "+marker+"\n", 0o755)
	r := e.wrIn("", e.with("WR_REMOTE=-oProxyCommand="+prog), "ls", "nosuchhost.invalid:")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("WR_REMOTE ran %s on this machine as ssh's ProxyCommand", prog)
	}
	if r.code == 0 || !strings.Contains(r.stderr, "WR_REMOTE") {
		t.Errorf("wr ls with WR_REMOTE starting with a dash: exit %d, stderr %q; want a refusal naming WR_REMOTE", r.code, r.stderr)
	}
}
