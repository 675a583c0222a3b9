//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// A session pouring output gives way to a person typing in another
// session: its reader and feeder pause (counted by wr server status as
// flood-pauses), while every keystroke's echo still arrives; typing into
// the flood's own session never slows it; and the flood goes on once the
// typing is done. What the pauses buy, the echo under the flood, is
// measured by BenchmarkEchoUnderLoad and BenchmarkHostile.
func TestFloodGivesWayToTyping(t *testing.T) {
	e, flood, quiet := floodBeside(t)

	// Keys typed into the flood itself, each while it pours (64 KiB more
	// reach its client after the key): the flood takes no pause.
	for i := 0; i < 30; i++ {
		n := flood.n.Load()
		flood.send(t, "k")
		e.eventually("the flood's output", func() bool { return flood.n.Load() > n+64<<10 })
	}
	if p := e.status("flood-pauses"); p != 0 {
		t.Fatalf("typing into the flood's own session paused it %d times", p)
	}

	// Keys typed into the quiet session: the flood pauses, and each echo
	// arrives.
	keys := 0
	e.eventually("the flood to pause for typing in another session", func() bool {
		c := string(rune('a' + keys%26))
		keys++
		hit := quiet.watch(c)
		quiet.send(t, c)
		waitFor(t, hit, "the echo of "+c)
		return e.status("flood-pauses") > 0
	})

	// Typing over, the flood goes on.
	n := flood.n.Load()
	e.eventually("the flood to go on after the typing", func() bool { return flood.n.Load() > n+1<<20 })
}

// Input that is not a person typing leaves a flood alone: a script feeding
// a session through `wr attach` from a pipe (the review found each of its
// lines pausing every flood on the server).
func TestPipedInputIsNotTyping(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "flood", "--", "yes")
	e.mustWr("new", "-d", "quiet", "--", "cat")
	flood := startSink(t, e.vars, 80, 24, wrBin, "attach", "flood")

	relay := exec.Command(wrBin, "attach", "quiet")
	relay.Env = e.vars
	in, err := relay.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	relay.Stdout = &out
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = relay.Process.Kill(); _ = relay.Wait() })

	// Each line while the flood pours (64 KiB more reach its client after
	// the line came back).
	for i := 0; i < 20; i++ {
		line := fmt.Sprintf("line-%d", i)
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
		e.eventually("the quiet session to echo "+line, func() bool { return strings.Contains(out.String(), line+"\r\n") })
		n := flood.n.Load()
		e.eventually("the flood's output", func() bool { return flood.n.Load() > n+64<<10 })
	}
	if p := e.status("flood-pauses"); p != 0 {
		t.Fatalf("a script's input through a pipe paused the flood %d times", p)
	}
}

// Escape pressed alone by the client that owns the size (vim's normal
// mode) is typing: it is held by no one, so it counts at once, not at the
// next key (the review found it never counted until then).
func TestOwnersLoneEscapeIsTyping(t *testing.T) {
	e, flood, quiet := floodBeside(t)
	n := flood.n.Load()
	e.eventually("the flood's output", func() bool { return flood.n.Load() > n+64<<10 })
	quiet.send(t, "\x1b")
	e.eventually("the flood to pause for the Escape", func() bool { return e.status("flood-pauses") > 0 })
}

// floodBeside starts session flood running yes and session quiet echoing
// raw keys, each with an attached client at 80x24; quiet's has its first
// prompt.
func floodBeside(t *testing.T) (e *env, flood, quiet *sink) {
	t.Helper()
	e = newEnv(t)
	e.mustWr("new", "-d", "flood", "--", "yes")
	e.mustWr("new", "-d", "quiet", "--", "sh", "-c", "stty raw -echo; echo READY-$((6*7)); exec cat")
	flood = startSink(t, e.vars, 80, 24, wrBin, "attach", "flood")
	quiet, ready := startSinkWatching(t, "READY-42", e.vars, 80, 24, wrBin, "attach", "quiet")
	waitFor(t, ready, "the quiet session")
	return e, flood, quiet
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
