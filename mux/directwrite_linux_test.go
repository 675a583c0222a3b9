package mux

import (
	"bytes"
	"net"
	"os"
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

	var got bytes.Buffer
	fr := wire.NewReader(peer)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", got.Len(), sent.Len(), err)
		}
		if f.Type == wire.TypeExited {
			break
		}
		if f.Type != wire.TypeOutput {
			t.Fatalf("after %d bytes: a %s frame", got.Len(), f.Type)
		}
		got.Write(f.Payload)
	}
	if !bytes.Equal(got.Bytes(), sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", got.Len(), sent.Len())
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
	var got bytes.Buffer
	fr := wire.NewReaderSize(peer, 1<<10)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", got.Len(), sent.Len(), err)
		}
		if f.Type == wire.TypeExited {
			break
		}
		got.Write(f.Payload)
	}
	if !bytes.Equal(got.Bytes(), sent.Bytes()) {
		t.Fatalf("received %d bytes, sent %d: not the same stream", got.Len(), sent.Len())
	}
	<-c.done
}
