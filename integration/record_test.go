//go:build linux

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"wr/screen"
)

// cast is an asciicast v2 recording, read back.
type cast struct {
	width, height int
	events        []castEvent
}

type castEvent struct {
	t    float64
	kind string
	data string
}

// readCast parses file; ok is false while it is not (yet) a recording.
func readCast(t *testing.T, file string) (c cast, ok bool) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil || len(b) == 0 {
		return c, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() {
		return c, false
	}
	var h struct {
		Version int `json:"version"`
		Width   int `json:"width"`
		Height  int `json:"height"`
	}
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Version != 2 {
		t.Fatalf("recording header %q: %v (want version 2)", sc.Text(), err)
	}
	c.width, c.height = h.Width, h.Height
	last := 0.0
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return c, false // a line being written
		}
		tm, _ := ev[0].(float64)
		kind, _ := ev[1].(string)
		data, _ := ev[2].(string)
		if len(ev) != 3 || (kind != "o" && kind != "r") || tm < last {
			t.Fatalf("recording event %q: want [seconds, \"o\"|\"r\", data] in time order", sc.Text())
		}
		last = tm
		c.events = append(c.events, castEvent{tm, kind, data})
	}
	return c, true
}

// replay draws a recording through wr's screen model, as asciinema play
// draws it in a terminal, and returns the screen's text as wr capture
// prints it.
func (c cast) replay(t *testing.T) string {
	t.Helper()
	scr := screen.New(c.width, c.height, 10000)
	for _, ev := range c.events {
		switch ev.kind {
		case "o":
			scr.Write([]byte(ev.data))
		case "r":
			var cols, rows int
			if _, err := fmt.Sscanf(ev.data, "%dx%d", &cols, &rows); err != nil {
				t.Fatalf("resize event %q: %v", ev.data, err)
			}
			scr.Resize(cols, rows)
		}
	}
	return string(scr.AppendText(nil, screen.TextOptions{}))
}

func (c cast) output() string {
	var b strings.Builder
	for _, ev := range c.events {
		if ev.kind == "o" {
			b.WriteString(ev.data)
		}
	}
	return b.String()
}

// Item 6: wr record writes an asciicast v2 recording that starts with the
// screen as it is; replayed through the screen model it is exactly what
// wr capture shows, across a change of size. An interrupt ends it, exit 0.
func TestRecordReplaysToTheCapture(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "rec", "--", "sh")
	e.mustWr("send", "rec", "--enter", `printf '\033[1;31mBEFORE\033[m recording\n'`)
	e.eventually("BEFORE", func() bool { return strings.Contains(e.mustWr("capture", "rec"), "BEFORE recording") })

	file := filepath.Join(e.dir, "rec.cast")
	rec := e.startBackground(nil, "record", "rec", file)
	e.eventually("the recorder attached", func() bool { c, ok := readCast(t, file); return ok && len(c.events) > 0 })
	if c, _ := readCast(t, file); c.width != 80 || c.height != 24 || !strings.Contains(c.events[0].data, "BEFORE") {
		t.Fatalf("recording starts %dx%d with %q; want 80x24 and the screen as it was", c.width, c.height, c.events[0].data)
	}

	e.mustWr("send", "rec", "--enter", `for i in $(seq 1 40); do echo "line $i"; done`)
	// A person's terminal of another size takes the size: a resize event.
	tm := e.term(100, 30, "attach", "rec")
	tm.expect(shownPrompt)
	tm.run(`printf 'wide %0100d\n' 7`)
	tm.send("\x1c") // detach
	tm.wait()
	e.mustWr("send", "rec", "--enter", `echo AFTER`)

	var want, got string
	e.eventually("the replay to equal wr capture", func() bool {
		want = e.mustWr("capture", "rec")
		c, ok := readCast(t, file)
		if !ok {
			return false
		}
		got = c.replay(t)
		return strings.Contains(want, "AFTER") && got == want
	})
	c, _ := readCast(t, file)
	resized := false
	for _, ev := range c.events {
		resized = resized || (ev.kind == "r" && ev.data == "100x30")
	}
	if !resized {
		t.Error("no resize event 100x30 in the recording")
	}

	if err := rec.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := rec.wait(t); err != nil {
		t.Errorf("wr record after an interrupt: %v, stderr %q; want exit 0", err, rec.stderr.String())
	}

	// asciinema itself reads it (it wants a terminal, even to cat).
	if _, err := exec.LookPath("asciinema"); err != nil {
		t.Log("asciinema is not installed: not replayed by it")
		return
	}
	play := exec.Command("asciinema", "cat", file)
	play.Env = e.with("HOME=" + e.dir)
	player := e.startTerm(play, 100, 30)
	if code := player.wait(); code != 0 {
		t.Fatalf("asciinema cat: exit %d, output %q", code, player.output())
	}
	if out := string(player.output()); !strings.Contains(out, "BEFORE") || !strings.Contains(out, "AFTER") {
		t.Errorf("asciinema cat printed %q; want the recording's output", out)
	}
}

