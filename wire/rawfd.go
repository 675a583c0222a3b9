package wire

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"wr/internal/rawio"
)

// RawFD reads and writes a non-blocking descriptor (a socket, a PTY master,
// a reopened terminal) the way package os and net do, waiting in the
// runtime's poller with deadlines and Close applying, but issues each
// read(2) and writev(2) as a raw system call (package rawio's), one the
// scheduler is not told about.
//
// Why: a system call made the usual way may block, so the scheduler
// prepares for it. The first one after the process was idle wakes the
// runtime's monitor thread, and the monitor hands the P of one that takes
// longer than its tick (20 µs and up: a 64 KiB write, a PTY read held up by
// the line discipline) to another thread, which has to be woken. With a cat
// running through a session those wake-ups were a third of the server's
// context switches, and a busy server has one P (see mux). A call on a
// non-blocking descriptor does not wait for data or room, so it can keep its
// P: usually for microseconds; a PTY read can sleep in the kernel while the
// line discipline hands over pending input (p99 133 µs, at worst 4 ms, in a
// 100 MB burst), which the whole server then waits out, as it would any
// read on one P.
//
// The race detector does not see raw calls: it no longer learns that the
// kernel wrote a read buffer. Buffers here are never shared before the
// call returns.
//
// Only for descriptors in non-blocking mode: a raw call that blocked would
// hold its P, and any stop of the world, for as long as it blocked. A RawFD
// is for one reader and one writer goroutine at a time. Beside the
// writer's WriteBuffers, another goroutine may call Flush and
// WriteBuffersNow (wmu orders them); Write and WriteNow share a buffer and
// are the writer's alone.
type RawFD struct {
	rc syscall.RawConn

	// The reader's side: Read's arguments and results, and the function
	// the poller calls, made once. A closure made per call escapes to the
	// heap (RawConn.Read keeps it through an interface), and an echo went
	// through five such allocations in each process, at a cache-cold
	// moment, every keystroke.
	rb     []byte
	rn     int
	rerrno syscall.Errno
	readFn func(fd uintptr) bool

	// The writer's side, the same way for WriteBuffers and
	// WriteBuffersNow. wmu guards it: WriteBuffers' goroutine may wait in
	// the poller with part of its buffers unwritten, and Flush writes them
	// meanwhile.
	wmu     sync.Mutex
	flushFn func(fd uintptr)
	iovs    []syscall.Iovec // the iovecs of the write, kept between calls
	iov     []syscall.Iovec // what is left of them to write
	one     [1][]byte       // Write's and WriteNow's buffers
	wtotal  int64
	werrno  syscall.Errno
	active  bool // a WriteBuffers has handed over its buffers and not yet returned
	// WriteBuffersNow's own: it may write while a WriteBuffers that Flush
	// finished waits in the poller, whose count must stay its own.
	nowIovs  []syscall.Iovec
	nowTotal int64
	nowErrno syscall.Errno
	writeFn  func(fd uintptr) bool
	writeNow func(fd uintptr)
}

// errBlocking is returned by NewRawFD for a descriptor in blocking mode.
var errBlocking = errors.New("wire: descriptor is in blocking mode")

// NewRawFD returns a RawFD on the descriptor of c (a *net.UnixConn, an
// *os.File opened non-blocking), or errBlocking. The descriptor must stay
// non-blocking for the RawFD's life: never call (*os.File).Fd on it, which
// makes it blocking.
func NewRawFD(c syscall.Conn) (*RawFD, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	var flags int
	ferr := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	switch {
	case ferr != nil:
		return nil, ferr
	case err != nil:
		return nil, err
	case flags&unix.O_NONBLOCK == 0:
		return nil, errBlocking
	}
	f := &RawFD{rc: rc}
	f.readFn, f.writeFn, f.writeNow = f.readReady, f.writeReady, f.writeReadyNow
	f.flushFn = func(fd uintptr) { f.writeSome(fd) }
	return f, nil
}

// Read reads into b, waiting until something can be read. It returns io.EOF
// at the end of a stream.
func (f *RawFD) Read(b []byte) (int, error) {
	f.rb, f.rn, f.rerrno = b, 0, 0
	err := f.rc.Read(f.readFn)
	n, errno := f.rn, f.rerrno
	f.rb = nil // hold no buffer past the call
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0 && len(b) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// readReady is Read's call, made by the poller when fd may be readable.
func (f *RawFD) readReady(fd uintptr) bool {
	for {
		f.rn, f.rerrno = rawio.Read(fd, f.rb)
		switch f.rerrno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait in the poller
		}
		return true
	}
}

// Write writes all of b, waiting for room as often as it takes.
func (f *RawFD) Write(b []byte) (int, error) {
	f.one[0] = b
	n, err := f.WriteBuffers(f.one[:])
	f.one[0] = nil
	return int(n), err
}

// WriteBuffers writes every buffer, in order, with as few writev(2) calls as
// the descriptor takes: one, unless it fills up (or Flush helps).
func (f *RawFD) WriteBuffers(bufs [][]byte) (int64, error) {
	f.wmu.Lock()
	all := f.fill(bufs)
	f.wtotal, f.werrno = 0, 0
	f.active = true
	f.wmu.Unlock()
	err := f.rc.Write(f.writeFn)
	f.wmu.Lock()
	total, errno := f.wtotal, f.werrno
	clear(all) // hold no buffer past the call
	f.iov = nil
	f.active = false
	f.wmu.Unlock()
	switch {
	case err != nil:
		return total, err
	case errno != 0:
		return total, os.NewSyscallError("writev", errno)
	}
	return total, nil
}

