//go:build linux

package integration

import (
	"path/filepath"
	"testing"
)

// A inside B, then B inside A, would draw each inside the other for ever:
// the second attach is refused as the direct one (A inside A) is, and the
// shell that asked carries on.
func TestAttachLoopThroughAnotherSessionRefused(t *testing.T) {
	e := newEnv(t)
	tm := e.term(100, 30, "attach", "a")
	tm.expect(prompt)
	// Inside a: attach to b (a shows b). PS1 tells the shells apart.
	tm.send("PS1='B> ' " + wrBin + " attach b\r")
	tm.expect("B> ")
	// Inside b: attaching to a would show a inside b inside a.
	tm.send(wrBin + " attach a; echo RC=$?-$((1+1))\r")
	tm.expect("this terminal is inside session b, which is shown inside session a; attaching to a would loop")
	tm.expect("RC=1-2")
	// Neither session was disturbed: b's shell still answers.
	tm.send("echo still-$((2+3))\r")
	tm.expect("still-5")
}

// A loop may pass through a second server, which the target's server
// cannot see: a on one socket shown inside b on another, then a client
// inside b attaching to a. It is refused as a loop on one server is, and so
// is a loop that leaves a server and comes back to it (a, then x on the
// other server, then c on the first, then a again).
func TestAttachLoopThroughAnotherServerRefused(t *testing.T) {
	t.Run("two servers", func(t *testing.T) {
		e, oe := twoServers(t)
		tm := e.term(100, 30, "attach", "a")
		tm.expect(prompt)
		tm.send("PS1='B> ' " + wrBin + " --socket " + oe.socket + " attach b\r")
		tm.expect("B> ")
		oe.waitClients("b", 1)
		// Inside b (its WR_SOCKET is the other server's): attaching to a,
		// on the first server, would show a inside b inside a.
		expectLoopRefused(tm, wrBin+" --socket "+e.socket+" attach a", "a")
	})

	for _, upgrade := range []bool{false, true} {
		name := "out and back"
		if upgrade {
			name = "out and back, upgraded"
		}
		t.Run(name, func(t *testing.T) {
			e, oe := twoServers(t)
			e.mustWr("new", "-d", "c")
			tm := e.term(100, 30, "attach", "a2")
			tm.expect(prompt)
			tm.send("PS1='X> ' " + wrBin + " --socket " + oe.socket + " attach x\r")
			tm.expect("X> ")
			oe.waitClients("x", 1)
			// c is shown inside x, which is shown inside a2.
			tm.send(wrBin + " --socket " + e.socket + " attach c\r")
			e.waitClients("c", 1)
			tm.send("PS1='C> '\r")
			tm.expect("C> ")
			if upgrade {
				// The server that holds c must still know that its client
				// runs inside x on the other server.
				e.mustWr("server", "upgrade")
			}
			// Inside c, on a2's own server: that server alone sees no loop.
			expectLoopRefused(tm, wrBin+" attach a2", "a2")
		})
	}
}

// expectLoopRefused runs attach, a command line attaching to name, in the
// shell tm shows: it must be refused as a loop, exit 1, and leave the shell
// where it was.
func expectLoopRefused(tm *term, attach, name string) {
	tm.send(attach + "; echo RC=$?-$((1+1))\r")
	tm.expect("attaching to " + name + " would loop")
	tm.expect("RC=1-2")
	tm.send("echo still-$((2+3))\r")
	tm.expect("still-5")
}

// twoServers is an environment and a second one, whose server has another
// socket in the same directory (so the first's cleanup sees its processes).
func twoServers(t *testing.T) (e, oe *env) {
	e = newEnv(t)
	other := filepath.Join(e.dir, "run", "other.sock")
	oe = &env{t: t, dir: e.dir, socket: other, vars: e.with("WR_SOCKET=" + other)}
	t.Cleanup(func() { oe.wr("server", "stop") })
	return e, oe
}

// A stopped server on the way is given up, and the attach goes ahead: a
// is shown inside x, on a server that is then stopped, and a client
// inside a attaches to another session of a's server.
func TestAttachLoopWalkPassesAStoppedServer(t *testing.T) {
	e, oe := twoServers(t)
	e.mustWr("new", "-d", "other")
	tm := e.term(100, 30, "attach", "a")
	tm.expect(prompt)
	// x, on the second server, shows a: a client inside x attaches to a.
	oe.mustWr("new", "-d", "x")
	oe.mustWr("send", "x", wrBin+" --socket "+e.socket+" attach a\r")
	e.waitClients("a", 2)
	stopProcess(oe, oe.serverPID())
	tm.send(wrBin + " attach other\r")
	e.waitClients("other", 1)
	tm.send("echo inside-$((2+3))\r")
	tm.expect("inside-5")
}
