package wire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"wr/wire"
)

// body is a deterministic body of n bytes with every byte value in it.
func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// A body of any size crosses as Data frames under the cap and arrives
// byte-identical, whatever the chunk size.
func TestDataRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		chunk int
	}{
		{"empty", 0, 0},
		{"one byte", 1, 0},
		{"exactly one chunk", wire.DataChunk, 0},
		{"one over a chunk", wire.DataChunk + 1, 0},
		{"5 MiB in default chunks", 5 << 20, 0},
		{"5 MiB in MaxPayload chunks", 5<<20 + 3, wire.MaxPayload},
		{"chunk over the cap is clamped", 3 << 20, wire.MaxPayload + 1},
		{"tiny chunks", 1000, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := body(tt.size)
			var stream bytes.Buffer
			if err := wire.WriteData(&stream, want, tt.chunk); err != nil {
				t.Fatal(err)
			}
			// Every frame is under the cap; the last is an empty End.
			raw := bytes.NewReader(stream.Bytes())
			frames := 0
			for {
				f, err := wire.ReadFrame(raw)
				if err != nil {
					t.Fatalf("frame %d: %v", frames, err)
				}
				frames++
				if len(f.Payload) > wire.MaxPayload {
					t.Fatalf("frame of %d bytes", len(f.Payload))
				}
				if f.Type == wire.TypeEnd {
					break
				}
				if f.Type != wire.TypeData || len(f.Payload) == 0 {
					t.Fatalf("frame %d: %s of %d bytes", frames, f.Type, len(f.Payload))
				}
			}
			if raw.Len() != 0 {
				t.Fatalf("%d bytes after End", raw.Len())
			}
			var got bytes.Buffer
			n, next, err := wire.ReadData(wire.NewReader(bytes.NewReader(stream.Bytes())), &got)
			if err != nil || next != nil {
				t.Fatalf("ReadData: n=%d next=%v err=%v", n, next, err)
			}
			if n != int64(len(want)) || !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("got %d bytes (n=%d), want %d, identical=%v", got.Len(), n, len(want), bytes.Equal(got.Bytes(), want))
			}
		})
	}
}

// A DataWriter fed in pieces writes the same body.
func TestDataWriterPieces(t *testing.T) {
	want := body(300_001)
	var stream bytes.Buffer
	d := wire.NewDataWriter(&stream, 4096)
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 12345)
		if _, err := d.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if d.Written() != int64(len(want)) {
		t.Fatalf("Written = %d, want %d", d.Written(), len(want))
	}
	var got bytes.Buffer
	if _, _, err := wire.ReadData(wire.NewReader(&stream), &got); err != nil || !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("err %v, identical %v", err, bytes.Equal(got.Bytes(), want))
	}
}

// A frame of another type stops ReadData and is handed back, so the caller
// can take an Error in the middle of a body.
func TestReadDataStopsAtOtherFrame(t *testing.T) {
	var stream bytes.Buffer
	d := wire.NewDataWriter(&stream, 0)
	d.Write([]byte("abc"))
	p, _ := wire.Encode(wire.Error{Code: wire.CodeTimeout, Message: "late", Written: 3})
	wire.WriteFrame(&stream, wire.TypeError, p)
	var got bytes.Buffer
	n, next, err := wire.ReadData(wire.NewReader(&stream), &got)
	if err != nil || next == nil || next.Type != wire.TypeError || n != 3 || got.String() != "abc" {
		t.Fatalf("n=%d next=%v err=%v got %q", n, next, err, got.String())
	}
	var e wire.Error
	if err := wire.Decode(*next, &e); err != nil || e.Written != 3 {
		t.Fatalf("decode %+v: %v", e, err)
	}
}

type failWriter struct{ after int }

var errSink = errors.New("sink failed")

func (w *failWriter) Write(b []byte) (int, error) {
	if len(b) > w.after {
		n := w.after
		w.after = 0
		return n, errSink
	}
	w.after -= len(b)
	return len(b), nil
}

// A truncated or malformed stream is an error, never a hang or a panic.
func TestReadDataBadStreams(t *testing.T) {
	var good bytes.Buffer
	if err := wire.WriteData(&good, body(200_000), 50_000); err != nil {
		t.Fatal(err)
	}
	whole := good.Bytes()
	// Every truncation short of the whole stream is io.ErrUnexpectedEOF:
	// mid-header, mid-payload, and cleanly between frames without End.
	for _, cut := range []int{0, 1, 4, 5, 6, 50_004, 50_005, 50_006, 100_010, len(whole) - 5, len(whole) - 1} {
		_, next, err := wire.ReadData(wire.NewReader(bytes.NewReader(whole[:cut])), io.Discard)
		if !errors.Is(err, io.ErrUnexpectedEOF) || next != nil {
			t.Errorf("cut at %d: next=%v err=%v, want io.ErrUnexpectedEOF", cut, next, err)
		}
	}
	// A declared length over the cap is refused before anything is read.
	huge := []byte{byte(wire.TypeData), 0xff, 0xff, 0xff, 0xff}
	if _, _, err := wire.ReadData(wire.NewReader(bytes.NewReader(huge)), io.Discard); !errors.Is(err, wire.ErrFrameTooLarge) {
		t.Errorf("oversize Data: err = %v, want ErrFrameTooLarge", err)
	}
	// An End that carries a payload is malformed.
	badEnd, _ := wire.AppendFrame(nil, wire.TypeEnd, []byte("x"))
	if _, _, err := wire.ReadData(wire.NewReader(bytes.NewReader(badEnd)), io.Discard); !errors.Is(err, wire.ErrBadPayload) {
		t.Errorf("End with payload: err = %v, want ErrBadPayload", err)
	}
	// The sink's error comes back as it is, with what it took.
	n, _, err := wire.ReadData(wire.NewReader(bytes.NewReader(whole)), &failWriter{after: 70_000})
	if !errors.Is(err, errSink) || n != 70_000 {
		t.Errorf("failing sink: n=%d err=%v, want 70000 and errSink", n, err)
	}
}

// A writer that fails stops the DataWriter with its error.
func TestDataWriterError(t *testing.T) {
	err := wire.WriteData(&failWriter{after: 10}, body(100), 0)
	if !errors.Is(err, errSink) {
		t.Fatalf("err = %v, want errSink", err)
	}
}
