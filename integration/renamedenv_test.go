//go:build linux

package integration

import "testing"

// After a rename, a shell's WR_SESSION still says the old name, which a
// new session may have taken: wr env and the attach-loop guard go by the
// session's id, so they answer for the shell's own session.
func TestRenamedSessionKeepsItsIdentity(t *testing.T) {
	e := newEnv(t)
	tm := e.termEnv(80, 24, e.with("DISPLAY=:7"), "attach", "work")
	tm.expect(prompt)
	e.mustWr("rename", "work", "old")
	e.eventually("the rename", func() bool { _, ok := e.session("old"); return ok })
	if r := e.wrIn("", e.with("DISPLAY=:9"), "new", "-d", "work"); r.code != 0 {
		t.Fatalf("wr new -d work: exit %d %q", r.code, r.stderr)
	}
	// Inside old (its WR_SESSION says work): its own variables.
	tm.send(`echo "[$('` + wrBin + `' env)]"` + "\r")
	tm.expect("[export DISPLAY=':7'\r\nunset COLORTERM")
	// And the session now called work is another one: attaching is no loop.
	tm.send(wrBin + " attach work\r")
	e.eventually("a client inside old attached to the new work", func() bool {
		s, ok := e.session("work")
		return ok && s.Clients == 1
	})
	e.mustWr("detach", "work")
	tm.expect("[detached from work]")
}
