//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"

	"wr/screen"
)

// trimScreen drops trailing spaces on each line and trailing empty lines,
// as wr capture does, so screens from different sources compare.
func trimScreen(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// vtScreen renders what a terminal shows after the given output, using
// x/vt (an emulator that is not wr's own) as the terminal.
func vtScreen(cols, rows int, out []byte) string {
	e := vt.NewEmulator(cols, rows)
	// Drain its answers to queries. The emulator is not closed: its Close
	// races with Read (inside x/vt), so this goroutine stays parked, which
	// is why callers render a settled output once rather than poll.
	go func() { _, _ = io.Copy(io.Discard, e) }()
	_, _ = e.Write(out)
	var b strings.Builder
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			c := e.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.Content == "":
				// the second column of a wide character
			default:
				b.WriteString(c.Content)
			}
		}
		b.WriteByte('\n')
	}
	return trimScreen(b.String())
}

// stableCapture waits until wr capture shows want and stays the same
// across two reads, and returns it.
func (e *env) stableCapture(name, want string) string {
	e.t.Helper()
	var prev, cur string
	e.eventually("the screen of "+name+" to settle showing "+want, func() bool {
		r := e.wr("capture", name) // the session may not exist yet
		prev, cur = cur, r.stdout
		return r.code == 0 && strings.Contains(cur, want) && cur == prev
	})
	return cur
}

// Reattaching shows the screen as it was before the detach: the restored
// screen, as a terminal (x/vt) draws it, equals wr capture.
func TestReattachRestoresScreen(t *testing.T) {
	file := filepath.Join(suiteRoot, "restore-sample.txt")
	var sample bytes.Buffer
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&sample, "line %02d of the sample, with some words to wrap and show\n", i)
	}
	if err := os.WriteFile(file, sample.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name  string
		argv  []string
		want  string // on the screen once the program has drawn
		needs string // a program that must be installed
	}
	cases := []tc{
		{"vim", []string{"vim", "-u", "NONE", "-i", "NONE", "-N", "+20", file}, "line 20 of", "vim"},
		{"less", []string{"less", "-R", file}, "line 01 of", "less"},
		{"coloured ls", []string{"sh", "-c", "ls --color=always -l /usr/bin | head -40; echo LS-$((6*7)); exec sleep 1000"}, "LS-42", "ls"},
		{"alternate screen", []string{"sh", "-c", `printf 'primary text\n\033[?1049h\033[2J\033[3;5H\033[1;33mALT\033[0m SCREEN\033[10;1Hbottom'; exec sleep 1000`}, "ALT SCREEN", "sh"},
		{"shell prompt", []string{"sh", "-c", `printf 'history %s\n' 1 2 3 4 5; exec sh -i`}, strings.TrimSpace(prompt), "sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.needs); err != nil {
				t.Skipf("%s is not installed", c.needs)
			}
			t.Parallel()
			e := newEnv(t)
			a := e.term(80, 24, append([]string{"attach", "r", "--"}, c.argv...)...)
			before := e.stableCapture("r", c.want)
			a.send("\x1c")
			if code := a.wait(); code != 0 {
				t.Fatalf("detach exit %d", code)
			}
			b := e.term(80, 24, "attach", "r")
			var shown string
			deadline := time.Now().Add(timeout)
			for {
				b.settled()
				shown = vtScreen(80, 24, b.output())
				if shown == trimScreen(before) || time.Now().After(deadline) {
					break
				}
			}
			if shown != trimScreen(before) {
				t.Fatalf("after reattach the terminal shows:\n%s\n--- but wr capture before the detach was:\n%s", shown, before)
			}
			if after := e.mustWr("capture", "r"); after != before {
				t.Fatalf("reattaching changed the screen:\n%s\n--- was:\n%s", after, before)
			}
		})
	}
}

// The same bytes through a tmux pane and a wr session of the same size give
// the same screen text.
func TestCaptureMatchesTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	e := newEnv(t)
	stream := filepath.Join(e.dir, "stream")
	var s bytes.Buffer
	ls, _ := exec.Command("sh", "-c", "ls --color=always -l /usr/bin | head -60").Output()
	s.Write(bytes.ReplaceAll(ls, []byte("\n"), []byte("\r\n")))
	s.WriteString("\x1b[5;10Hover\x1b[K written\x1b[12;3H\x1b[1;31mred\x1b[0m\x1b[2Ainserted\x1b[3@!\x1b[20;1H\x1b[2Kwide 日本語 chars\r\n")
	s.WriteString("tab\tstop\tcolumns\r\n\x1b[?7l" + strings.Repeat("nowrap ", 20) + "\x1b[?7h\r\nend")
	if err := os.WriteFile(stream, s.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "stty raw -echo; cat " + stream + "; exec sleep 1000"

	conf := filepath.Join(e.dir, "tmux.conf")
	_ = os.WriteFile(conf, []byte("set -g status off\n"), 0o644)
	sock := filepath.Join(e.dir, "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", conf}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "80", "-y", "24", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	e.mustWr("new", "-d", "x", "--", "sh", "-c", script)

	got := e.stableCapture("x", "end")
	var want, prev string
	e.eventually("tmux to show the stream", func() bool {
		prev, want = want, tmux("capture-pane", "-p")
		return strings.Contains(want, "end") && want == prev
	})
	if trimScreen(got) != trimScreen(want) {
		t.Fatalf("wr capture:\n%s\n--- tmux capture-pane -p:\n%s", got, want)
	}
}

