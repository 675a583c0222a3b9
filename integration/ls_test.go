//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// Item 5: with no server, wr ls prints nothing (or []) and starts none.
func TestLsWithoutServer(t *testing.T) {
	e := newEnv(t)
	r := e.wr("ls")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("wr ls = %+v, want exit 0 and no output", r)
	}
	r = e.wr("ls", "--json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("wr ls --json = %+v, want []", r)
	}
	if _, err := os.Stat(e.socket); !os.IsNotExist(err) {
		t.Fatalf("wr ls created %s (err %v): it must not start a server", e.socket, err)
	}
	if r := e.wr("server", "status"); r.code != 1 || !strings.Contains(r.stderr, "no server running") {
		t.Fatalf("wr server status = %+v, want exit 1 'no server running'", r)
	}
}

// Item 5: the table and the JSON fields.
func TestLsTableAndJSON(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "beta", "--", "sleep", "100")
	tm := e.term(90, 20, "attach", "alpha")
	tm.expect(prompt)

	out := e.mustWr("ls")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("wr ls printed %q, want a header and two rows", out)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "NAME STATUS PID CLIENTS SIZE CREATED COMMAND" {
		t.Fatalf("header %q", lines[0])
	}
	alpha := strings.Fields(lines[1])
	if alpha[0] != "alpha" || alpha[1] != "running" || alpha[3] != "1" || alpha[4] != "90x20" || alpha[len(alpha)-1] != "/bin/sh" {
		t.Fatalf("row %q, want alpha running with 1 client at 90x20 running /bin/sh", lines[1])
	}
	beta := strings.Fields(lines[2])
	if beta[0] != "beta" || beta[1] != "running" || beta[3] != "0" || beta[len(beta)-2] != "sleep" {
		t.Fatalf("row %q", lines[2])
	}

	raw := e.mustWr("ls", "--json")
	var generic []map[string]any
	if err := json.Unmarshal([]byte(raw), &generic); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "pid", "clients", "cols", "rows", "created", "command", "cwd"} {
		if _, ok := generic[0][k]; !ok {
			t.Errorf("wr ls --json lacks %q: %s", k, raw)
		}
	}
	ss := e.ls()
	if ss[0].Name != "alpha" || ss[0].Clients != 1 || ss[0].Cols != 90 || ss[0].Rows != 20 || ss[0].Cwd != e.dir || ss[0].PID <= 0 {
		t.Errorf("alpha = %+v", ss[0])
	}
	if created, err := time.Parse(time.RFC3339, ss[0].Created); err != nil || time.Since(created) > time.Hour {
		t.Errorf("created %q is not a recent RFC 3339 time (%v)", ss[0].Created, err)
	}
	if strings.Join(ss[1].Command, " ") != "sleep 100" {
		t.Errorf("beta command %q", ss[1].Command)
	}
	tm.send("exit\r")
	tm.wait()
}

// A command's control characters are escaped in the table: a sh -c
// script of several lines kept one session to a line, and its escape
// sequences reached the terminal that listed it, as did a right-to-left
// override, which reversed the columns after it. --json keeps it exact.
func TestLsEscapesControlsInTheCommand(t *testing.T) {
	e := newEnv(t)
	script := "sleep 600\n#\x1b]0;pwned\a\x1b[2J tail \u202eright-to-left"
	e.mustWr("new", "-d", "evil", "--", "sh", "-c", script)
	ls := e.mustWr("ls")
	if lines := strings.Split(strings.TrimSuffix(ls, "\n"), "\n"); len(lines) != 2 {
		t.Fatalf("wr ls shows %d lines for one session:\n%s", len(lines), ls)
	}
	if strings.ContainsAny(ls, "\x1b\a\u202e") || !strings.Contains(ls, `sh -c sleep 600\n#\e]0;pwned\x07\e[2J tail \u202eright-to-left`) {
		t.Fatalf("wr ls shows the command as %q", ls)
	}
	if js := e.mustWr("ls", "--json"); !strings.Contains(js, `"sleep 600\n#\u001b]0;pwned\u0007\u001b[2J tail `+"\u202e"+`right-to-left"`) {
		t.Fatalf("wr ls --json: %s", js)
	}
}

// A list of sessions longer than one frame holds (1 MiB) is read whole,
// in pages: wr ls failed with "reply too large", and wr has said a session
// that existed did not.
func TestLsListsMoreThanAFrameHolds(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("x", 120_000)
	const n = 12 // 12 commands of 120 kB: 1.4 MB of JSON
	for i := range n {
		e.mustWr("new", "-d", fmt.Sprintf("b%02d", i), "--", "sh", "-c", "exec sleep 1000", long)
	}
	if got := len(e.ls()); got != n {
		t.Fatalf("wr ls --json lists %d sessions, want %d", got, n)
	}
	if out := e.mustWr("ls"); strings.Count(out, "\n") != n+1 {
		t.Fatalf("wr ls printed %d lines, want a header and %d sessions", strings.Count(out, "\n"), n)
	}
	if r := e.wr("has", "b07"); r.code != 0 {
		t.Fatalf("wr has b07: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.wr("has", "nosuch"); r.code != 1 || r.stderr != "" {
		t.Fatalf("wr has nosuch: exit %d, stderr %q; want 1 and nothing said", r.code, r.stderr)
	}
}
