//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
)

// everyMode turns on, from inside a session, every mode and state that
// leaving must put back, then says so.
var everyMode = strings.Join([]string{
	`\033[4h`,                // insert mode (IRM)
	`\033[?7l`,               // autowrap off (DECAWM)
	`\033[2;20r`,             // a scroll region (DECSTBM)
	`\033(0`,                 // DEC line drawing into G0
	`\033*0\033)0\016`,       // ... into G1 and G2, and G1 shifted in (SO)
	`\033[?5h`,               // reverse video (DECSCNM)
	`\033[?9h\033[?1001h`,    // X10 and highlight mouse tracking
	`\033[?1000h\033[?1006h`, // normal mouse tracking, SGR encoding
	`\033[?1002h\033[?1003h\033[?1005h\033[?1015h\033[?1016h`, // the other mouse modes
	`\033[?45h\033[?66h\033[?69h`,                             // reverse wraparound, keypad mode, left/right margins
	`\033[?2026h`,                                             // synchronized output, begun and never ended
	`\033[2h\033[20h`,                                         // keyboard locked (KAM), newline mode (LNM)
	`\033[>1u`,                                                // kitty keyboard flags pushed
	`\033[5 q\033[?12h`,                                       // cursor shape (DECSCUSR) and blink
	`\033[?1007h`,                                             // alternate scroll
	`\033[>4;2m`,                                              // modifyOtherKeys
	`\033[?1004h\033[?2004h`,                                  // focus events, bracketed paste
	`\033[?1h\033=`,                                           // application cursor keys and keypad
	`\033[?25l`,                                               // cursor hidden
	`\033[1;31m`,                                              // attributes
	`\033]0;SESSION-TITLE\007`,                                // the title
	`\033]4;1;rgb:12/34/56\007`,                               // palette colour 1
	`\033]10;rgb:11/22/33\007\033]11;rgb:44/55/66\007`, // foreground, background
	`\033]12;rgb:77/88/99\007`,                         // cursor colour
}, "")

// Leaving a session leaves the terminal as it was found: a session turns on
// every mode above, a client attached under a real PTY leaves (detaching
// with ctrl-\, and every other way), and everything it wrote to its
// terminal, fed to a terminal model (x/vt, an emulator that is not wr's
// own), leaves each one at its power-on state. What x/vt does not model
// (the title stack, the palette, the key protocols) is checked on the
// bytes.
func TestLeaveItAsFound(t *testing.T) {
	cases := []struct {
		name  string
		leave func(e *env, tm *term)
		line  string // what the client says as it leaves
	}{
		{"detach", func(e *env, tm *term) { tm.send("\x1c") }, "[detached from m]"},
		{"session killed", func(e *env, tm *term) { e.mustWr("kill", "m") }, ""},
		{"server lost", func(e *env, tm *term) { _ = syscall.Kill(e.serverPID(), syscall.SIGKILL) }, ""},
		{"client terminated", func(e *env, tm *term) { _ = tm.cmd.Process.Signal(syscall.SIGTERM) }, ""},
		{"program exits", func(e *env, tm *term) { tm.send("q\r") }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tm := e.term(80, 24, "attach", "m", "--", "sh", "-c", "printf '"+everyMode+"'; echo MODES-ON; read x")
			tm.expect("MODES-ON")
			tc.leave(e, tm)
			tm.wait()
			checkAsFound(t, tm.output(), tc.line)
		})
	}
}

// A client that attaches to a session already in every mode (the modes
// come to it in the restore) leaves its terminal as found too.
func TestLeaveItAsFoundAfterRestore(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "m", "--", "sh", "-c", "printf '"+everyMode+"'; echo MODES-ON; read x")
	e.stableCapture("m", "MODES-ON")
	tm := e.term(80, 24, "attach", "m")
	tm.expect("MODES-ON")
	tm.settled()
	tm.send("\x1c")
	tm.wait()
	checkAsFound(t, tm.output(), "[detached from m]")
}

