//go:build linux

package integration

import (
	"strings"
	"syscall"
	"testing"
)

// Item 6: wr kill NAME... and --all; unknown names fail with a message.
func TestKillNamesAndAll(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		e.mustWr("new", "-d", n)
	}
	pids := map[string]int{}
	for _, s := range e.ls() {
		pids[s.Name] = s.PID
	}
	e.mustWr("kill", "a", "b")
	var names []string
	for _, s := range e.ls() {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "c,d" {
		t.Fatalf("after kill a b: %v", names)
	}
	for _, n := range []string{"a", "b"} {
		if syscall.Kill(pids[n], 0) == nil {
			t.Errorf("the shell of %s (pid %d) still runs after wr kill returned", n, pids[n])
		}
	}
	r := e.wr("kill", "nosuch")
	if r.code != 1 || strings.TrimSpace(r.stderr) != "wr: no session named nosuch" {
		t.Fatalf("kill nosuch = %+v", r)
	}
	// An unknown name is said, and the others are killed all the same, as
	// kill(1) and rm go on: a cleanup's wr kill build test must not leave
	// test running because build was gone already. (It used to kill none.)
	r = e.wr("kill", "nosuch", "c", "c", "ghost")
	if want := "wr: no session named nosuch, no session named ghost (c ended)"; r.code != 1 || strings.TrimSpace(r.stderr) != want {
		t.Fatalf("kill nosuch c ghost = %+v, want exit 1 and %q", r, want)
	}
	if left := e.ls(); len(left) != 1 || left[0].Name != "d" {
		t.Fatalf("after kill nosuch c ghost: %+v, want d alone", left)
	}
	e.mustWr("kill", "--all")
	e.eventually("the server to exit once no session is left", func() bool {
		return e.wr("server", "status").code == 1
	})
	for _, n := range []string{"c", "d"} {
		if syscall.Kill(pids[n], 0) == nil {
			t.Errorf("the shell of %s still runs after wr kill --all", n)
		}
	}
}

func TestKillWithoutServer(t *testing.T) {
	e := newEnv(t)
	r := e.wr("kill", "ghost")
	if r.code != 1 || strings.TrimSpace(r.stderr) != "wr: no session named ghost" {
		t.Fatalf("kill ghost with no server = %+v", r)
	}
	if r := e.wr("kill", "--all"); r.code != 0 {
		t.Fatalf("kill --all with no server = %+v, want 0", r)
	}
	if r := e.wr("kill"); r.code != 2 {
		t.Fatalf("kill with no names = %+v, want usage error 2", r)
	}
}
