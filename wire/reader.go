package wire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Reader reads frames from a stream through one buffer and one reused
// payload slice, so a busy stream costs neither a syscall nor an allocation
// per frame. A frame's payload is valid only until the next ReadFrame.
//
// A read that fails part way through a frame (a deadline) keeps what it
// read: the next ReadFrame goes on from there, and Pending returns it, so
// the server can stop reading a connection anywhere and hand it over.
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	size int // the least payload slice allocated
	// The frame being read: its header so far (hn bytes) and, once the
	// header is whole, its payload so far (pn bytes of buf).
	hdr [HeaderLen]byte
	hn  int
	pn  int
}

// NewReader returns a Reader on r.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, 64<<10) }

// NewReaderSize returns a Reader on r whose buffer (and the least payload
// slice it allocates) is size bytes: a server with thousands of mostly idle
// connections reads each through a small one. A frame larger than the
// buffer is read straight into its payload.
func NewReaderSize(r io.Reader, size int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, size), size: size}
}

// ReadFrame reads the next frame, with the checks of the package-level
// ReadFrame: the length is checked against MaxPayload before anything is
// allocated.
func (r *Reader) ReadFrame() (Frame, error) {
	for r.hn < HeaderLen {
		n, err := r.br.Read(r.hdr[r.hn:])
		r.hn += n
		if err != nil {
			if err == io.EOF && r.hn > 0 {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
	}
	t := Type(r.hdr[0])
	n := binary.BigEndian.Uint32(r.hdr[1:])
	if n > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %s frame declares %d bytes (max %d)", ErrFrameTooLarge, t, n, MaxPayload)
	}
	if r.pn == 0 && cap(r.buf) < int(n) {
		r.buf = make([]byte, n, max(int(n), r.size))
	}
	p := r.buf[:n]
	for r.pn < len(p) {
		m, err := r.br.Read(p[r.pn:])
		r.pn += m
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
	}
	r.hn, r.pn = 0, 0
	return Frame{Type: t, Payload: p}, nil
}

// Pending returns a copy of what the Reader has taken from the stream and
// not yet returned as a frame: the frame a failed ReadFrame was part way
// through, and what its buffer holds beyond it. Whoever reads the stream
// next (after a hand-off) starts with these bytes.
func (r *Reader) Pending() []byte {
	out := append([]byte(nil), r.hdr[:r.hn]...)
	if r.hn == HeaderLen {
		out = append(out, r.buf[:r.pn]...)
	}
	b, _ := r.br.Peek(r.br.Buffered())
	return append(out, b...)
}