// checkAsFound checks that out, the whole of what a client wrote to its
// terminal, leaves every state everyMode changes at its power-on value, and
// that line, what the client says as it leaves, shows as text on the row
// below MODES-ON (the cursor was not moved by putting things back).
func checkAsFound(t *testing.T, out []byte, line string) {
	t.Helper()
	after, fresh := newModel(t, out), newModel(t, nil)
	decModes := []int{1, 5, 6, 7, 9, 12, 25, 45, 66, 69, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1015, 1016, 1047, 1049, 2004, 2026}
	for _, m := range decModes {
		if got, want := after.mode(m, true), fresh.mode(m, true); got != want {
			t.Errorf("DEC mode %d: %s after leaving, %s at power-on", m, got, want)
		}
	}
	for _, m := range []int{2, 4, 20} {
		if got, want := after.mode(m, false), fresh.mode(m, false); got != want {
			t.Errorf("ANSI mode %d: %s after leaving, %s at power-on", m, got, want)
		}
	}
	gotStyle, gotBlink := after.CursorStyle()
	wantStyle, wantBlink := fresh.CursorStyle()
	if gotStyle != wantStyle || gotBlink != wantBlink {
		t.Errorf("cursor style %v blink %v after leaving, %v %v at power-on", gotStyle, gotBlink, wantStyle, wantBlink)
	}
	colours := []struct {
		name       string
		got, fresh color.Color
	}{
		{"foreground", after.ForegroundColor(), fresh.ForegroundColor()},
		{"background", after.BackgroundColor(), fresh.BackgroundColor()},
		{"cursor", after.CursorColor(), fresh.CursorColor()},
	}
	for _, c := range colours {
		if !sameColour(c.got, c.fresh) {
			t.Errorf("%s colour %v after leaving, %v at power-on", c.name, c.got, c.fresh)
		}
	}

	// The line said on leaving comes out in plain ASCII, not line drawing,
	// where the cursor was.
	if line != "" {
		if got := after.row(2); got != line || after.row(0) != "MODES-ON" {
			t.Errorf("rows 0 and 2 after leaving are %q and %q, want MODES-ON and %q; the screen:\n%s", after.row(0), got, line, after.String())
		}
	}

	// What the next program prints comes out as at power-on: plain ASCII
	// (no line drawing, no shift), replacing (not inserting), default
	// attributes, and a newline at the bottom row scrolls the whole screen
	// (no region left behind).
	probe := "\x1b[H\x1b[2JTOP\x1b[5;1Habc\rq\x1b[24;1H\n"
	for _, m := range []*model{after, fresh} {
		m.write(probe)
	}
	if got, want := after.row(3), fresh.row(3); got != want {
		t.Errorf("text printed after leaving shows %q, at power-on %q", got, want)
	}
	if got, want := after.row(0), fresh.row(0); got != want {
		t.Errorf("a newline at the bottom after leaving leaves the top row %q, at power-on %q", got, want)
	}
	if got, want := after.CellAt(0, 3).Style, fresh.CellAt(0, 3).Style; !got.Equal(&want) {
		t.Errorf("text printed after leaving has style %+v, at power-on %+v", got, want)
	}

	// The title: the client pushed the terminal's own before the session
	// changed it and pops back to it; followed on a title stack.
	if got := titleAfter("OUTER", out); got != "OUTER" {
		t.Errorf("the title after leaving is %q, want the terminal's own", got)
	}
	// The rest x/vt does not model: the palette and the key protocols, put
	// back after the last time the terminal got them.
	for _, c := range []struct{ set, reset string }{
		{"\x1b]4;1;", "\x1b]104\x1b\\"},
		{"\x1b[>4;2m", "\x1b[>4m"},
		{"\x1b[>1u", "\x1b[<1u"},
	} {
		i := bytes.LastIndex(out, []byte(c.set))
		if i >= 0 && !bytes.Contains(out[i:], []byte(c.reset)) {
			t.Errorf("after %q the terminal never got %q; output after it: %q", c.set, c.reset, out[i:])
		}
	}
}

// A session that changed nothing gets nothing added: what the client writes
// at detach is the detach line and nothing else, on the first attach and
// on a reattach (whose restore must not count as a change either).
func TestLeaveUnchangedAddsNothing(t *testing.T) {
	e := newEnv(t)
	for i, args := range [][]string{
		{"attach", "plain", "--", "sh", "-c", "echo PLAIN-READY; read x"},
		{"attach", "plain"},
	} {
		tm := e.term(80, 24, args...)
		tm.expect("PLAIN-READY")
		tm.settled()
		before := len(tm.output())
		tm.send("\x1c")
		tm.wait()
		at := string(tm.output()[before:])
		if want := "\r\n[detached from plain]\r\n"; at != want {
			t.Fatalf("attach %d: at detach the client wrote %d bytes %q, want only the detach line (%d bytes)", i+1, len(at), at, len(want))
		}
	}
}

// model is x/vt fed a client's output, with its answers to queries.
type model struct {
	*vt.Emulator
	t       *testing.T
	answers chan []byte
}

func newModel(t *testing.T, out []byte) *model { return newModelSize(t, 80, 24, out) }

func newModelSize(t *testing.T, cols, rows int, out []byte) *model {
	m := &model{Emulator: vt.NewEmulator(cols, rows), t: t, answers: make(chan []byte, 16)}
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := m.Read(buf)
			if err != nil {
				return
			}
			m.answers <- append([]byte(nil), buf[:n]...)
		}
	}()
	m.write(string(out))
	return m
}

func (m *model) write(s string) { _, _ = m.Write([]byte(s)) }

// mode asks the model for a mode's setting (DECRQM) and returns "set" or
// "reset" (a mode it never saw is reset: every one asked about is off at
// power-on unless the model says set).
func (m *model) mode(n int, private bool) string {
	m.t.Helper()
	q := fmt.Sprintf("\x1b[%d$p", n)
	if private {
		q = fmt.Sprintf("\x1b[?%d$p", n)
	}
	m.write(q)
	select {
	case a := <-m.answers:
		sub := regexp.MustCompile(`;(\d)\$y`).FindSubmatch(a)
		if sub == nil {
			m.t.Fatalf("answer to %q: %q", q, a)
		}
		switch sub[1][0] {
		case '1', '3':
			return "set"
		}
		return "reset"
	case <-time.After(timeout):
		m.t.Fatalf("no answer to %q", q)
	}
	return ""
}

// row is the text of row y, trailing blanks trimmed.
func (m *model) row(y int) string {
	var b strings.Builder
	for x := range m.Width() {
		if c := m.CellAt(x, y); c != nil && c.Content != "" {
			b.WriteString(c.Content)
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func (m *model) find(s string) bool {
	for y := range m.Height() {
		if strings.Contains(m.row(y), s) {
			return true
		}
	}
	return false
}

func sameColour(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
