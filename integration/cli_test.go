//go:build linux

package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"wr/wire"
)

// Item 8: help, suggestions for mistakes, flags after NAME, --socket after
// the verb, flag errors in the --name spelling, one version line.
func TestCommandLineForgives(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "sb", "--", "sh", "-c", `printf '\033[1mBOLD\033[m\n'; exec sleep 600`)
	e.eventually("BOLD", func() bool { return strings.Contains(e.mustWr("capture", "sb"), "BOLD") })

	if out := e.mustWr("help"); !strings.Contains(out, "attach") || !strings.Contains(out, "rename") || !strings.Contains(out, "completion") {
		t.Errorf("wr help lists %q; want every verb", out)
	}
	if out := e.mustWr("help", "capture"); !strings.Contains(out, "--ansi") || !strings.Contains(out, "wr capture") {
		t.Errorf("wr help capture: %q; want its flags", out)
	}
	// A verb with subcommands lists them, and each has its own page: wr
	// help server listed none, and wr help server stop showed server's.
	if out := e.mustWr("help", "server"); !strings.Contains(out, "upgrade") || !strings.Contains(out, "status") {
		t.Errorf("wr help server: %q; want its subcommands", out)
	}
	if out := e.mustWr("help", "server", "stop"); !strings.Contains(out, "wr server stop - ") {
		t.Errorf("wr help server stop: %q; want stop's page", out)
	}
	v1, v2 := e.mustWr("--version"), e.mustWr("version")
	if v1 != v2 || !strings.HasPrefix(v1, "wr ") || !strings.Contains(v1, fmt.Sprintf("protocol %d.%d", wire.ProtocolMajor, wire.ProtocolMinor)) {
		t.Errorf("wr --version %q and wr version %q: want the same line, with the protocol", v1, v2)
	}

	// Flags after NAME are taken as flags.
	if out := e.mustWr("capture", "sb", "--ansi"); !strings.Contains(out, "1mBOLD\x1b[") {
		t.Errorf("wr capture sb --ansi: %q; want the bold attribute", out)
	}
	// --socket after the verb.
	other := filepath.Join(e.dir, "other", "o.sock")
	if r := e.wr("has", "sb", "--socket", other); r.code != 1 {
		t.Errorf("wr has sb --socket OTHER: exit %d; want 1 (no server there)", r.code)
	}
	if r := e.wr("ls", "--socket="+e.socket); r.code != 0 || !strings.Contains(r.stdout, "sb") {
		t.Errorf("wr ls --socket=S: exit %d, stdout %q", r.code, r.stdout)
	}

	for _, tt := range []struct {
		args []string
		want string // in the one line of stderr
	}{
		{[]string{"lss"}, `unknown command "lss"; did you mean "ls"?`},
		{[]string{"atach", "x"}, `did you mean "attach"?`},
		{[]string{"capture", "sb", "--ansii"}, "unknown flag --ansii for wr capture; did you mean --ansi?"},
		{[]string{"ls", "--jsn"}, "did you mean --json?"},
		{[]string{"kill", "sb", "--all"}, `kill takes session names or --all, not both (got --all and "sb")`},
		{[]string{"wait", "sb", "--timeout"}, "--timeout"},
		{[]string{"send", "sb", "--timeout", "fast", "x"}, `--timeout "fast": want a DURATION`},
		{[]string{"--bogus", "ls"}, "unknown flag --bogus for wr"},
	} {
		r := e.wr(tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("wr %q: exit %d, stderr %q; want exit 2 and one line with %q", tt.args, r.code, r.stderr, tt.want)
		}
		if strings.Contains(r.stderr, " -ansii") || strings.Contains(r.stderr, "invalid session name") {
			t.Errorf("wr %q: stderr %q speaks Go's -flag or mistakes a flag for a name", tt.args, r.stderr)
		}
	}
	// Text after NAME that starts with a dash is still text for send.
	e.mustWr("new", "-d", "echo", "--", "sh", "-c", `stty raw -echo; echo READY; exec cat`)
	waitReady(e, "echo")
	e.mustWr("send", "echo", "ls", "-la", "--enter")
	e.eventually("the dashed text", func() bool { return strings.Contains(e.mustWr("capture", "echo"), "ls -la") })
}
