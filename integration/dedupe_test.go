//go:build linux

package integration

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"wr/screen"
)

// shellTerm runs script with sh on a new PTY of the given size, like a
// terminal tab whose shell runs it: every wr it starts ("$WR") draws on
// that one terminal.
func (e *env) shellTerm(cols, rows int, script string) *term {
	e.t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = e.with("WR=" + wrBin)
	cmd.Dir = e.dir
	return e.startTerm(cmd, cols, rows)
}

var numberLine = regexp.MustCompile(`^[0-9]+$`)

// numbersShown feeds a terminal's output to a terminal model with a long
// scrollback and counts, for each line that is only a number, how many
// times the terminal holds it (scrollback and screen).
func numbersShown(cols, rows int, out []byte) map[string]int {
	m := screen.New(cols, rows, 100000)
	m.Write(out)
	seen := map[string]int{}
	for _, l := range strings.Split(string(m.AppendText(nil, screen.TextOptions{Scrollback: true})), "\n") {
		if numberLine.MatchString(l) {
			seen[l]++
		}
	}
	return seen
}

// screenShown is what the terminal's screen shows after its output.
func screenShown(cols, rows int, out []byte) string {
	m := screen.New(cols, rows, 100000)
	m.Write(out)
	return string(m.AppendText(nil, screen.TextOptions{}))
}

// Reattaching from a terminal that was shown the scrollback draws only what
// scrolled off since: after three attaches from one terminal, with output
// while it was detached and while it watched, its history holds each line
// once. A new terminal gets the whole scrollback; --restore screen (and
// WR_RESTORE=screen) none of it.
func TestReattachScrollbackOnce(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "s")
	e.stableCapture("s", strings.TrimSpace(prompt))
	batch := func(from, to int, tag string) { t.Helper(); e.printBatch("s", from, to, tag) }
	want := func(to int) map[string]int {
		m := map[string]int{}
		for i := 1; i <= to; i++ {
			m[fmt.Sprint(i)] = 1
		}
		return m
	}
	check := func(who string, got, want map[string]int) {
		t.Helper()
		var bad []string
		for n, c := range want {
			if got[n] != c {
				bad = append(bad, fmt.Sprintf("%s: %d times", n, got[n]))
			}
		}
		for n, c := range got {
			if _, ok := want[n]; !ok {
				bad = append(bad, fmt.Sprintf("%s: %d times, want none", n, c))
			}
		}
		if len(bad) > 0 {
			if len(bad) > 10 {
				bad = append(bad[:10], fmt.Sprintf("and %d more", len(bad)-10))
			}
			t.Errorf("%s: lines not shown exactly as often as wanted: %s", who, strings.Join(bad, ", "))
		}
	}

	batch(1, 100, "A")
	tab := e.shellTerm(80, 24, `"$WR" attach s; read x; "$WR" attach s; read x; "$WR" attach s`)
	attached := func() {
		t.Helper()
		tab.expect(prompt)
		tab.settled()
	}
	detach := func() {
		t.Helper()
		tab.send("\x1c")
		tab.expect("[detached from s]")
	}

	attached()
	batch(101, 200, "B") // scrolls by while the tab watches
	tab.expect("B-42")
	tab.settled()
	detach()
	batch(201, 300, "C") // while it is away
	tab.send("\r")
	attached()
	detach()
	batch(301, 400, "D")
	tab.send("\r")
	attached()
	detach()
	if code := tab.wait(); code != 0 {
		t.Fatalf("the tab's shell exited %d", code)
	}
	check("the same terminal, three attaches", numbersShown(80, 24, tab.output()), want(400))

	// Another terminal has been shown nothing: it gets all of it.
	other := e.term(80, 24, "attach", "s")
	other.expect(prompt)
	other.settled()
	check("a new terminal", numbersShown(80, 24, other.output()), want(400))
	other.send("\x1c")
	other.wait()

	// --restore screen: the screen, no scrollback.
	for _, tc := range []struct {
		name string
		vars []string
		args []string
	}{
		{"--restore screen", e.vars, []string{"attach", "--restore", "screen", "s"}},
		{"WR_RESTORE=screen", e.with("WR_RESTORE=screen"), []string{"attach", "s"}},
	} {
		tm := e.termEnv(80, 24, tc.vars, tc.args...)
		e.eventually(tc.name+" to show the screen", func() bool {
			return strings.Contains(screenShown(80, 24, tm.output()), strings.TrimSpace(prompt))
		})
		tm.settled()
		check(tc.name, numbersShown(80, 24, tm.output()), nil)
		tm.send("\x1c")
		if code := tm.wait(); code != 0 {
			t.Errorf("%s: exit %d", tc.name, code)
		}
	}
}

// printBatch has session name print from..to, then a screenful of blank
// lines, so that the session's screen holds no number when a terminal
// leaves it (the terminal's own shell scrolls the top rows of what it
// shows into its history when it prints the detach notice), and a marker;
// it returns once the marker is in the scrollback and the prompt is back.
func (e *env) printBatch(name string, from, to int, tag string) {
	e.t.Helper()
	e.mustWr("send", "--enter", name, fmt.Sprintf(`seq %d %d; echo %s-$((6*7)); printf '%%.0s\n' $(seq 24)`, from, to, tag))
	e.eventually("batch "+tag, func() bool {
		return strings.Contains(e.wr("capture", "--scrollback", name).stdout, tag+"-42")
	})
	e.stableCapture(name, strings.TrimSpace(prompt))
}
