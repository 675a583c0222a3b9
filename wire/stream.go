package wire

import (
	"fmt"
	"io"
)

// DataChunk is how much of a body a Data frame carries when the writer has
// no reason to pick another size: small enough that a server holds little
// per stream, large enough that frames cost nothing.
const DataChunk = 64 << 10

// DataWriter writes a body as Data frames, each written whole with one
// Write, and ends it with End. Like WriteFrame, it is for the one goroutine
// that writes the connection.
type DataWriter struct {
	w     io.Writer
	chunk int
	buf   []byte
	n     int64
}

// NewDataWriter returns a DataWriter on w that puts at most chunk bytes in
// a frame (DataChunk when chunk is 0 or over MaxPayload).
func NewDataWriter(w io.Writer, chunk int) *DataWriter {
	if chunk <= 0 || chunk > MaxPayload {
		chunk = DataChunk
	}
	return &DataWriter{w: w, chunk: chunk}
}

// Write sends b as one or more Data frames.
func (d *DataWriter) Write(b []byte) (int, error) {
	done := 0
	for len(b) > 0 {
		n := min(len(b), d.chunk)
		if cap(d.buf) < HeaderLen+n {
			d.buf = make([]byte, 0, HeaderLen+d.chunk)
		}
		d.buf, _ = AppendFrame(d.buf[:0], TypeData, b[:n]) // n <= MaxPayload
		if _, err := d.w.Write(d.buf); err != nil {
			return done, err
		}
		done += n
		d.n += int64(n)
		b = b[n:]
	}
	return done, nil
}

// Written is how many body bytes Write has sent.
func (d *DataWriter) Written() int64 { return d.n }

// Close ends the body with End. It does not close the connection.
func (d *DataWriter) Close() error {
	var h [HeaderLen]byte
	h[0] = byte(TypeEnd)
	_, err := d.w.Write(h[:])
	return err
}

// WriteData writes all of b as Data frames of at most chunk bytes, then End.
func WriteData(w io.Writer, b []byte, chunk int) error {
	d := NewDataWriter(w, chunk)
	if _, err := d.Write(b); err != nil {
		return err
	}
	return d.Close()
}

// ReadData copies the payloads of Data frames to w until End, and returns
// how many bytes it copied. A frame of another type stops it: that frame is
// returned in next (its payload valid until r's next read) for the caller
// to handle, an Error say; next is nil when End was read. A stream that
// ends before End is io.ErrUnexpectedEOF; an End with a payload is
// ErrBadPayload; w's error is returned as it is.
func ReadData(r *Reader, w io.Writer) (n int64, next *Frame, err error) {
	for {
		f, err := r.ReadFrame()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, nil, err
		}
		switch f.Type {
		case TypeData:
			m, err := w.Write(f.Payload)
			n += int64(m)
			if err != nil {
				return n, nil, err
			}
		case TypeEnd:
			if len(f.Payload) != 0 {
				return n, nil, fmt.Errorf("%w: End with a %d-byte payload", ErrBadPayload, len(f.Payload))
			}
			return n, nil, nil
		default:
			return n, &f, nil
		}
	}
}
