package mux

import (
	"net"
	"strings"
	"testing"

	"wr/screen"
	"wr/wire"
)

// terminalOf feeds everything queued for c as Output into term, and empties
// c's queue, as its writer would.
func terminalOf(c *client, term *screen.Screen) {
	c.queueMu.Lock()
	q := c.queue
	c.queue, c.queued = nil, 0
	c.queueMu.Unlock()
	for _, f := range q {
		if f.t == wire.TypeOutput {
			_, _ = term.Write(f.p)
		}
	}
}

func textOf(s *screen.Screen) string { return string(s.AppendText(nil, screen.TextOptions{})) }

// A client of another size gets no raw byte, is drawn by its frame, and
// switches to the bytes at the exact point its size becomes the session's:
// its terminal then equals the model, with nothing lost or doubled; the
// previous owner is drawn from that point.
func TestDrawnClientSwitches(t *testing.T) {
	ss := sizeSession(80, 24, &fakePTY{})
	newC := func(id, cols, rows int) *client {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return newClient(id, a, false, cols, rows)
	}
	a, b := newC(1, 80, 24), newC(2, 100, 30)
	if ss.attach(a, wire.Attached{}, false) != attachLive || ss.attach(b, wire.Attached{}, true) != attachLive {
		t.Fatal("attach failed")
	}
	ta, tb := screen.New(80, 24, 0), screen.New(100, 30, 0)
	if b.view == nil || a.view != nil {
		t.Fatalf("a drawn %v, b drawn %v: want b only", a.view != nil, b.view != nil)
	}
	ss.fanOut([]byte("hello\r\n"))
	terminalOf(a, ta)
	b.queueMu.Lock()
	for _, f := range b.queue {
		if f.t == wire.TypeOutput && strings.Contains(string(f.p), "hello") {
			t.Fatal("the drawn client was sent the raw chunk")
		}
	}
	b.queueMu.Unlock()
	terminalOf(b, tb) // the writer took the first frame: the next is a difference
	ss.drawFrame(b)
	terminalOf(b, tb)
	if got := textOf(tb); got != "hello\n" {
		t.Fatalf("the drawn client shows %q", got)
	}

	// b acts: it takes the size; its next frame hands it off.
	ss.mu.Lock()
	ss.sizeActLocked(b)
	ss.mu.Unlock()
	if a.view == nil {
		t.Fatal("the old owner is not drawn")
	}
	ss.fanOut([]byte("world\r\n"))
	ss.drawFrame(b)
	if b.view != nil {
		t.Fatal("b was not handed off")
	}
	ss.fanOut([]byte("raw again"))
	terminalOf(b, tb)
	ss.drawFrame(a)
	terminalOf(a, ta)
	ss.lockModel()
	want := textOf(ss.model.scr)
	ss.unlockModel()
	if got := textOf(tb); got != want {
		t.Fatalf("the handed-off client shows %q, the model %q", got, want)
	}
	// a (80x24) shows the 100x30 screen's top left, cursor in view.
	if got := textOf(ta); got != want {
		t.Fatalf("the drawn old owner shows %q, the model %q", got, want)
	}
}

// A drawn client that has not written its last update is not sent another:
// once its writer has drained, resync sends it the difference.
func TestDrawnClientBehind(t *testing.T) {
	ss := sizeSession(80, 24, &fakePTY{})
	a, b0 := net.Pipe()
	t.Cleanup(func() { a.Close(); b0.Close() })
	owner := newClient(1, a, false, 80, 24)
	c, d := net.Pipe()
	t.Cleanup(func() { c.Close(); d.Close() })
	drawn := newClient(2, c, false, 60, 20)
	ss.attach(owner, wire.Attached{}, false)
	ss.attach(drawn, wire.Attached{}, true)
	term := screen.New(60, 20, 0)
	ss.fanOut([]byte("one\r\n"))
	ss.drawFrame(drawn) // the first frame is still queued: nothing more
	drawn.queueMu.Lock()
	n := len(drawn.queue)
	drawn.queueMu.Unlock()
	if !drawn.isLagging() {
		t.Fatal("a drawn client with its update unwritten is not marked behind")
	}
	ss.fanOut([]byte("two\r\n"))
	ss.drawFrame(drawn)
	drawn.queueMu.Lock()
	if len(drawn.queue) != n {
		t.Fatalf("queued %d frames, then %d: updates pile up", n, len(drawn.queue))
	}
	drawn.queueMu.Unlock()
	terminalOf(drawn, term) // the writer drains, then asks for a redraw
	ss.resync(drawn)
	terminalOf(drawn, term)
	if got := textOf(term); got != "one\ntwo\n" {
		t.Fatalf("the drawn client shows %q", got)
	}
	if drawn.isLagging() {
		t.Fatal("still lagging after the resync")
	}
}
