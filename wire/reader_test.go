package wire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"wr/wire"
)

func TestReaderRoundTrip(t *testing.T) {
	var stream bytes.Buffer
	payloads := [][]byte{[]byte("one"), {}, bytes.Repeat([]byte("x"), wire.MaxPayload), []byte("last")}
	for _, p := range payloads {
		if err := wire.WriteFrame(&stream, wire.TypeOutput, p); err != nil {
			t.Fatal(err)
		}
	}
	r := wire.NewReader(&stream)
	for i, want := range payloads {
		f, err := r.ReadFrame()
		if err != nil || f.Type != wire.TypeOutput || !bytes.Equal(f.Payload, want) {
			t.Fatalf("frame %d: %v %v len %d", i, f.Type, err, len(f.Payload))
		}
	}
	if _, err := r.ReadFrame(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestReaderRefusesOversize(t *testing.T) {
	h := []byte{byte(wire.TypeInput), 0, 0x10, 0, 1} // MaxPayload+1
	_, err := wire.NewReader(bytes.NewReader(h)).ReadFrame()
	if !errors.Is(err, wire.ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
	_, err = wire.NewReader(bytes.NewReader([]byte{byte(wire.TypeInput), 0, 0, 0, 9, 'a'})).ReadFrame()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: %v", err)
	}
}

func BenchmarkReaderOutput(b *testing.B) {
	var stream bytes.Buffer
	chunk := bytes.Repeat([]byte("y"), 4096)
	for range 256 {
		_ = wire.WriteFrame(&stream, wire.TypeOutput, chunk)
	}
	data := stream.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := wire.NewReader(bytes.NewReader(data))
		for {
			if _, err := r.ReadFrame(); err != nil {
				break
			}
		}
	}
}