// wr capture: text, --ansi, --scrollback, and an unknown session.
func TestCapture(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "--scrollback", "50", "c", "--", "sh", "-c",
		`i=1; while [ $i -le 100 ]; do echo "row $i"; i=$((i+1)); done; printf '\033[1;32mgreen\033[0m   \n'; exec sleep 1000`)
	plain := e.stableCapture("c", "green")
	if !strings.Contains(plain, "green\n") || strings.Contains(plain, "\x1b") || strings.Contains(plain, "green   ") {
		t.Fatalf("capture %q: want plain text, trailing spaces trimmed", plain)
	}
	if n := strings.Count(plain, "\n"); n > 24 {
		t.Fatalf("capture printed %d lines for a 24-row screen", n)
	}
	ansi := e.mustWr("capture", "--ansi", "c")
	if !regexp.MustCompile(`\x1b\[[0-9;]*32[0-9;]*mgreen`).MatchString(ansi) {
		t.Fatalf("capture --ansi %q lacks the green SGR", ansi)
	}
	all := e.mustWr("capture", "--scrollback", "c")
	if !strings.Contains(all, "row 60\n") || strings.Contains(all, "row 20\n") {
		t.Fatalf("capture --scrollback should keep the last 50 lines of scrollback (row 27 on): %q", all)
	}
	if r := e.wr("capture", "nosuch"); r.code != 1 || !strings.Contains(r.stderr, "no session named nosuch") {
		t.Fatalf("capture of an unknown session = %+v", r)
	}
}

// --scrollback 0 keeps no scrollback, as tmux's history-limit 0 does (it
// was taken as the default, 2000), and an upgrade keeps it so.
func TestScrollbackZeroKeepsNone(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "--scrollback", "0", "z", "--", "sh", "-c",
		`i=1; while [ $i -le 100 ]; do echo "row $i"; i=$((i+1)); done; echo done; exec sleep 1000`)
	e.stableCapture("z", "done")
	check := func(when string) {
		all, screen := e.mustWr("capture", "--scrollback", "z"), e.mustWr("capture", "z")
		if all != screen || !strings.Contains(all, "row 100\n") {
			t.Fatalf("%s: capture --scrollback of a session with --scrollback 0:\n%s\nwant the screen alone:\n%s", when, all, screen)
		}
	}
	check("before an upgrade")
	e.mustWr("server", "upgrade")
	// sleep does not read: the terminal's echo of the line scrolls the
	// screen, which would push a line into any scrollback.
	e.mustWr("send", "z", "--enter", "mark")
	e.stableCapture("z", "mark")
	check("after an upgrade")
}

// With nobody attached the server answers the program's DA1 and cursor
// position queries itself; with a client attached it leaves that to the
// client's terminal.
func TestQueriesAnsweredWhenDetached(t *testing.T) {
	e := newEnv(t)
	out := filepath.Join(e.dir, "answers")
	app := fmt.Sprintf(`stty raw -echo min 0 time 10; printf 'x\033[6n\033[c'; cat > %s.tmp; mv %s.tmp %s; exec sleep 1000`, out, out, out)
	e.mustWr("new", "-d", "q", "--", "sh", "-c", app)
	var got []byte
	e.eventually("the program to collect its answers", func() bool {
		b, err := os.ReadFile(out)
		got = b
		return err == nil
	})
	if !regexp.MustCompile(`^\x1b\[1;2R\x1b\[\?[0-9;]+c$`).Match(got) {
		t.Fatalf("detached program got %q, want a CPR for row 1 col 2 and a DA1 answer", got)
	}

	// Attached: the client's terminal answers (this one does not), so the
	// server must not.
	out2 := out + "2"
	app2 := fmt.Sprintf(`stty raw -echo min 0 time 10; read go; printf '\033[6n\033[c'; cat > %s.tmp; mv %s.tmp %s; echo COLLECTED; exec sleep 1000`, out2, out2, out2)
	tm := e.term(80, 24, "attach", "q2", "--", "sh", "-c", app2)
	tm.send("\r")
	tm.expect("COLLECTED")
	if b, _ := os.ReadFile(out2); len(b) != 0 {
		t.Fatalf("with a client attached the server answered: %q", b)
	}
}

