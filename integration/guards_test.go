//go:build linux

package integration

import (
	"strings"
	"testing"
)

// A read-only attach to a session that does not exist refuses, instead of
// creating a session nobody can type in.
func TestReadOnlyAttachDoesNotCreate(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"attach", "-r", "ghost"}, {"attach", "--read-only", "ghost"}} {
		r := e.wr(args...)
		if r.code != 1 || !strings.Contains(r.stderr, "no session named ghost") {
			t.Errorf("wr %v: exit %d stderr %q, want 1 and no session named ghost", args, r.code, r.stderr)
		}
	}
	if _, ok := e.session("ghost"); ok {
		t.Fatal("a read-only attach created the session")
	}
}

// wr attach NAME -- CMD for a session that exists attaches to it and says
// that CMD was not run.
func TestAttachToExistingSaysCommandIgnored(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x")
	tm := e.term(80, 24, "attach", "x", "--", "echo", "hi")
	tm.expect("PROMPT>") // restored: trailing spaces are not drawn
	tm.send("\x1c")
	tm.expect("[detached from x]")
	tm.expect(`wr: session x already existed, so "echo hi" was not run`)
	if code := tm.wait(); code != 0 {
		t.Fatalf("detach exited %d", code)
	}
}
