//go:build linux

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Item 9: invalid names are refused with the rule, exit 2, before anything
// is started.
func TestInvalidNames(t *testing.T) {
	e := newEnv(t)
	bad := []string{"", strings.Repeat("a", 65), "../x", "-x", "a b", ".hidden", "a/b", "caf\u00e9"}
	for _, name := range bad {
		for _, cmd := range [][]string{
			{"attach", "--", name},
			{"new", "-d", "--", name},
			{"kill", "--", name},
			{"wait", "--", name},
			{"send", "--", name, "x"},
			{"env", "--", name},
		} {
			r := e.wr(cmd...)
			if r.code != 2 || !strings.Contains(r.stderr, "names are 1-64 characters of A-Z a-z 0-9 . _ -") {
				t.Errorf("wr %q: exit %d stderr %q, want 2 and the naming rule", cmd, r.code, r.stderr)
			}
		}
	}
	if r := e.wr("attach", strings.Repeat("a", 64)+"x"); r.code != 2 {
		t.Errorf("65-character name: exit %d", r.code)
	}
	if r := e.wr("server", "status"); r.code != 1 {
		t.Fatalf("a refused name started a server: %+v", r)
	}
}

// Item 9: --no-create on a missing session fails with a message, with and
// without a server.
func TestAttachNoCreate(t *testing.T) {
	e := newEnv(t)
	tm := e.term(80, 24, "attach", "--no-create", "missing")
	if code := tm.wait(); code != 1 {
		t.Fatalf("no server: exit %d, want 1", code)
	}
	tm.expect("no session named missing")
	if r := e.wr("server", "status"); r.code != 1 {
		t.Fatalf("--no-create started a server")
	}

	e.mustWr("new", "-d", "other")
	tm = e.term(80, 24, "attach", "--no-create", "missing")
	if code := tm.wait(); code != 1 {
		t.Fatalf("with a server: exit %d, want 1", code)
	}
	tm.expect("wr: no session named missing")
}

// Usage errors exit 2.
func TestUsageErrors(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"attach"},
		{"attach", "--bogus", "x"},
		{"nosuchcommand"},
		{"attach", "x", "extra"},
		{"attach", "--detach-key", "meta-x", "x"},
		{"attach", "--detach-key", "ctrl-[", "x"},
		{"wait"},
		// A negative duration or count was taken as none, or as the default.
		{"wait", "--timeout", "-1s", "x"},
		{"send", "x", "--timeout", "-1s", "hi"},
		{"new", "-d", "--keep", "-1s", "x"},
		{"new", "-d", "--scrollback", "-5", "x"},
	} {
		if r := e.wr(args...); r.code != 2 || r.stderr == "" {
			t.Errorf("wr %q: exit %d stderr %q, want 2 with a message", args, r.code, r.stderr)
		}
	}
}

// A mistyped flag of wr send before its text is a usage error that sends
// nothing: it was typed into the program as text, with exit 0. Text that
// starts with -- goes after --, and a --word once the text began is text.
func TestSendRefusesAMistypedFlag(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "s", "--", "sh", "-c", "stty -echo; cat")
	for _, args := range [][]string{
		{"send", "s", "--entre", "typed-1"},
		{"send", "s", "--keys", "Enter"},
	} {
		if r := e.wr(args...); r.code != 2 || !strings.Contains(r.stderr, "did you mean") {
			t.Errorf("wr %q: exit %d stderr %q, want 2 naming the flag", args, r.code, r.stderr)
		}
	}
	e.mustWr("send", "s", "--enter", "--", "--entre")
	e.mustWr("send", "s", "--enter", "ls", "--color")
	e.mustWr("send", "s", "--enter", "-- a comment")
	e.eventually("the text sent", func() bool {
		c := e.mustWr("capture", "s")
		return strings.Contains(c, "--entre") && strings.Contains(c, "ls --color") && strings.Contains(c, "-- a comment")
	})
	if c := e.mustWr("capture", "s"); strings.Contains(c, "typed-1") || strings.Contains(c, "--keys") {
		t.Fatalf("a refused send reached the program:\n%s", c)
	}
}

// A relative XDG_RUNTIME_DIR is ignored, as the XDG spec says: the
// socket moved with the working directory, so a cd made the sessions
// disappear.
func TestRelativeRuntimeDirIsIgnored(t *testing.T) {
	e := newEnv(t)
	vars := []string{}
	for _, v := range e.vars {
		if !strings.HasPrefix(v, "WR_SOCKET=") {
			vars = append(vars, v)
		}
	}
	vars = append(vars, "XDG_RUNTIME_DIR=rel")
	// wr server status names the socket it looked at.
	r := e.wrIn("", vars, "server", "status")
	// The default: /tmp, or the user's runtime directory where logind
	// made one (TestRuntimeDirWithoutXDG).
	def := strings.Contains(r.stdout+r.stderr, "/tmp/wr-") || strings.Contains(r.stdout+r.stderr, fmt.Sprintf("/run/user/%d/wr/", os.Getuid()))
	if !def || strings.Contains(r.stdout+r.stderr, filepath.Join(e.dir, "rel")) {
		t.Fatalf("wr server status with XDG_RUNTIME_DIR=rel: exit %d, stdout %q, stderr %q; want the /tmp default, not a path under the working directory", r.code, r.stdout, r.stderr)
	}
}

// Without $XDG_RUNTIME_DIR (a cron job), the socket is in the user's
// runtime directory when logind made one, as a login's is; a runtime
// directory others may enter is not used.
func TestRuntimeDirWithoutXDG(t *testing.T) {
	const uid = 65534 // nobody
	dir := fmt.Sprintf("/run/user/%d", uid)
	if os.Getuid() != 0 {
		t.Skip("needs root, to make a runtime directory for another user")
	}
	if _, err := os.Stat("/run/user"); err != nil {
		t.Skip("no /run/user here")
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Skipf("%s is there already", dir)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	vars := []string{"PATH=" + os.Getenv("PATH"), "HOME=/", "GORACE=atexit_sleep_ms=0"}
	for _, tc := range []struct {
		mode os.FileMode
		want string
	}{
		{0o700, dir + "/wr/default.sock"},
		{0o755, fmt.Sprintf("/tmp/wr-%d/default.sock", uid)},
	} {
		if err := os.Chmod(dir, tc.mode); err != nil {
			t.Fatal(err)
		}
		r := runAs(t, uid, vars, "server", "status")
		if !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("runtime directory %v: wr server status says %q %q; want the socket %s", tc.mode, r.stdout, r.stderr, tc.want)
		}
	}
}
