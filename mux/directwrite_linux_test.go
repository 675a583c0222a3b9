package mux

import (
	"bytes"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"

	"wr/wire"
)

// smallBufferPair is a connected pair of Unix stream sockets, the server's end
// with a small send buffer so that it fills after a few KiB.
func smallBufferPair(t *testing.T) (server, peer *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socket")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	server, peer = conn(fds[0]), conn(fds[1])
	t.Cleanup(func() { server.Close(); peer.Close() })
	return server, peer
}

// The fan-out writes a small chunk straight to an idle client's socket
// (writeNowLocked), and queues what did not fit for the writer. Frames
// still arrive whole and in order: here the socket fills while no writer
// runs, so one chunk is cut inside its frame; output past the budget then
// drops what is queued, but never the cut frame's end; the writer, started
// after, must finish that frame before the redraw.
func TestDirectWritesKeepFramesWhole(t *testing.T) {
	conn, peer := smallBufferPair(t)
	c := newClient(1, conn, false, 80, 24)
	if c.fd == nil {
		t.Fatal("the client has no raw descriptor: nothing is written directly")
	}
	var sent bytes.Buffer
	cut, cutEnd := false, 0
	for i := 0; sent.Len() < 256<<10; i++ {
		chunk := bytes.Repeat([]byte{byte('a' + i%26)}, directMax) // a frame over the socket's largest buffer: cut when the socket fills
		sent.Write(chunk)
		c.send(wire.TypeOutput, chunk)
		c.queueMu.Lock()
		if len(c.queue) > 0 && c.queue[0].rest {
			cut, cutEnd = true, sent.Len()
		}
		c.queueMu.Unlock()
		if cut {
			break
		}
	}
	if !cut {
		t.Fatal("no direct write was cut short: the test did not fill the socket")
	}
	// Past the budget the queued Output is dropped, but not the end of the
	// frame the peer already has the header of.
	c.send(wire.TypeOutput, make([]byte, maxQueued+1))
	if !c.isLagging() {
		t.Fatal("the client is not lagging after output past its budget")
	}
	sent.Truncate(cutEnd)
	sent.WriteString("<redraw>") // what the writer asks for once it has drained
	go c.writeLoop(func() {
		c.resyncIfLaggingLocked(fakeScreen{})
		c.close(wire.TypeExited, []byte(`{"code":0}`))
	}, func() {})

	if got := readOutput(t, peer); !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", len(got), sent.Len())
	}
	<-c.done
}

// The same while the writer runs and the peer reads: the fan-out writes
// only while the writer holds nothing, so a chunk sent while the writer
// writes what was queued before it never overtakes it.
func TestDirectWritesKeepOrderWithTheWriter(t *testing.T) {
	conn, peer := smallBufferPair(t)
	c := newClient(1, conn, false, 80, 24)
	go c.writeLoop(func() {}, func() {})
	var sent bytes.Buffer
	for i := 0; sent.Len() < 1<<20; i++ {
		chunk := bytes.Repeat([]byte{byte('a' + i%26)}, 1+(i*97)%directMax)
		sent.Write(chunk)
	}
	go func() {
		p := sent.Bytes()
		for i := 0; len(p) > 0; i++ {
			n := min(len(p), 1+(i*97)%directMax)
			c.send(wire.TypeOutput, p[:n:n])
			p = p[n:]
		}
		c.close(wire.TypeExited, []byte(`{"code":0}`))
	}()
	if got := readOutput(t, peer); !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", len(got), sent.Len())
	}
	<-c.done
}

// The fan-out in a burst on one P writes for the writer (helpWriter). With
// the writer running beside it on other Ps, in every interleaving the
// scheduler finds, the peer must still get whole frames, every byte once,
// in order. (An independent review found frames cut into when the helper
// wrote while the writer held a batch it had not yet handed to its RawFD:
// this test failed in 3 runs of 40 then.)
func TestHelpedWriterKeepsFramesWholeAndInOrder(t *testing.T) {
	conn, peer := smallBufferPair(t)
	c := newClient(1, conn, false, 80, 24)
	go c.writeLoop(func() {}, func() {})
	var sent bytes.Buffer
	for i := 0; sent.Len() < 2<<20; i++ {
		sent.Write(bytes.Repeat([]byte{byte('a' + i%26)}, 1+(i*997)%(3*directMax)))
	}
	go func() {
		p := sent.Bytes()
		for i := 0; len(p) > 0; i++ {
			n := min(len(p), 1+(i*997)%(3*directMax))
			c.send(wire.TypeOutput, p[:n:n])
			p = p[n:]
			c.helpWriter()
		}
		c.close(wire.TypeExited, []byte(`{"code":0}`))
	}()
	if got := readOutput(t, peer); !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", len(got), sent.Len())
	}
	<-c.done
}

// readOutput reads Output frames until Exited and returns their payloads,
// in small reads: frames are cut across them.
func readOutput(t *testing.T, peer io.Reader) []byte {
	t.Helper()
	var got bytes.Buffer
	fr := wire.NewReaderSize(peer, 1<<10)
	for {
		f, err := fr.ReadFrame()
		switch {
		case err != nil:
			t.Fatalf("after %d bytes: %v", got.Len(), err)
		case f.Type == wire.TypeExited:
			return got.Bytes()
		case f.Type != wire.TypeOutput:
			t.Fatalf("after %d bytes: a %s frame", got.Len(), f.Type)
		}
		got.Write(f.Payload)
	}
}

