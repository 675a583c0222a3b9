//go:build linux

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// burster is a session printing 900,000 bytes, faster than a byte a
// microsecond (a reader's burst), each time it reads a line; it prints
// POURED-n after the nth.
type burster struct {
	e    *env
	name string
	n    int // bursts asked for
}

func newBurster(e *env, name string) *burster {
	e.mustWr("new", "-d", name, "--", "sh", "-c",
		"stty -echo; n=0; while read x; do n=$((n+1)); head -c 900000 /dev/zero | tr '\\0' x; echo; echo POURED-$n; done")
	return &burster{e: e, name: name}
}

// newWatchedBurster is a burster with its own client attached, and no
// client on any other session.
func newWatchedBurster(e *env, name string) *burster {
	b := newBurster(e, name)
	startSink(e.t, e.vars, 80, 24, wrBin, "attach", name)
	e.waitClients(name, 1)
	return b
}

// until makes the session pour, once after another, until done reports
// true; each time it waits for the output to end and for the model to
// have drawn it (wr capture draws what is left).
func (b *burster) until(what string, done func() bool) {
	b.e.t.Helper()
	b.e.eventually(what, func() bool {
		b.n++
		b.e.mustWr("send", "--enter", b.name, "go")
		marker := fmt.Sprintf("POURED-%d\n", b.n)
		b.e.eventually(b.name+" to pour", func() bool { return strings.Contains(b.e.mustWr("capture", b.name), marker) })
		return done()
	})
}

// The server takes a second CPU for a reader's burst only when a client is
// attached to another session: that client's keystrokes are what would
// wait for a busy server to look at the network. A session pouring to its
// own client, or to nobody, stays on one, where it makes half the context
// switches (BenchmarkThroughput reports them).
func TestSecondCPUOnlyForOtherSessions(t *testing.T) {
	e := newEnv(t)
	flood := newWatchedBurster(e, "flood")

	flood.until("a burst", func() bool { return e.status("bursts") > 0 })
	if c := e.status("second-cpu"); c != 0 {
		t.Fatalf("a burst with no client on another session took a second CPU %d times", c)
	}

	// A client on another session: the next burst takes one.
	e.mustWr("new", "-d", "quiet", "--", "sh", "-c", "stty raw -echo; echo READY-$((6*7)); exec cat")
	_, ready := startSinkWatching(t, "READY-42", e.vars, 80, 24, wrBin, "attach", "quiet")
	waitFor(t, ready, "the quiet session")
	flood.until("a second CPU for a burst beside the quiet session's client", func() bool {
		return e.status("second-cpu") > 0
	})
}

// A session that ends with a person's client attached (they typed exit)
// is nobody's to type into any more: a later burst with nobody attached
// anywhere stays on one CPU. An independent review found the ended
// session still counted, and every later burst taking a second CPU.
func TestEndedSessionTakesNoSecondCPU(t *testing.T) {
	e := newEnv(t)
	flood := newBurster(e, "flood")
	e.mustWr("new", "-d", "gone", "--", "sh", "-c", "stty -echo; echo READY-$((6*7)); read x; exit 0")
	gone, ready := startSinkWatching(t, "READY-42", e.vars, 80, 24, wrBin, "attach", "gone")
	waitFor(t, ready, "the session")
	gone.send(t, "\r")
	e.eventually("the session to end", func() bool { return len(e.ls()) == 1 })

	flood.until("a burst", func() bool { return e.status("bursts") > 0 })
	if c := e.status("second-cpu"); c != 0 {
		t.Fatalf("a burst with nobody attached anywhere took a second CPU %d times", c)
	}
}

// On one CPU the reader of a session pouring to its own client writes for
// the client's writer, which waits for room in its socket and would be
// woken only by Go's next poll (helpWriter): without that the client,
// which kept up, was sent a redraw in place of 35 to 45% of a 32 MiB cat,
// every time. The client must show the whole cat's end, its frames whole
// (a frame cut wrong ends the client with a protocol error), and the
// server must report the output its reader wrote.
//
// Whether every byte arrived is BenchmarkThroughput's wr-shown/sent, not
// a test's: a client that falls 4 MiB behind is sent a redraw by design,
// and on a machine whose cores are all busy a client that keeps up on its
// own can fall that far behind a cat (with two yes hogs running, wr before
// this change too dropped a quarter of a cat for the client).
func TestOneCPUBurstWritesForTheWriter(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "flood", "--", "sh", "-c", catScript())
	s := startSink(t, e.vars, 80, 24, wrBin, "attach", "flood")
	e.waitClients("flood", 1)
	done := s.watch(doneMarker)
	s.send(t, "\r")
	waitFor(t, done, "the end of the output")
	if kib := e.status("helped-kib"); kib == 0 {
		t.Fatal("the reader wrote nothing for the client's writer during a 32 MiB cat on one CPU")
	}
	if s, ok := e.session("flood"); !ok || s.Clients != 1 {
		t.Fatalf("the client is no longer attached after the cat: %+v", s)
	}
}

// A request that comes while a session pours on one CPU knocks: the server
// takes the second CPU for a moment, whose idle thread reads the request
// at once, instead of leaving it for Go's next poll, which a pouring reader
// puts off. The requests here are the wr capture calls that wait for each
// pour to end; knocks are not counted as bursts' second CPUs.
func TestRequestDuringABurstKnocks(t *testing.T) {
	e := newEnv(t)
	flood := newWatchedBurster(e, "flood")

	flood.until("a request during a burst to knock", func() bool { return e.status("knocks") > 0 })
	if c := e.status("second-cpu"); c != 0 {
		t.Fatalf("a burst with no client on another session took a second CPU %d times", c)
	}
}
