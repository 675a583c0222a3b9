//go:build linux

package integration

import (
	"strings"
	"testing"
)

// Idle screens share one table of default tab stops until a program sets
// or clears one: a session that clears every stop changes its own screen
// only, never one started before or after it, live or restored.
func TestTabStopsStayInTheirSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mustWr("new", "-d", "before", "--", "sh", "-c", `stty -echo; read x; printf 'm\tn-%s\n' $((6*7)); exec sleep 1000`)
	// No stops left: a tab goes to the last column.
	e.mustWr("new", "-d", "cleared", "--", "sh", "-c", `printf '\033[3ga\tb\ncleared-%s\n' $((6*7)); exec sleep 1000`)
	e.eventually("the cleared session's line", func() bool { return strings.Contains(e.mustWr("capture", "cleared"), "cleared-42") })
	if got, want := lineWith(e.mustWr("capture", "cleared"), "a "), "a"+strings.Repeat(" ", 78)+"b"; got != want {
		t.Fatalf("with every stop cleared the line is %q, want %q", got, want)
	}
	e.mustWr("new", "-d", "after", "--", "sh", "-c", `printf 'x\ty-%s\n' $((6*7)); exec sleep 1000`)
	e.eventually("the later session's line", func() bool { return strings.Contains(e.mustWr("capture", "after"), "y-42") })
	if got := lineWith(e.mustWr("capture", "after"), "y-42"); got != "x       y-42" {
		t.Fatalf("a session started after another cleared its stops shows %q, want the default stop at column 9", got)
	}
	// The session made before prints its tab only now.
	e.mustWr("send", "--enter", "before", "go")
	e.eventually("the earlier session's line", func() bool { return strings.Contains(e.mustWr("capture", "before"), "n-42") })
	if got := lineWith(e.mustWr("capture", "before"), "n-42"); got != "m       n-42" {
		t.Fatalf("a session started before another cleared its stops shows %q, want the default stop at column 9", got)
	}
	tm := e.term(80, 24, "attach", "after") // the restore draws the same
	tm.expect("x       y-42")
}

// lineWith is the line of s that holds marker, or "".
func lineWith(s, marker string) string {
	for line := range strings.Lines(s) {
		if strings.Contains(line, marker) {
			return strings.TrimRight(line, "\n")
		}
	}
	return ""
}
