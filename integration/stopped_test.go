//go:build linux

package integration

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A stopped server (kill -STOP, or a ctrl-Z on `wr server run`) answers
// nothing. A verb says so at once, naming it, where it used to wait 5 s
// and then guess; an attach waits the 5 s as before and says the same.
// What a verb asked is not carried out when the server is continued: the
// client told its user it had failed.
func TestAStoppedServerIsNamed(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "kept", "--", "sleep", "1000")
	pid := e.serverPID()
	stopProcess(e, pid)
	want := fmt.Sprintf("(pid %d) is stopped, so it answers nothing; `kill -CONT %d` resumes it", pid, pid)
	for _, verb := range [][]string{{"ls"}, {"has", "kept"}, {"kill", "kept"}, {"new", "-d", "made"}} {
		r := e.wr(verb...)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("wr %s on a stopped server: exit %d, stderr %q; want 1 and %q", strings.Join(verb, " "), r.code, r.stderr, want)
		}
	}
	tm := e.term(80, 24, "attach", "kept")
	if code := tm.wait(); code != 1 {
		t.Errorf("wr attach on a stopped server: exit %d, want 1", code)
	}
	tm.expect(want)

	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Each request above waited in the listener's backlog: the server
	// reads them all once continued, and drops each.
	e.eventually("the server to drop the five requests", func() bool {
		log, _ := os.ReadFile(e.socket + ".log")
		return strings.Count(string(log), "a client had gone before its greeting was answered") >= 5
	})
	if ls := e.mustWr("ls"); !strings.Contains(ls, "kept") || strings.Contains(ls, "made") {
		t.Errorf("wr ls once continued:\n%s\nwant kept alone: the kill and the new were not carried out", ls)
	}
}
