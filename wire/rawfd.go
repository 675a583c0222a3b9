package wire

import (
	"errors"
	"io"
	"os"
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
// is for one reader and one writer goroutine at a time.
type RawFD struct {
	rc  syscall.RawConn
	iov []syscall.Iovec // WriteBuffers' scratch; the writer's alone
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
	return &RawFD{rc: rc}, nil
}

// Read reads into b, waiting until something can be read. It returns io.EOF
// at the end of a stream.
func (f *RawFD) Read(b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := f.rc.Read(func(fd uintptr) bool {
		for {
			n, errno = rawio.Read(fd, b)
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the poller
			}
			return true
		}
	})
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

// Write writes all of b, waiting for room as often as it takes.
func (f *RawFD) Write(b []byte) (int, error) {
	n, err := f.WriteBuffers([][]byte{b})
	return int(n), err
}

// WriteBuffers writes every buffer, in order, with as few writev(2) calls as
// the descriptor takes: one, unless it fills up.
func (f *RawFD) WriteBuffers(bufs [][]byte) (int64, error) {
	iov := f.iov[:0]
	for _, b := range bufs {
		if len(b) > 0 {
			iov = append(iov, iovec(b))
		}
	}
	f.iov = iov
	defer clear(f.iov) // hold no buffer past the call
	var total int64
	var errno syscall.Errno
	err := f.rc.Write(func(fd uintptr) bool {
		for len(iov) > 0 {
			n, e := rawio.Writev(fd, iov[:min(len(iov), maxIovecs)])
			switch e {
			case 0:
				if n == 0 {
					errno = syscall.EIO // no progress and no error: never spin holding the P
					return true
				}
				total += int64(n)
				iov = consumed(iov, n)
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait for room in the poller
			}
			errno = e
			return true
		}
		return true
	})
	switch {
	case err != nil:
		return total, err
	case errno != 0:
		return total, os.NewSyscallError("writev", errno)
	}
	return total, nil
}

// WriteNow writes as much of b as the descriptor takes at once, perhaps
// nothing, and never waits for room.
func (f *RawFD) WriteNow(b []byte) (int, error) {
	n, err := f.WriteBuffersNow([][]byte{b})
	return int(n), err
}

// WriteBuffersNow writes as much of bufs, in order, as the descriptor takes
// in one writev(2), perhaps nothing, and never waits for room.
func (f *RawFD) WriteBuffersNow(bufs [][]byte) (int64, error) {
	iov := f.iov[:0] // the writer's scratch, as in WriteBuffers
	for _, b := range bufs {
		if len(b) > 0 {
			iov = append(iov, iovec(b))
		}
	}
	if len(iov) == 0 {
		return 0, nil
	}
	f.iov = iov
	defer clear(f.iov)
	var n int
	var errno syscall.Errno
	err := f.rc.Write(func(fd uintptr) bool {
		for {
			n, errno = rawio.Writev(fd, iov[:min(len(iov), maxIovecs)])
			if errno != syscall.EINTR {
				return true
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno == syscall.EAGAIN:
		return 0, nil
	case errno != 0:
		return 0, os.NewSyscallError("writev", errno)
	}
	return int64(n), nil
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
