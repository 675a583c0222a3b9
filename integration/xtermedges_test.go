//go:build linux

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// Corners of xterm's behaviour that wr's screen model once drew otherwise,
// found by feeding the same bytes to xterm (read back with its print-screen
// sequence) and to wr: where a pending wrap survives (an erase ends it; a
// soft reset, a switch of screens or autowrap off and on again keeps it,
// and the last column sets it with autowrap off), what 1047 and 1049 clear
// and restore, what REP repeats (only a character printed right before
// it), SD 0, and VPR past the scroll region. Each session is
// 80x24, and wr capture must show what xterm showed. (One difference is
// kept on purpose: 1047 clears the alternate screen on the way in, where
// xterm shows what was left there, because a reattached terminal is drawn
// only the screen shown; see screen/modes.go.)
func TestXtermEdges(t *testing.T) {
	y80 := strings.Repeat("y", 80)
	sp79 := strings.Repeat(" ", 79)
	cases := []struct {
		name   string
		stream string
		want   []string // the screen's lines, trailing blanks cut
	}{
		{"EL 2 ends a pending wrap", "x\r\n" + y80 + "\x1b[2KQ", []string{"x", sp79 + "Q"}},
		{"EL 1 ends a pending wrap", "x\r\n" + y80 + "\x1b[1KQ", []string{"x", sp79 + "Q"}},
		{"ED 1 ends a pending wrap", "x\r\n" + y80 + "\x1b[1JQ", []string{"", sp79 + "Q"}},
		{"ED 2 ends a pending wrap", "x\r\n" + y80 + "\x1b[2JQ", []string{"", sp79 + "Q"}},
		{"DECSED 2 ends a pending wrap", "x\r\n" + y80 + "\x1b[?2JQ", []string{"", sp79 + "Q"}},
		{"DECSTR keeps a pending wrap", y80 + "\x1b[!pQ", []string{y80, "Q"}},
		{"47 keeps a pending wrap", y80 + "\x1b[?47hQ", []string{"", "Q"}},
		{"1047 keeps a pending wrap", y80 + "\x1b[?1047hQ", []string{"", "Q"}},
		{"leaving 47 keeps a pending wrap", "\x1b[?47h" + y80 + "\x1b[?47lQ", []string{"", "Q"}},
		{"leaving 1047 clears it, and the wrap", "\x1b[?1047h" + y80 + "\x1b[?1047lQ", []string{sp79 + "Q"}},
		{"1047 clears the screen on the way out", "\x1b[?1047habc\x1b[?1047l\x1b[?47hQ", []string{"   Q"}},
		{"a lone rmcup restores the cursor home", "main\x1b[?1049lQ", []string{"Qain"}},
		{"a lone rmcup restores what ESC 7 saved", "ab\x1b7\r\nmain\x1b[?1049lQ", []string{"abQ", "main"}},
		{"smcup on the alternate screen clears it", "\x1b[?1049habc\x1b[?1049hZ", []string{"   Z"}},
		{"smcup after 47 clears it", "\x1b[?47habc\x1b[?1049hZ", []string{"   Z"}},
		{"autowrap off and on keeps a pending wrap", y80 + "\x1b[?7l\x1b[?7hQ", []string{y80, "Q"}},
		{"the last column sets it with autowrap off", "\x1b[?7l" + y80 + "\x1b[?7hQ", []string{y80, "Q"}},
		{"with autowrap off it overwrites the last column", y80 + "\x1b[?7lZ\x1b[?7hQ", []string{y80[:79] + "Z", "Q"}},
		{"DECRC gives it back with autowrap off", "\x1b[?7l" + y80 + "\x1b7\x1b[H\x1b8\x1b[?7hQ", []string{y80, "Q"}},
		{"DECSTR turns autowrap on and acts on it", "\x1b[?7l" + y80 + "\x1b[!pQ", []string{y80, "Q"}},
		{"REP repeats the character before it", "a\x1b[3bZ", []string{"aaaaZ"}},
		{"REP after SGR repeats nothing", "a\x1b[31m\x1b[3bZ", []string{"aZ"}},
		{"REP after a control repeats nothing", "a\r\x1b[3bZ", []string{"Z"}},
		{"REP after REP repeats nothing", "a\x1b[3b\x1b[2bZ", []string{"aaaaZ"}},
		{"REP after a string repeats nothing", "a\x1bPq\x1b\\\x1b[3bZ", []string{"aZ"}},
		{"SD 0 scrolls nothing", "ab\r\ncd\x1b[0T", []string{"ab", "cd"}},
		{"VPR is not stopped by the margins", "\x1b[1;3r\x1b[9eQ", []string{"", "", "", "", "", "", "", "", "", "Q"}},
	}
	e := newEnv(t)
	for i, c := range cases {
		name := fmt.Sprintf("x%d", i)
		e.startStream(name, []byte(c.stream), strings.TrimSpace(c.want[len(c.want)-1]))
		got := screenLines(e.stableCapture(name, ""))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: wr shows\n%q\nxterm shows\n%q", c.name, got, c.want)
		}
	}
}

// screenLines is a capture's lines with trailing blanks cut, without the
// blank lines at the bottom.
func screenLines(capture string) []string {
	lines := strings.Split(capture, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
