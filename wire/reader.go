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
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	size int // the least payload slice allocated
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
	var h [HeaderLen]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		return Frame{}, err
	}
	t := Type(h[0])
	n := binary.BigEndian.Uint32(h[1:])
	if n > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %s frame declares %d bytes (max %d)", ErrFrameTooLarge, t, n, MaxPayload)
	}
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n, max(int(n), r.size))
	}
	p := r.buf[:n]
	if _, err := io.ReadFull(r.br, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	return Frame{Type: t, Payload: p}, nil
}
