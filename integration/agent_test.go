//go:build linux

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startAgent runs an ssh-agent on its own socket holding one key whose
// comment is name, so `ssh-add -l` says which agent answered.
func startAgent(t *testing.T, e *env, name string) string {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	sock := filepath.Join(e.dir, name+".agent")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	key := filepath.Join(e.dir, name+".key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "key-of-"+name, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	e.eventually(name+"'s agent socket", func() bool { _, err := os.Stat(sock); return err == nil })
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	add := exec.CommandContext(ctx, "ssh-add", key)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v %s", err, out)
	}
	return sock
}

// A shell keeps the agent of the terminal that last attached: the
// session's SSH_AUTH_SOCK is a link the server points at the newest
// client's agent, and wr env gives the newest client's variables.
func TestAgentFollowsTheLastClient(t *testing.T) {
	e := newEnv(t)
	first := startAgent(t, e, "first")
	second := startAgent(t, e, "second")

	t1 := e.termEnv(80, 24, e.with("SSH_AUTH_SOCK="+first, "DISPLAY=:1"), "attach", "x")
	t1.expect(prompt)
	t1.send("ssh-add -l\r")
	t1.expect("key-of-first")
	t1.send("\x1c")
	t1.expect("[detached from x]")
	if code := t1.wait(); code != 0 {
		t.Fatalf("detach exited %d", code)
	}

	t2 := e.termEnv(80, 24, e.with("SSH_AUTH_SOCK="+second, "DISPLAY=:2", "FOO=it's here", "WR_UPDATE_ENV=FOO"), "attach", "x")
	t2.expect(prompt)
	t2.send("ssh-add -l\r")
	t2.expect("key-of-second")
	t2.send(`echo "agent=$SSH_AUTH_SOCK"` + "\r")
	link := filepath.Join(filepath.Dir(e.socket), "s.sock.agent-")
	t2.expect("agent=" + link)

	out := e.mustWr("env", "x")
	// The refreshed variables the client lacks are unset, so a shell
	// loses what an earlier login gave it.
	want := "export DISPLAY=':2'\nexport FOO='it'\\''s here'\nunset COLORTERM\nunset SSH_CONNECTION\nunset WAYLAND_DISPLAY\n"
	if out != want {
		t.Errorf("wr env x printed %q, want %q", out, want)
	}
	// The prompt hook, inside the session: the shell takes them.
	t2.send(`eval "$('` + wrBin + `' env)"; echo "display=$DISPLAY foo=$FOO"` + "\r")
	t2.expect("display=:2 foo=it's here")

	e.mustWr("kill", "x")
	e.eventually("the agent link to go with the session", func() bool {
		names, _ := filepath.Glob(link + "*")
		return len(names) == 0
	})
}

// A client that has none of the refreshed variables still acts: the
// session then has none, and wr env unsets what an earlier client gave.
// Such a client sent no variables at all, which the server took for a
// client too old to say, and wr env kept printing the earlier DISPLAY.
func TestEnvUnsetsWhatTheLastClientLacks(t *testing.T) {
	e := newEnv(t)
	t1 := e.termEnv(80, 24, e.with("DISPLAY=:9", "SSH_CONNECTION=1.2.3.4 5 6.7.8.9 22"), "attach", "x")
	t1.expect(prompt)
	t1.send("\x1c")
	if code := t1.wait(); code != 0 {
		t.Fatalf("detach exited %d", code)
	}
	if out := e.mustWr("env", "x"); !strings.Contains(out, "export DISPLAY=':9'") {
		t.Fatalf("wr env x after the first client: %q", out)
	}
	t2 := e.term(80, 24, "attach", "x") // none of them
	t2.expect("\x1b[?2026l")            // the restore's end: attached
	out := e.mustWr("env", "x")
	if strings.Contains(out, "export") || !strings.Contains(out, "unset DISPLAY\n") || !strings.Contains(out, "unset SSH_CONNECTION\n") {
		t.Fatalf("wr env x after a client with none of the variables printed %q, want only unset lines", out)
	}
	// The prompt hook, inside the session: the shell loses them.
	t2.send(`export DISPLAY=:9; eval "$('` + wrBin + `' env)"; echo "display=${DISPLAY-unset}"` + "\r")
	t2.expect("display=unset")
}

// Only a person's terminal refreshes the variables: a script's attach
// with no terminal (cron, CI) has its own environment, which must not
// unset the login's DISPLAY; and a name from WR_UPDATE_ENV, which the
// client may not have been asked for, is never unset.
func TestEnvIgnoresAScriptAndKeepsExtraNames(t *testing.T) {
	e := newEnv(t)
	t1 := e.termEnv(80, 24, e.with("DISPLAY=:9"), "attach", "x")
	t1.expect(prompt)
	script := exec.Command(wrBin, "attach", "--no-create", "x") // no terminal, no DISPLAY
	script.Env, script.Dir = e.vars, e.dir
	if err := script.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = script.Process.Kill(); _ = script.Wait() })
	e.waitClients("x", 2)
	out := e.wrIn("", e.with("WR_UPDATE_ENV=KRB5CCNAME"), "env", "x")
	if !strings.Contains(out.stdout, "export DISPLAY=':9'") || strings.Contains(out.stdout, "KRB5CCNAME") {
		t.Fatalf("wr env x after a script's attach printed %q, want the terminal's DISPLAY and nothing of KRB5CCNAME", out.stdout)
	}
}

// wr env outside a session needs a NAME, and names a session that exists.
func TestEnvNeedsASession(t *testing.T) {
	e := newEnv(t)
	vars := make([]string, 0, len(e.vars))
	for _, v := range e.vars {
		if !strings.HasPrefix(v, "WR_SESSION=") {
			vars = append(vars, v)
		}
	}
	if r := e.wrIn("", vars, "env"); r.code != 2 || !strings.Contains(r.stderr, "needs a session NAME") {
		t.Errorf("wr env outside a session: exit %d stderr %q", r.code, r.stderr)
	}
	if r := e.wr("env", "nosuch"); r.code != 1 || !strings.Contains(r.stderr, "no session named nosuch") {
		t.Errorf("wr env nosuch: exit %d stderr %q", r.code, r.stderr)
	}
}

// wr env --fish prints lines fish can source: fish has no unset, and its
// single quotes take a backslash as an escape, so sh's lines either failed
// or set a value with a backslash wrong.
func TestEnvForFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed")
	}
	e := newEnv(t)
	const foo = `it's a \ here`
	tm := e.termEnv(80, 24, e.with("DISPLAY=:2", "FOO="+foo, "WR_UPDATE_ENV=FOO"), "attach", "x")
	tm.expect(prompt)
	// The hook README gives, run by fish in a shell that has COLORTERM
	// from an earlier login.
	script := `function _wr_env; '` + wrBin + `' env --fish x 2>/dev/null | source; end
_wr_env
printf '%s|%s|%s\n' $DISPLAY $FOO (set -q COLORTERM; and echo set; or echo unset)`
	cmd := exec.Command(fish, "--no-config", "-c", script)
	cmd.Env, cmd.Dir = e.with("COLORTERM=truecolor"), e.dir
	out, err := cmd.CombinedOutput()
	if want := ":2|" + foo + "|unset\n"; err != nil || string(out) != want {
		t.Fatalf("fish sourcing wr env --fish: %v, printed %q, want %q (wr env --fish x printed %q)",
			err, out, want, e.mustWr("env", "--fish", "x"))
	}
}
