//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// startStream starts a detached session that writes stream to its
// terminal, raw, then waits; and waits until wr capture shows want.
func (e *env) startStream(name string, stream []byte, want string) {
	e.t.Helper()
	file := filepath.Join(e.dir, name+".stream")
	if err := os.WriteFile(file, stream, 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.mustWr("new", "-d", name, "--", "sh", "-c", "stty raw -echo; cat "+file+"; exec sleep 1000")
	e.stableCapture(name, want)
}

// titleSeq is an OSC 0/2 title or an xterm title stack push or pop.
var titleSeq = regexp.MustCompile(`\x1b\][02];([^\x07\x1b]*)(?:\x07|\x1b\\)|\x1b\[(22|23)(?:;([0-2]))?t`)

// xtermTitle is the window title a terminal shows after out, as xterm's
// title stack (CSI 22 t pushes, CSI 23 t pops) makes it.
func xtermTitle(out []byte) string { return titleAfter("", out) }

// titleAfter follows the title through out on xterm's title stack,
// starting from title. A push or pop of the icon name alone (parameter 1)
// leaves the window title as it is.
func titleAfter(title string, out []byte) string {
	var stack []string
	for _, m := range titleSeq.FindAllSubmatch(out, -1) {
		switch {
		case m[2] == nil:
			title = string(m[1])
		case string(m[3]) == "1": // the icon name only
		case string(m[2]) == "22":
			stack = append(stack, title)
		case len(stack) > 0:
			title, stack = stack[len(stack)-1], stack[:len(stack)-1]
		}
	}
	return title
}

// A client that attaches while a program has pushed the shell's title and
// set its own sees the program's, and the shell's again once the program
// pops it (vim with "set title" quitting), as a terminal that saw it all.
func TestAttachKeepsTitleStack(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "t", "--", "sh", "-c",
		`printf '\033]2;shell\007\033[22;0t\033]2;Thanks for flying Vim\007PUSHED-%s\n' $((6*7)); read x; printf '\033[23;0tPOPPED-%s\n' $((6*7)); exec sleep 1000`)
	e.stableCapture("t", "PUSHED-42")
	a := e.term(80, 24, "attach", "t")
	a.expect("PUSHED-42")
	a.settled()
	if got := xtermTitle(a.output()); got != "Thanks for flying Vim" {
		t.Fatalf("attached, the title is %q", got)
	}
	a.send("\r")
	a.expect("POPPED-42")
	if got := xtermTitle(a.output()); got != "shell" {
		t.Fatalf("after the program popped the title, the client shows %q, want shell", got)
	}
}

// wr capture lays out grapheme clusters as kitty, ghostty, foot and
// WezTerm do: each sequence is followed by a '|' written its width along
// from the start of the line, so the '|' lands right after it only when
// the width is that.
func TestCaptureClusterWidths(t *testing.T) {
	seqs := []struct {
		text  string
		width int
	}{
		{"\U0001F1FA\U0001F1F8", 2}, // flag
		{"\u1100\u1161\u11a8", 2},   // decomposed Hangul syllable
		{"a\u00adb", 3},             // soft hyphen
		{"\u0600", 1},               // Arabic number sign
		{"\U0001F44D\U0001F3FD", 2}, // skin tone
		{"\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466", 2}, // ZWJ family
		{"\u2764\ufe0f", 2}, // VS16
		{"e\u0301", 1},      // combining mark
	}
	var stream bytes.Buffer
	var want []string
	for _, s := range seqs {
		fmt.Fprintf(&stream, "%s\r\x1b[%dC|\r\n", s.text, s.width)
		want = append(want, s.text+"|")
	}
	stream.WriteString("END\r\n")
	e := newEnv(t)
	e.startStream("w", stream.Bytes(), "END")
	got := strings.Split(e.mustWr("capture", "w"), "\n")
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("line %d: %+q, want %+q", i, got[min(i, len(got)-1)], w)
		}
	}
}

