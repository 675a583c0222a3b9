package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// socketPair returns both ends of a connected stream socket, as the net
// package makes them: non-blocking and in the poller.
func socketPair(t testing.TB) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

func rawFD(t testing.TB, c syscall.Conn) *RawFD {
	t.Helper()
	fd, err := NewRawFD(c)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestRawFDReadsWhatWasWritten(t *testing.T) {
	a, b := socketPair(t)
	w, r := rawFD(t, a), rawFD(t, b)
	if n, err := w.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Read = %q, %v; want hello", buf[:n], err)
	}
}

func TestRawFDReadWaitsForData(t *testing.T) {
	a, b := socketPair(t)
	r := rawFD(t, b)
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, _ := r.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		t.Fatalf("Read returned %q before anything was written", s)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := a.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "late" {
			t.Fatalf("Read = %q, want late", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return after the write")
	}
}

func TestRawFDReadEOF(t *testing.T) {
	a, b := socketPair(t)
	r := rawFD(t, b)
	a.Close()
	if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after the peer closed = %d, %v; want 0, EOF", n, err)
	}
}

func TestRawFDReadDeadline(t *testing.T) {
	_, b := socketPair(t)
	r := rawFD(t, b)
	_ = b.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past its deadline: %v; want a deadline error", err)
	}
}

func TestRawFDReadEndsAtClose(t *testing.T) {
	_, b := socketPair(t)
	r := rawFD(t, b)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	time.AfterFunc(20*time.Millisecond, func() { b.Close() })
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Read on a closed connection succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still waiting after Close")
	}
}

// More buffers than one writev takes, more bytes than the socket holds: the
// writer waits for room and resumes mid-buffer, and every byte arrives in
// order.
func TestRawFDWriteBuffersWaitsForRoom(t *testing.T) {
	a, b := socketPair(t)
	w := rawFD(t, a)
	var want bytes.Buffer
	var bufs [][]byte
	for i := 0; want.Len() < 4<<20; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%3000)
		if i%7 == 0 {
			p = nil // empty buffers are skipped
		}
		want.Write(p)
		bufs = append(bufs, p)
	}
	if len(bufs) <= maxIovecs {
		t.Fatalf("only %d buffers: the test needs more than one writev's worth", len(bufs))
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(b)
		got <- b
	}()
	n, err := w.WriteBuffers(bufs)
	if err != nil || n != int64(want.Len()) {
		t.Fatalf("WriteBuffers = %d, %v; want %d", n, err, want.Len())
	}
	a.Close()
	if g := <-got; !bytes.Equal(g, want.Bytes()) {
		t.Fatalf("read %d bytes, not the %d written in order", len(g), want.Len())
	}
	for i, v := range w.iovs[:cap(w.iovs)] {
		if v.Base != nil {
			t.Fatalf("iovec %d still points at a caller's buffer after the write", i)
		}
	}
}

// Flush writes what a write has left, as far as the socket takes it now,
// and leaves the rest for the writer; with nothing left it writes nothing.
func TestRawFDFlushWritesWhatIsLeft(t *testing.T) {
	a, b := socketPair(t)
	w := rawFD(t, a)
	if n, done := w.Flush(); n != 0 || done { // no write under way: nothing is written, and it is not done
		t.Fatalf("Flush with no write under way = %d, %v; want 0, false", n, done)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: more than the socket holds
	w.wmu.Lock()
	w.fill([][]byte{want}) // as a WriteBuffers waiting for room leaves it
	w.active = true
	w.wmu.Unlock()
	if n, done := w.Flush(); n != w.wtotal || done {
		t.Fatalf("Flush = %d, %v; want %d, false", n, done, w.wtotal)
	}
	if w.wtotal == 0 || w.wtotal >= int64(len(want)) || w.werrno != 0 {
		t.Fatalf("Flush wrote %d of %d bytes (errno %v): want some, not all", w.wtotal, len(want), w.werrno)
	}
	got := make([]byte, w.wtotal)
	if _, err := io.ReadFull(b, got); err != nil || !bytes.Equal(got, want[:len(got)]) {
		t.Fatalf("the peer read %d bytes (%v), not the first %d written", len(got), err, w.wtotal)
	}
	before := w.wtotal
	w.Flush() // room again: more goes
	if w.wtotal <= before {
		t.Fatalf("a second Flush after the peer read wrote nothing more (%d)", w.wtotal)
	}
	// The peer reads on: Flush writes the rest, and then reports done.
	var all bytes.Buffer
	all.Write(got)
	for all.Len() < len(want) {
		if _, done := w.Flush(); done != (w.wtotal == int64(len(want))) {
			t.Fatalf("Flush reported done %v with %d of %d written", done, w.wtotal, len(want))
		}
		buf := make([]byte, int(w.wtotal)-all.Len())
		if _, err := io.ReadFull(b, buf); err != nil {
			t.Fatal(err)
		}
		all.Write(buf)
	}
	if !bytes.Equal(all.Bytes(), want) {
		t.Fatal("the peer read other bytes than were written")
	}
}

// A writer waiting for room and another goroutine flushing for it write
// every byte once, in order, and WriteBuffers counts them all.
func TestRawFDFlushBesideAWaitingWriter(t *testing.T) {
	a, b := socketPair(t)
	w := rawFD(t, a)
	var want bytes.Buffer
	var bufs [][]byte
	for i := 0; want.Len() < 8<<20; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%5000)
		want.Write(p)
		bufs = append(bufs, p)
	}
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 3000) // small reads: the writer waits often
		for {
			n, err := b.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				got <- all
				return
			}
		}
	}()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
				w.Flush()
			}
		}
	}()
	n, err := w.WriteBuffers(bufs)
	close(stop)
	<-stopped
	if err != nil || n != int64(want.Len()) {
		t.Fatalf("WriteBuffers = %d, %v; want %d", n, err, want.Len())
	}
	a.Close()
	if g := <-got; !bytes.Equal(g, want.Bytes()) {
		t.Fatalf("read %d bytes, not the %d written in order", len(g), want.Len())
	}
}