// Item 6: wr new -d --record records a session from its start, and the
// recording ends when the session does; the session, ended with only a
// recorder attached, is kept with its code as if nobody were.
func TestNewRecordsFromTheStart(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.dir, "new.cast")
	e.mustWr("new", "-d", "--record", file, "job", "--", "sh", "-c", "echo FIRST-LINE; read x; echo LAST-LINE; exit 4")
	e.mustWr("send", "job", "--enter", "go")
	if r := e.wr("wait", "--timeout", "20s", "job"); r.code != 4 {
		t.Fatalf("wr wait job: exit %d, stderr %q; want 4", r.code, r.stderr)
	}
	e.eventually("the recording to hold the last line", func() bool {
		c, ok := readCast(t, file)
		return ok && strings.Contains(c.output(), "LAST-LINE")
	})
	c, _ := readCast(t, file)
	if out := c.output(); !strings.HasPrefix(out, "FIRST-LINE") {
		t.Errorf("recording starts %q; want the session's first output", out)
	}
	// Ended with only its recorder attached, it is kept with its code.
	e.mustWr("new", "-d", "--record", filepath.Join(e.dir, "kept.cast"), "kept", "--", "sh", "-c", "exit 6")
	e.eventually("kept to be listed as exited 6", func() bool { return strings.Contains(e.mustWr("ls"), "exited 6") })
	if r := e.wr("wait", "kept"); r.code != 6 {
		t.Errorf("wr wait kept: exit %d, stderr %q; want 6", r.code, r.stderr)
	}
	if r := e.wr("new", "-d", "--record", filepath.Join(e.dir, "no", "such", "dir.cast"), "bad", "--", "sh"); r.code != 1 || !strings.Contains(r.stderr, "recording") {
		t.Errorf("a recording that cannot be created: exit %d, stderr %q; want 1", r.code, r.stderr)
	}
	if r := e.wr("has", "bad"); r.code != 1 {
		t.Error("a session was created though its recording could not be")
	}
}

// Item 6: wr attach --record records what the terminal is shown.
func TestAttachRecords(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.dir, "attach.cast")
	tm := e.term(90, 20, "attach", "--record", file, "a")
	tm.expect(prompt)
	tm.run("echo IN-THE-RECORDING")
	tm.send("\x1c")
	if code := tm.wait(); code != 0 {
		t.Fatalf("attach exit %d", code)
	}
	c, ok := readCast(t, file)
	if !ok || c.width != 90 || c.height != 20 || !strings.Contains(c.output(), "IN-THE-RECORDING") {
		t.Errorf("recording %dx%d, ok %v, output %q; want 90x20 with the command's output", c.width, c.height, ok, c.output())
	}
}

// wr record NAME - writes the recording to stdout (wr record s - | gzip);
// a --record - of wr new -d or wr attach, which would write it where
// nobody reads it, is refused and creates nothing.
func TestRecordToStdout(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "job", "--", "sh", "-c", "read x; echo LAST-LINE; exit 4")
	file := filepath.Join(e.dir, "stdout.cast")
	out, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	rec := e.startBackground(out, "record", "job", "-")
	e.waitClients("job", 1)
	e.mustWr("send", "job", "--enter", "go")
	if r := e.wr("wait", "job"); r.code != 4 {
		t.Fatalf("wr wait job: exit %d, stderr %q; want 4", r.code, r.stderr)
	}
	if err := rec.wait(t); err != nil {
		t.Fatalf("wr record job -: %v, stderr %q", err, rec.stderr.String())
	}
	if c, ok := readCast(t, file); !ok || !strings.Contains(c.output(), "LAST-LINE") {
		t.Fatalf("the recording on stdout lacks the session's output: %q", c.output())
	}
	if _, err := os.Stat(filepath.Join(e.dir, "-")); err == nil {
		t.Error("wr record wrote a file named -")
	}
	for _, args := range [][]string{{"new", "-d", "--record", "-", "bg"}, {"attach", "--record", "-", "bg"}} {
		if r := e.wr(args...); r.code != 2 || !strings.Contains(r.stderr, "wr record NAME -") {
			t.Errorf("wr %s: exit %d, stderr %q; want a usage error pointing at wr record NAME -", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := e.wr("has", "bg"); r.code != 1 {
		t.Error("a session was created though its recording was refused")
	}
}

// A recording command that fails leaves the file as it was: an existing
// file was emptied before the session was looked for, so a typo in a name
// cost a recording made before. A file it would have made is not left
// behind empty. One that succeeds replaces what was there.
func TestAFailedRecordingLeavesTheFile(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "taken", "--", "sleep", "1000")
	old := filepath.Join(e.dir, "old.cast")
	write := func() {
		if err := os.WriteFile(old, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"record", "nosuch", old},
		{"new", "-d", "--record", old, "taken", "--", "true"},
		{"attach", "--no-create", "--record", old, "nosuch"},
	} {
		write()
		if r := e.wr(args...); r.code != 1 {
			t.Fatalf("wr %v: exit %d, stderr %q; want 1", args, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(old); string(b) != "precious\n" {
			t.Errorf("wr %v failed and left the file holding %q", args, b)
		}
		made := filepath.Join(e.dir, "made.cast")
		args = slices.Replace(slices.Clone(args), slices.Index(args, old), slices.Index(args, old)+1, made)
		if r := e.wr(args...); r.code != 1 {
			t.Fatalf("wr %v: exit %d, stderr %q; want 1", args, r.code, r.stderr)
		}
		if _, err := os.Stat(made); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("wr %v failed and left %s behind (%v)", args, made, err)
		}
	}
	write()
	e.mustWr("new", "-d", "--record", old, "job", "--", "sh", "-c", "echo RECORDED; exit 3")
	if r := e.wr("wait", "--timeout", "20s", "job"); r.code != 3 {
		t.Fatalf("wr wait job: exit %d, stderr %q; want 3", r.code, r.stderr)
	}
	e.eventually("the recording to hold the output", func() bool {
		c, ok := readCast(t, old)
		return ok && strings.Contains(c.output(), "RECORDED")
	})
	if b, _ := os.ReadFile(old); strings.Contains(string(b), "precious") {
		t.Errorf("a recording written over an old file kept the old text:\n%s", b)
	}
}