// reattachAt20x6 sizes session c at 20x6 with a first client, which waits
// for READY, does meanwhile (if any) and detaches; then attaches again at
// that size and returns the new client once its restore has ended.
func reattachAt20x6(e *env, meanwhile func()) *term {
	e.t.Helper()
	first := e.term(20, 6, "attach", "c")
	first.expect("READY")
	e.requireSize("c", 20, 6, "the first client attached")
	if meanwhile != nil {
		meanwhile()
	}
	first.send("\x1c")
	if code := first.wait(); code != 0 {
		e.t.Fatalf("detach: exit code %d", code)
	}
	tm := e.term(20, 6, "attach", "c") // the restore
	tm.expect("READY")
	tm.expect("\x1b[?2026l") // the restore's end
	return tm
}

// handedOffAt20x8 attaches an owner at 20x6 to session c, which shows
// READY, and a client at 20x8, drawn from the model; the owner detaches,
// and the drawn client, left alone, takes the size and is handed the
// program's bytes: the hand-off is returned having arrived.
func handedOffAt20x8(e *env) *term {
	e.t.Helper()
	owner := e.term(20, 6, "attach", "c")
	owner.expect("READY")
	e.requireSize("c", 20, 6, "the first client attached")
	drawn := e.term(20, 8, "attach", "c") // another size: drawn from the model
	drawn.expect("READY")
	owner.send("\x1c")
	if code := owner.wait(); code != 0 {
		e.t.Fatalf("detach: exit code %d", code)
	}
	e.requireSize("c", 20, 8, "the drawn client left alone")
	// The hand-off, at the client's next frame, ends with the modes a
	// restore's prefix sets (without its `CSI > 4 ; 0 m`: a view keeps
	// modifyOtherKeys as the program set it).
	drawn.expect("\x1b[4;20l\x1b>")
	return drawn
}

// A line that wraps into a coloured background is one line in a restore
// too: a terminal that reflows on a resize (as kitty, foot and wr's own
// model do) joins it again at the new width. The restore used to end it
// with CRLF, and the terminal kept two lines where the session has one.
func TestARestoredLineWrappedIntoAColourReflowsAsOne(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "c", "--", "sh", "-c",
		`stty -echo; printf READY; read x; printf '\r\n\033[44m%s\033[m\r\n' 0123456789abcdefghijklmnopqrstuvwxyz; exec sleep 1000`)
	tm := reattachAt20x6(e, func() {
		e.mustWr("send", "c", "--key", "Enter")
		e.eventually("the line to wrap", func() bool { return captureRow(e, "c", 2) == "klmnopqrstuvwxyz" })
	})
	tm.resize(40, 6)
	e.eventually("the session to be 40 columns wide", func() bool {
		s, _ := e.session("c")
		return s.Cols == 40
	})
	want := "0123456789abcdefghijklmnopqrstuvwxyz"
	if got := captureRow(e, "c", 1); got != want {
		t.Fatalf("wr capture's second row is %q after the resize", got)
	}
	// The client's terminal: what it was sent, at 20 columns, then
	// widened as a reflowing terminal widens.
	s := screen.New(20, 6, 0)
	_, _ = s.Write(tm.output())
	s.Resize(40, 6)
	if got := rowsOf(s, 6)[1]; got != want {
		t.Fatalf("the client's terminal shows %+q at 40 columns, want %+q", got, want)
	}
}

// TestARestoredSavedCursorKeepsItsPendingWrap: a program saves the cursor
// (DECSC) just after printing into the last column, where the wrap is
// pending, and restores it (DECRC) after a client has reattached. Its next
// character starts the next line, as in xterm, which saves the pending wrap
// with the cursor. The restore used to save the cursor without it: the
// client's terminal then wrote that character over the last column.
func TestARestoredSavedCursorKeepsItsPendingWrap(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "c", "--", "sh", "-c",
		`stty -echo; printf '\033[H\033[2J0123456789abcdefghij\0337\033[4;1HREADY'; read x; printf '\0338Z'; exec sleep 1000`)
	tm := reattachAt20x6(e, nil)
	e.mustWr("send", "c", "--key", "Enter")
	tm.expect("\x1b8Z")
	if got := captureRow(e, "c", 1); got != "Z" {
		t.Fatalf("wr capture's second row is %q, want the Z", got)
	}
	// The client's terminal, fed what it was sent.
	s := screen.New(20, 6, 0)
	_, _ = s.Write(tm.output())
	if got := rowsOf(s, 6)[:2]; got[0] != "0123456789abcdefghij" || got[1] != "Z" {
		t.Fatalf("the client's terminal shows %+q, want the Z on the second row", got)
	}
}