func TestRawFDWriteToClosedPeer(t *testing.T) {
	a, b := socketPair(t)
	w := rawFD(t, a)
	b.Close()
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write to a closed peer: %v; want EPIPE", err)
	}
}

func TestConsumed(t *testing.T) {
	parts := []string{"ab", "cde", "f"}
	all := "abcdef"
	for n := 0; n <= len(all); n++ {
		var iov []syscall.Iovec
		for _, p := range parts {
			iov = append(iov, iovec([]byte(p)))
		}
		var rest []byte
		for _, v := range consumed(iov, n) {
			rest = append(rest, iovBytes(v)...)
		}
		if string(rest) != all[n:] {
			t.Errorf("consumed(%d) leaves %q, want %q", n, rest, all[n:])
		}
	}
}

// A blocking descriptor is refused: a raw read on it would hold a P, and
// stop the world, for as long as it waited.
func TestRawFDRefusesBlocking(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	defer w.Close()
	if _, err := NewRawFD(r); !errors.Is(err, errBlocking) {
		t.Fatalf("NewRawFD on a blocking pipe: %v; want errBlocking", err)
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		t.Fatal(err)
	}
	if _, err := NewRawFD(r); err != nil {
		t.Fatalf("NewRawFD on the same pipe made non-blocking: %v", err)
	}
}

// The raw paths must stay allocation-free: a keystroke's frame and an echo
// go through them.

func BenchmarkRawFDWriteRead(b *testing.B) {
	x, y := socketPair(b)
	w, r := rawFD(b, x), rawFD(b, y)
	msg := []byte("\x01\x00\x00\x00\x01a") // an Input frame of one key
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawFDWriteBuffers(b *testing.B) {
	x, y := socketPair(b)
	w, r := rawFD(b, x), rawFD(b, y)
	bufs := [][]byte{[]byte("\x02\x00\x00\x10\x00"), bytes.Repeat([]byte("y"), 4096)}
	buf := make([]byte, 8192)
	b.SetBytes(4101)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.WriteBuffers(bufs); err != nil {
			b.Fatal(err)
		}
		for got := 0; got < 4101; {
			n, err := r.Read(buf)
			if err != nil {
				b.Fatal(err)
			}
			got += n
		}
	}
}

func BenchmarkRawFDWriteNow(b *testing.B) {
	x, y := socketPair(b)
	w, r := rawFD(b, x), rawFD(b, y)
	msg := []byte("echo")
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := w.WriteNow(msg); n != len(msg) || err != nil {
			b.Fatal(n, err)
		}
		if _, err := r.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// A keystroke's frame and its echo each pass through a RawFD in both
// processes: none of its calls may allocate (a closure per call escaped to
// the heap, five allocations an echo).
func TestRawFDDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	x, y := socketPair(t)
	w, r := rawFD(t, x), rawFD(t, y)
	msg := []byte("\x01\x00\x00\x00\x01a")
	bufs := [][]byte{msg[:2], msg[2:]}
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Write", func() error { _, err := w.Write(msg); return err }},
		{"WriteBuffers", func() error { _, err := w.WriteBuffers(bufs); return err }},
		{"WriteNow", func() error { _, err := w.WriteNow(msg); return err }},
		{"WriteBuffersNow", func() error { _, err := w.WriteBuffersNow(bufs); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(100, func() {
				if err := tc.call(); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Read(buf); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Fatalf("%s and Read allocated %.1f times a call", tc.name, allocs)
			}
		})
	}
}
