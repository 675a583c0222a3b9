//go:build linux

package integration

import "testing"

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
	tm.expect("attaching to a would loop")
	tm.expect("RC=1-2")
	// Neither session was disturbed: b's shell still answers.
	tm.send("echo still-$((2+3))\r")
	tm.expect("still-5")
}
