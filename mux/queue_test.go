package mux

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"wr/wire"
)

// queueClient is a client of cols x rows whose queue is looked at directly;
// no writer runs unless a test starts one.
func queueClient(cols, rows int) *client {
	return newClient(1, nil, false, cols, rows)
}

// fakeScreen is the screen a lagging client is redrawn from.
type fakeScreen struct{}

func (fakeScreen) AppendRestore(dst []byte) []byte { return append(dst, "<redraw>"...) }
func (fakeScreen) AppendRestoreFrom(dst []byte, from uint64) []byte {
	return fmt.Appendf(dst, "<screen from %d>", from)
}
func (fakeScreen) ScrolledOff() uint64 { return 7 }

// queued describes a client's queue as "Type(len)" per frame, with a short
// payload shown.
func queued(c *client) string {
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	var b strings.Builder
	for _, f := range c.queue {
		if len(f.p) <= 64 {
			fmt.Fprintf(&b, "%s(%q) ", f.t, f.p)
		} else {
			fmt.Fprintf(&b, "%s(%d) ", f.t, len(f.p))
		}
	}
	return strings.TrimSpace(b.String())
}

// The rules of a client's queue (client.go): what is queued, in what
// order, what is dropped and when the client is lagging.
func TestClientQueue(t *testing.T) {
	big := make([]byte, maxQueued)      // Output that fills the budget alone
	tooBig := make([]byte, maxQueued+1) // Output that overflows it alone
	for _, tc := range []struct {
		name    string
		cols    int
		do      func(c *client)
		want    string
		lagging bool
	}{
		{
			name: "frames are queued in the order they were sent",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeAttached, []byte("{}"))
				c.send(wire.TypeOutput, []byte("a"))
				c.send(wire.TypeOutput, []byte("b"))
				c.close(wire.TypeExited, []byte("0"))
			},
			want: `Attached("{}") Output("a") Output("b") Exited("0")`,
		},
		{
			name: "Output past the budget drops what is queued and marks the client lagging",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeAttached, []byte("{}"))
				c.send(wire.TypeOutput, []byte("a"))
				c.send(wire.TypeOutput, big)
			},
			want:    `Attached("{}")`,
			lagging: true,
		},
		{
			name: "a lagging client is sent no Output, but other frames still",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, big)
				c.send(wire.TypeOutput, big)
				c.send(wire.TypeOutput, []byte("a"))
				c.send(wire.TypeError, []byte("e"))
			},
			want:    `Error("e")`,
			lagging: true,
		},
		{
			name: "Output up to the budget is kept",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, big[:maxQueued-64])
				c.send(wire.TypeOutput, []byte("a")) // costs 64
			},
			want: fmt.Sprintf(`Output(%d) Output(%d) Output(%d) Output(%d) Output("a")`, wire.MaxPayload, wire.MaxPayload, wire.MaxPayload, maxQueued-64-3*wire.MaxPayload),
		},
		{
			name: "each chunk costs at least 64 bytes",
			cols: 80,
			do: func(c *client) {
				for i := 0; i < maxQueued/64; i++ {
					c.send(wire.TypeOutput, []byte("a"))
				}
				c.send(wire.TypeOutput, []byte("a"))
			},
			lagging: true,
		},
		{
			name: "a relay with no terminal has a larger budget",
			cols: 0,
			do: func(c *client) {
				c.send(wire.TypeOutput, big)
				c.send(wire.TypeOutput, big)
			},
			want: strings.TrimSpace(strings.Repeat(fmt.Sprintf("Output(%d) ", wire.MaxPayload), 2*maxQueued/wire.MaxPayload)),
		},
		{
			name: "a redraw is queued outside the budget and never makes the client lagging",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, big[:maxQueued-64])
				c.sendRedraw(big)
			},
			want: strings.TrimSpace(fmt.Sprintf("Output(%d) Output(%d) Output(%d) Output(%d) ", wire.MaxPayload, wire.MaxPayload, wire.MaxPayload, maxQueued-64-3*wire.MaxPayload) +
				strings.Repeat(fmt.Sprintf("Output(%d) ", wire.MaxPayload), maxQueued/wire.MaxPayload)),
		},
		{
			name: "Output larger than a frame is split into frames",
			cols: 0,
			do: func(c *client) {
				c.send(wire.TypeOutput, make([]byte, 2*wire.MaxPayload+5))
			},
			want: fmt.Sprintf(`Output(%d) Output(%d) Output("\x00\x00\x00\x00\x00")`, wire.MaxPayload, wire.MaxPayload),
		},
		{
			name: "nothing is queued after close, and only the first close's frame",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, []byte("a"))
				c.close(wire.TypeExited, []byte("0"))
				c.close(wire.TypeError, []byte("e"))
				c.send(wire.TypeOutput, []byte("b"))
				c.sendRedraw([]byte("r"))
			},
			want: `Output("a") Exited("0")`,
		},
		{
			name: "a lagging client is redrawn: its queued Output is replaced by the screen",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeAttached, []byte("{}"))
				c.send(wire.TypeOutput, tooBig)
				c.resyncIfLaggingLocked(fakeScreen{})
				c.send(wire.TypeOutput, []byte("a"))
			},
			want: `Attached("{}") Output("<redraw>") Output("a")`,
		},
		{
			name: "a relay that lagged is told in text instead of redrawn",
			cols: 0,
			do: func(c *client) {
				c.lagging = true
				c.resyncIfLaggingLocked(fakeScreen{})
			},
			want: `Output("\r\n[wr: output dropped: this client fell too far behind]\r\n")`,
		},
		{
			name: "a recorder that lagged is redrawn without the scrollback",
			cols: 0,
			do: func(c *client) {
				c.record = true
				c.lagging = true
				c.resyncIfLaggingLocked(fakeScreen{})
			},
			want: `Output("<screen from 7>")`,
		},
		{
			name: "a client that is not lagging is not redrawn",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, []byte("a"))
				c.resyncIfLaggingLocked(fakeScreen{})
			},
			want: `Output("a")`,
		},
		{
			name: "a closing client is neither lagging nor redrawn",
			cols: 80,
			do: func(c *client) {
				c.send(wire.TypeOutput, tooBig)
				c.close(0, nil)
				c.resyncIfLaggingLocked(fakeScreen{})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := queueClient(tc.cols, 24)
			tc.do(c)
			if got := queued(c); got != tc.want {
				t.Errorf("queued:\n got %s\nwant %s", got, tc.want)
			}
			if got := c.isLagging(); got != tc.lagging {
				t.Errorf("lagging is %v, want %v", got, tc.lagging)
			}
		})
	}
}