// TestAHandedOffSavedCursorKeepsItsPendingWrap: as above, for a client of
// another size that becomes the owner when the owner leaves: the state it
// is handed (section 5 of docs/design.md) saves the cursor with its wrap
// pending too.
func TestAHandedOffSavedCursorKeepsItsPendingWrap(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "c", "--", "sh", "-c",
		`stty -echo; printf '\033[H\033[2J0123456789abcdefghij\0337\033[4;1HREADY'; read x; printf '\0338Z'; exec sleep 1000`)
	drawn := handedOffAt20x8(e)

	e.mustWr("send", "c", "--key", "Enter")
	drawn.expect("\x1b8Z")
	s := screen.New(20, 8, 0)
	_, _ = s.Write(drawn.output())
	if got := rowsOf(s, 8)[:2]; got[0] != "0123456789abcdefghij" || got[1] != "Z" {
		t.Fatalf("the client's terminal shows %+q, want the Z on the second row", got)
	}
}

// TestAnUpgradeKeepsTheAlternateScreensBackground: a program enters the
// alternate screen with a coloured pen (?1049h clears it with that
// background, and saves the pen), then resets the pen and clears it again.
// An upgrade hands the screen over as a restore, whose ?1049h cleared it
// with the saved pen's background: every blank row came out blue.
func TestAnUpgradeKeepsTheAlternateScreensBackground(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "bce", "--", "sh", "-c", `printf '\033[44m\033[?1049h\033[m\033[2Jhello'; exec sleep 1000`)
	before := e.stableCapture("bce", "hello")
	ansi := e.mustWr("capture", "--ansi", "bce")
	e.mustWr("server", "upgrade")
	if after := e.mustWr("capture", "--ansi", "bce"); after != ansi {
		t.Errorf("wr capture --ansi after an upgrade:\n%q\nbefore:\n%q", after, ansi)
	}
	if after := e.mustWr("capture", "bce"); after != before {
		t.Errorf("wr capture after an upgrade:\n%q\nbefore:\n%q", after, before)
	}
}

// TestARestoreSavesTheCursorEvenWhenNothingIsSaved: a terminal keeps the
// cursor it saved before wr attached (a shell's prompt, a program run
// before). The session's program saved none, so a lone rmcup (or a DECRC)
// takes it home, as xterm does, and the restore, and the hand-off to a
// client of another size, must leave the terminal so: they used to save a
// cursor only when the program had, and the terminal's rmcup went back to
// its own.
func TestARestoreSavesTheCursorEvenWhenNothingIsSaved(t *testing.T) {
	const program = `stty -echo; printf '\033[H\033[2Jmain\033[4;1HREADY'; read x; printf '\033[?1049lQ'; exec sleep 1000`
	// What the client's terminal saved before wr ran in it.
	const before = "\x1b[3;5H\x1b7\x1b[H"
	want := []string{"Qain", "", "", "READY"}
	shown := func(t *testing.T, cols, rows int, output []byte) []string {
		s := screen.New(cols, rows, 0)
		_, _ = s.Write([]byte(before))
		_, _ = s.Write(output)
		return rowsOf(s, rows)[:4]
	}
	t.Run("reattached", func(t *testing.T) {
		e := newEnv(t)
		e.mustWr("new", "-d", "c", "--", "sh", "-c", program)
		tm := reattachAt20x6(e, nil)
		e.mustWr("send", "c", "--key", "Enter")
		tm.expect("\x1b[?1049lQ")
		if got := captureRow(e, "c", 0); got != want[0] {
			t.Fatalf("wr capture's first row is %q, want %q", got, want[0])
		}
		if got := shown(t, 20, 6, tm.output()); !slices.Equal(got, want) {
			t.Fatalf("the client's terminal shows %+q, want %+q", got, want)
		}
	})
	t.Run("handed off", func(t *testing.T) {
		e := newEnv(t)
		e.mustWr("new", "-d", "c", "--", "sh", "-c", program)
		drawn := handedOffAt20x8(e)
		e.mustWr("send", "c", "--key", "Enter")
		drawn.expect("\x1b[?1049lQ")
		if got := shown(t, 20, 8, drawn.output()); !slices.Equal(got, want) {
			t.Fatalf("the client's terminal shows %+q, want %+q", got, want)
		}
	})
}