// fill makes the iovecs of bufs' non-empty buffers the ones to write, and
// returns them all, for the caller to clear. Called with wmu held.
func (f *RawFD) fill(bufs [][]byte) []syscall.Iovec {
	iov := f.iovs[:0]
	for _, b := range bufs {
		if len(b) > 0 {
			iov = append(iov, iovec(b))
		}
	}
	f.iovs, f.iov = iov, iov
	return iov
}

// writeReady is WriteBuffers' call, made by the poller when fd may have
// room.
func (f *RawFD) writeReady(fd uintptr) bool {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return f.writeSome(fd)
}

// writeSome writes what is left of WriteBuffers' buffers until they are
// written, the descriptor is full (false: wait for room) or a write fails.
// Called with wmu held.
func (f *RawFD) writeSome(fd uintptr) bool {
	for len(f.iov) > 0 && f.werrno == 0 {
		n, e := rawio.Writev(fd, f.iov[:min(len(f.iov), maxIovecs)])
		switch e {
		case 0:
			if n == 0 {
				f.werrno = syscall.EIO // no progress and no error: never spin holding the P
				return true
			}
			f.wtotal += int64(n)
			f.iov = consumed(f.iov, n)
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait for room in the poller
		}
		f.werrno = e
	}
	return true
}

// Flush writes what a WriteBuffers waiting for room has left, as far as
// the descriptor takes it now, and never waits. It lets a goroutine that
// keeps its P (a PTY reader pouring on the server's one P, see mux) move
// a writer's output along before the scheduler polls for it: Go polls the
// network only when its P runs dry. The writer, woken later, finds its
// buffers written. Flush returns how much it wrote, and done: a
// WriteBuffers is under way and has nothing left to write. Only then may
// bytes written now (WriteBuffersNow) follow the writer's: with no
// WriteBuffers under way the writer may hold buffers it has yet to hand
// over. A Flush that finds the writer writing does nothing.
func (f *RawFD) Flush() (n int64, done bool) {
	if !f.wmu.TryLock() {
		return 0, false
	}
	defer f.wmu.Unlock()
	if len(f.iov) > 0 && f.werrno == 0 {
		before := f.wtotal
		_ = f.rc.Control(f.flushFn)
		n = f.wtotal - before
	}
	return n, f.active && len(f.iov) == 0 && f.werrno == 0
}

// WriteNow writes as much of b as the descriptor takes at once, perhaps
// nothing, and never waits for room.
func (f *RawFD) WriteNow(b []byte) (int, error) {
	f.one[0] = b
	n, err := f.WriteBuffersNow(f.one[:])
	f.one[0] = nil
	return int(n), err
}

// WriteBuffersNow writes as much of bufs, in order, as the descriptor takes
// in one writev(2), perhaps nothing, and never waits for room. It may be
// called while a WriteBuffers waits for room, once Flush has written all
// that one had left (bytes written meanwhile follow its own).
func (f *RawFD) WriteBuffersNow(bufs [][]byte) (int64, error) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	all := f.nowIovs[:0]
	for _, b := range bufs {
		if len(b) > 0 {
			all = append(all, iovec(b))
		}
	}
	f.nowIovs = all
	if len(all) == 0 {
		return 0, nil
	}
	defer clear(all) // hold no buffer past the call
	f.nowTotal, f.nowErrno = 0, 0
	// Control, not Write: this never waits, and wmu already keeps it from
	// a WriteBuffers, which holds the descriptor's write lock while it
	// waits for room.
	err := f.rc.Control(f.writeNow)
	n, errno := f.nowTotal, f.nowErrno
	switch {
	case err != nil:
		return 0, err
	case errno == syscall.EAGAIN:
		return 0, nil
	case errno != 0:
		return 0, os.NewSyscallError("writev", errno)
	}
	return n, nil
}

// writeReadyNow is WriteBuffersNow's call: one writev, whatever it takes.
func (f *RawFD) writeReadyNow(fd uintptr) {
	for {
		n, e := rawio.Writev(fd, f.nowIovs[:min(len(f.nowIovs), maxIovecs)])
		if e != syscall.EINTR {
			f.nowTotal, f.nowErrno = int64(n), e
			return
		}
	}
}

// maxIovecs is IOV_MAX on Linux and macOS.
const maxIovecs = 1024

// consumed drops the first n bytes from iov.
func consumed(iov []syscall.Iovec, n int) []syscall.Iovec {
	for n > 0 && len(iov) > 0 {
		l := int(iov[0].Len)
		if n < l {
			iov[0] = iovec(iovBytes(iov[0])[n:])
			return iov
		}
		n -= l
		iov = iov[1:]
	}
	return iov
}

func iovec(b []byte) syscall.Iovec {
	v := syscall.Iovec{Base: unsafe.SliceData(b)}
	v.SetLen(len(b))
	return v
}

func iovBytes(v syscall.Iovec) []byte { return unsafe.Slice(v.Base, v.Len) }
