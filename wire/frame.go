package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// MaxPayload is the largest payload a frame may carry. A reader checks the
// declared length against it before allocating, so a hostile or corrupt
// length costs nothing.
const MaxPayload = 1 << 20

// HeaderLen is the size of a frame header: type u8 | length u32 big-endian.
const HeaderLen = 5

// Frame is one message on the wire.
type Frame struct {
	Type    Type
	Payload []byte
}

// AppendFrame appends the encoding of a frame to dst. It refuses a payload
// over MaxPayload rather than writing something the peer must reject.
func AppendFrame(dst []byte, t Type, payload []byte) ([]byte, error) {
	if len(payload) > MaxPayload {
		return dst, fmt.Errorf("%w: %s payload of %d bytes (max %d)", ErrFrameTooLarge, t, len(payload), MaxPayload)
	}
	var h [HeaderLen]byte
	h[0] = byte(t)
	binary.BigEndian.PutUint32(h[1:], uint32(len(payload)))
	dst = append(dst, h[:]...)
	return append(dst, payload...), nil
}

// WriteFrame writes one frame with a single Write, so frames from one writer
// never interleave on a stream. Only one goroutine per connection may call it.
func WriteFrame(w io.Writer, t Type, payload []byte) error {
	buf, err := AppendFrame(make([]byte, 0, HeaderLen+len(payload)), t, payload)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// ReadFrame reads one frame. The length is checked before the payload is
// allocated: an oversize frame returns ErrFrameTooLarge with nothing read
// past its header, and the caller should answer with an error and close.
// A frame of a type this version does not know is returned whole, so the
// stream stays in step and the caller decides (a newer minor may add types).
func ReadFrame(r io.Reader) (Frame, error) {
	var h [HeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Frame{}, err
	}
	t := Type(h[0])
	n := binary.BigEndian.Uint32(h[1:])
	if n > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %s frame declares %d bytes (max %d)", ErrFrameTooLarge, t, n, MaxPayload)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	return Frame{Type: t, Payload: p}, nil
}