// With autowrap off a character printed in the last column leaves the
// cursor on it, and a combining mark after it joins that character, not
// the one before it: wr capture (and a reattach, drawn from the same
// model) shows the line as the terminal that watched it does.
func TestCaptureJoinsAMarkInTheLastColumnWithoutAutowrap(t *testing.T) {
	e := newEnv(t)
	line := strings.Repeat("x", 79) + "e\u0301"
	e.startStream("m", []byte("\x1b[?7l"+line+"\r\nEND\r\n"), "END")
	got := strings.Split(e.mustWr("capture", "m"), "\n")
	if got[0] != line {
		t.Fatalf("the last column's line is %+q, want %+q", got[0], line)
	}
	a := e.term(80, 24, "attach", "m")
	a.expect("END")
	a.settled()
	if out := a.output(); !bytes.Contains(out, []byte("xe\u0301")) {
		t.Fatalf("the reattach drew the mark elsewhere: %+q", out)
	}
}

// With autowrap off a VS16 after a character in the next-to-last column
// widens it into the blank last column, as anywhere else on the line: a
// "y" printed after it lands on its second half and erases it, where a
// narrow smiley would have kept it.
func TestCaptureWidensAVS16IntoABlankLastColumn(t *testing.T) {
	e := newEnv(t)
	xs := strings.Repeat("x", 78)
	e.startStream("v", []byte("\x1b[?7l"+xs+"\u263a\ufe0fy\r\nEND\r\n"), "END")
	got := strings.Split(e.mustWr("capture", "v"), "\n")
	if want := xs + " y"; got[0] != want {
		t.Fatalf("the line is %+q, want %+q", got[0], want)
	}
}

// A wide character that did not fit in the last column wrapped early: the
// two rows stay one line for a client that attaches (its terminal joins
// them when it widens) and in wr capture once the session is wider.
func TestAttachKeepsEarlyWrap(t *testing.T) {
	line := strings.Repeat("a", 79) + "中tail"
	e := newEnv(t)
	e.startStream("ew", []byte(line+"\r\nEND\r\n"), "END")
	a := e.term(80, 24, "attach", "ew")
	a.expect("END")
	a.settled()
	term := termScreen(a, 80, 24)
	term.Resize(100, 24)
	if got := rowsOf(term, 24)[0]; got != line {
		t.Fatalf("the client's terminal, widened, shows %q first, want %q", got, line)
	}
	a.send("\x1c")
	if code := a.wait(); code != 0 {
		t.Fatalf("detach exit %d", code)
	}
	wide := e.term(100, 24, "attach", "ew")
	wide.expect("END")
	e.eventually("wr capture to show the line joined", func() bool {
		return strings.HasPrefix(e.mustWr("capture", "ew"), line+"\n")
	})
}

// A client that attaches gets modifyOtherKeys turned on when the program
// turned it on (vim 9 does), and wr capture --ansi keeps a colour set as
// 38;5;n below 16 in that form.
func TestAttachKeepsKeyboardModeAndColourForm(t *testing.T) {
	e := newEnv(t)
	e.startStream("k", []byte("\x1b[>4;2m\x1b[1;38;5;1mbold palette red\x1b[m\r\nEND\r\n"), "END")
	if ansi := e.mustWr("capture", "--ansi", "k"); !strings.Contains(ansi, "38;5;1mbold palette red") {
		t.Fatalf("capture --ansi %q rewrote 38;5;1", ansi)
	}
	a := e.term(80, 24, "attach", "k")
	a.expect("END")
	a.settled()
	out := a.output()
	if i := bytes.LastIndex(out, []byte("\x1b[>4;2m")); i < bytes.LastIndex(out, []byte("\x1b[2J")) {
		t.Fatalf("the attach does not turn modifyOtherKeys on after its reset: %q", out)
	}
}