// A writer that has taken the queue but not yet handed its batch to its
// RawFD (preempted while it builds the writev) must not be overtaken: the
// helper writes nothing until the batch is handed over and written. This
// is the interleaving the review found, made by hand.
func TestHelpWaitsForTheWritersBatch(t *testing.T) {
	conn, peer := smallBufferPair(t)
	c := newClient(1, conn, false, 80, 24)
	var sent bytes.Buffer
	queue := func(p []byte) {
		sent.Write(p)
		c.send(wire.TypeOutput, p)
	}
	// Chunks written at once (writeNowLocked) until the socket fills inside
	// one, whose end is queued as a rest; then one more, queued whole.
	direct := 0 // bytes the direct writes began, headers too
	for i := 0; ; i++ {
		queue(bytes.Repeat([]byte{byte('a' + i%26)}, directMax))
		direct += wire.HeaderLen + directMax
		c.queueMu.Lock()
		cut := len(c.queue) > 0
		c.queueMu.Unlock()
		if cut {
			break
		}
	}
	queue(bytes.Repeat([]byte("z"), directMax))
	// The writer's take (writeLoop), and no more.
	c.queueMu.Lock()
	batch := c.queue
	c.queue = nil
	c.inflight, c.queued = c.queued, 0
	c.writing = true
	c.queueMu.Unlock()
	// The peer takes what the direct writes wrote: the socket has room.
	// (Had the socket filled exactly at a frame's end, the last chunk was
	// queued whole, and none of it was written.)
	written := direct - len(batch[0].p)
	if !batch[0].rest {
		written = direct - wire.HeaderLen - directMax
	}
	head := make([]byte, written)
	if _, err := io.ReadFull(peer, head); err != nil {
		t.Fatal(err)
	}
	queue([]byte("NEW"))
	before := busyProcs.helped.Load()
	c.helpWriter()
	if n := busyProcs.helped.Load() - before; n != 0 {
		t.Fatalf("the helper wrote %d bytes ahead of the writer's batch", n)
	}
	// The writer goes on: its batch, then the rest of the queue.
	go func() {
		var hdrs []byte
		var bufs net.Buffers
		if _, err := c.writeBatch(batch, &hdrs, &bufs); err != nil {
			t.Error(err)
		}
		c.queueMu.Lock()
		c.writing = false
		c.queueMu.Unlock()
		c.close(wire.TypeExited, []byte(`{"code":0}`))
		c.writeLoop(func() {}, func() {})
	}()
	c.wakeWriter()
	if got := readOutput(t, io.MultiReader(bytes.NewReader(head), peer)); !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", len(got), sent.Len())
	}
	<-c.done
}

// On one P a writer waiting in the poller for room is woken only when the
// P runs dry: the helper writes its batch meanwhile, once the peer makes
// room.
func TestHelpWritesForAWaitingWriter(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	conn, peer := smallBufferPair(t)
	c := newClient(1, conn, false, 80, 24)
	var sent bytes.Buffer
	for i := 0; sent.Len() < 1<<20; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 2*directMax)
		sent.Write(p)
		c.send(wire.TypeOutput, p)
	}
	go c.writeLoop(func() {}, func() {})
	// Reading blocks this goroutine: the writer runs, fills the socket and
	// waits in the poller, and the poll brings this read back.
	var got bytes.Buffer
	buf := make([]byte, 64<<10)
	before := busyProcs.helped.Load()
	for busyProcs.helped.Load() == before {
		n, err := peer.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", got.Len(), err)
		}
		got.Write(buf[:n])
		if got.Len() >= sent.Len() {
			t.Fatal("the writer wrote everything itself: the helper never found it waiting")
		}
		c.helpWriter()
	}
	c.close(wire.TypeExited, []byte(`{"code":0}`))
	rest := readOutput(t, io.MultiReader(bytes.NewReader(got.Bytes()), peer))
	if !bytes.Equal(rest, sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", len(rest), sent.Len())
	}
	<-c.done
}

// Output a client adopted in an upgrade was owed is counted in queued as
// send counts it, so the helper, writing part of it, takes that part back.
// An independent review found it uncounted: queued kept the whole of it,
// and a client that kept up after an upgrade could be marked lagging.
func TestAdoptedOutputIsCountedAsItIsWritten(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	peer := os.NewFile(uintptr(fds[1]), "peer")
	t.Cleanup(func() { peer.Close() })
	owed := bytes.Repeat([]byte("o"), 2<<20) // more than the socket holds
	c, err := (&server{}).adoptClient(handoffClient{ID: 1, FD: fds[0], Cols: 80, Rows: 24, Out: owed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.conn.Close() })
	c.helpWriter()
	c.queueMu.Lock()
	defer c.queueMu.Unlock()
	if len(c.queue) != 1 || len(c.queue[0].p) == len(owed) {
		t.Fatalf("the helper did not write part of what was owed: %d frames left", len(c.queue))
	}
	if want := max(len(c.queue[0].p), 64); c.queued != want {
		t.Fatalf("queued = %d after the helper wrote %d of %d owed bytes; want %d", c.queued, len(owed)-len(c.queue[0].p), len(owed), want)
	}
}