// readFrames reads frames from conn until it is closed, merging what the
// writer sent into "Type(payload)" per frame.
func readFrames(t *testing.T, conn net.Conn) []string {
	t.Helper()
	var got []string
	for {
		f, err := wire.ReadFrame(conn)
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, fmt.Sprintf("%s(%q)", f.Type, f.Payload))
	}
}

// The writer writes what was queued in order, consecutive Output in one
// frame, and closes the connection once the queue has drained after close.
func TestClientWriterDrainsThenCloses(t *testing.T) {
	ours, theirs := socketPair(t)
	c := newClient(1, ours, false, 80, 24)
	c.send(wire.TypeAttached, []byte("{}"))
	c.send(wire.TypeOutput, []byte("a"))
	c.send(wire.TypeOutput, []byte("b"))
	c.close(wire.TypeExited, []byte("0"))
	go c.writeLoop(func() { t.Error("a client that never lagged was asked to be redrawn") }, func() {})
	got := readFrames(t, theirs)
	<-c.done
	want := []string{`Attached("{}")`, `Output("ab")`, `Exited("0")`}
	if !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
}

// A client that lagged is redrawn once its writer has drained the queue,
// and only then; what it missed is not replayed.
func TestClientLaggingIsRedrawnWhenDrained(t *testing.T) {
	ours, theirs := socketPair(t)
	c := newClient(1, ours, false, 80, 24)
	c.send(wire.TypeAttached, []byte("{}"))
	c.send(wire.TypeOutput, []byte("missed"))
	c.send(wire.TypeOutput, make([]byte, maxQueued))
	redraws := 0
	go c.writeLoop(func() {
		redraws++
		c.resyncIfLaggingLocked(fakeScreen{})
		c.close(wire.TypeExited, []byte("0"))
	}, func() {})
	got := readFrames(t, theirs)
	<-c.done
	want := []string{`Attached("{}")`, `Output("<redraw>")`, `Exited("0")`}
	if !slices.Equal(got, want) || redraws != 1 {
		t.Fatalf("read %q after %d redraws, want %q after 1", got, redraws, want)
	}
}

// A write that fails ends the writer: the connection is closed and
// nothing more is queued.
func TestClientWriterStopsOnAFailedWrite(t *testing.T) {
	ours, theirs := socketPair(t)
	theirs.Close()
	c := newClient(1, ours, false, 80, 24)
	c.send(wire.TypeOutput, bytes.Repeat([]byte("x"), 1<<10))
	go c.writeLoop(func() {}, func() {})
	<-c.done
	c.send(wire.TypeOutput, []byte("a"))
	if got := queued(c); got != "" {
		t.Fatalf("queued after the writer stopped: %s", got)
	}
}

// A client marked as holding much through a memory release calls caughtUp
// once its writer has written what it held, and only then; one that held
// little is not marked.
func TestClientOwingAReleaseCallsCaughtUpOnceDrained(t *testing.T) {
	ours, theirs := socketPair(t)
	c := newClient(1, ours, false, 80, 24)
	c.send(wire.TypeOutput, make([]byte, 1<<10))
	if c.holdsMuch(4 << 10) {
		t.Fatal("a client given 1 KiB was marked as holding at least 4 KiB")
	}
	c.send(wire.TypeOutput, make([]byte, 8<<10))
	if !c.holdsMuch(4 << 10) {
		t.Fatal("a client given 8 KiB more was not marked as holding at least 4 KiB")
	}
	calls := make(chan struct{}, 2)
	c.close(wire.TypeExited, []byte("0"))
	go c.writeLoop(func() {}, func() { calls <- struct{}{} })
	readFrames(t, theirs)
	<-c.done
	if n := len(calls); n != 1 {
		t.Fatalf("caughtUp called %d times, want once", n)
	}
}
