package wire_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	"wr/wire"
)

// The frame layout is the protocol; these numbers may never drift.
func TestFrameConstants(t *testing.T) {
	if wire.MaxPayload != 1<<20 {
		t.Errorf("MaxPayload = %d, want %d", wire.MaxPayload, 1<<20)
	}
	if wire.HeaderLen != 5 {
		t.Errorf("HeaderLen = %d, want 5", wire.HeaderLen)
	}
}

func TestAppendFrameLayout(t *testing.T) {
	tests := []struct {
		name    string
		typ     wire.Type
		payload []byte
		want    []byte
	}{
		{"empty payload", wire.TypeDetach, nil, []byte{44, 0, 0, 0, 0}},
		{"short payload", wire.TypeOutput, []byte("abc"), []byte{45, 0, 0, 0, 3, 'a', 'b', 'c'}},
		{"length is big-endian", wire.TypeInput, make([]byte, 0x0102), append([]byte{42, 0, 0, 0x01, 0x02}, make([]byte, 0x0102)...)},
		{"unknown type", wire.Type(200), []byte{0xff}, []byte{200, 0, 0, 0, 1, 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.AppendFrame(nil, tt.typ, tt.payload)
			if err != nil {
				t.Fatalf("AppendFrame: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("AppendFrame = % x, want % x", got, tt.want)
			}
		})
	}
}

func TestAppendFrameAppends(t *testing.T) {
	dst := []byte("prefix")
	got, err := wire.AppendFrame(dst, wire.TypeOutput, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("prefix"), 45, 0, 0, 0, 1, 'x')
	if !bytes.Equal(got, want) {
		t.Errorf("AppendFrame = %q, want %q", got, want)
	}
}

func TestAppendFrameSizeLimit(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		wantErr bool
	}{
		{"at MaxPayload", wire.MaxPayload, false},
		{"one over MaxPayload", wire.MaxPayload + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("keep")
			got, err := wire.AppendFrame(dst, wire.TypeOutput, make([]byte, tt.size))
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("AppendFrame: %v", err)
				}
				if len(got) != len(dst)+wire.HeaderLen+tt.size {
					t.Errorf("len = %d, want %d", len(got), len(dst)+wire.HeaderLen+tt.size)
				}
				return
			}
			if !errors.Is(err, wire.ErrFrameTooLarge) {
				t.Fatalf("err = %v, want ErrFrameTooLarge", err)
			}
			if !bytes.Equal(got, []byte("keep")) {
				t.Errorf("dst changed on error: %q", got)
			}
		})
	}
}

// header builds a frame header declaring n payload bytes.
func header(typ wire.Type, n uint32) []byte {
	return []byte{byte(typ), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    wire.Frame
		wantErr error
	}{
		{"empty payload", header(wire.TypeDetach, 0), wire.Frame{Type: wire.TypeDetach, Payload: []byte{}}, nil},
		{"payload", append(header(wire.TypeOutput, 2), "hi"...), wire.Frame{Type: wire.TypeOutput, Payload: []byte("hi")}, nil},
		{"trailing bytes stay unread", append(header(wire.TypeOutput, 1), "ab"...), wire.Frame{Type: wire.TypeOutput, Payload: []byte("a")}, nil},
		{"clean end of stream", nil, wire.Frame{}, io.EOF},
		{"truncated header", []byte{45, 0, 0}, wire.Frame{}, io.ErrUnexpectedEOF},
		{"header without payload", header(wire.TypeOutput, 4), wire.Frame{}, io.ErrUnexpectedEOF},
		{"truncated payload", append(header(wire.TypeOutput, 4), "ab"...), wire.Frame{}, io.ErrUnexpectedEOF},
		{"one over MaxPayload", header(wire.TypeOutput, wire.MaxPayload+1), wire.Frame{}, wire.ErrFrameTooLarge},
		{"largest declared length", header(wire.TypeOutput, 0xffffffff), wire.Frame{}, wire.ErrFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.ReadFrame(bytes.NewReader(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadFrame: %v", err)
			}
			if got.Type != tt.want.Type || !bytes.Equal(got.Payload, tt.want.Payload) {
				t.Errorf("ReadFrame = %v %q, want %v %q", got.Type, got.Payload, tt.want.Type, tt.want.Payload)
			}
		})
	}
}

func TestReadFrameMaxPayload(t *testing.T) {
	payload := bytes.Repeat([]byte{0xa5}, wire.MaxPayload)
	in := append(header(wire.TypeOutput, wire.MaxPayload), payload...)
	f, err := wire.ReadFrame(bytes.NewReader(in))
	if err != nil {
		t.Fatalf("ReadFrame: %v", err)
	}
	if !bytes.Equal(f.Payload, payload) {
		t.Error("payload of MaxPayload bytes did not survive")
	}
}

// headerOnly holds exactly one frame header and fails the test if anyone
// asks for a byte past it.
type headerOnly struct {
	t   *testing.T
	buf []byte
}

func (r *headerOnly) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		r.t.Errorf("read past the header (asked for %d bytes)", len(p))
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// An oversize frame is refused from its header alone: nothing past the
// header is read and the declared payload is never allocated.
func TestReadFrameOversizeReadsOnlyHeader(t *testing.T) {
	tests := []struct {
		name string
		n    uint32
	}{
		{"one over MaxPayload", wire.MaxPayload + 1},
		{"twice MaxPayload", 2 * wire.MaxPayload},
		{"largest u32", 0xffffffff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &headerOnly{t: t, buf: header(wire.TypeOutput, tt.n)}
			_, err := wire.ReadFrame(r)
			if !errors.Is(err, wire.ErrFrameTooLarge) {
				t.Fatalf("err = %v, want ErrFrameTooLarge", err)
			}
			if len(r.buf) != 0 {
				t.Errorf("%d header bytes left unread", len(r.buf))
			}

			const runs = 20
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range runs {
				_, _ = wire.ReadFrame(&headerOnly{t: t, buf: header(wire.TypeOutput, tt.n)})
			}
			runtime.ReadMemStats(&after)
			if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 64<<10 {
				t.Errorf("ReadFrame allocated %d bytes per oversize frame; the payload must not be allocated", per)
			}
		})
	}
}

// A frame of a type this version does not know is returned whole, so the
// next frame is still found where it starts.
func TestReadFrameUnknownTypeKeepsStreamInStep(t *testing.T) {
	var stream bytes.Buffer
	if err := wire.WriteFrame(&stream, wire.Type(200), []byte("from the future")); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteFrame(&stream, wire.TypeOutput, []byte("next")); err != nil {
		t.Fatal(err)
	}

	first, err := wire.ReadFrame(&stream)
	if err != nil {
		t.Fatalf("first frame: %v", err)
	}
	if first.Type != 200 || string(first.Payload) != "from the future" {
		t.Errorf("first frame = %v %q", first.Type, first.Payload)
	}
	if first.Type.Known() {
		t.Error("Type(200).Known() = true")
	}
	second, err := wire.ReadFrame(&stream)
	if err != nil {
		t.Fatalf("second frame: %v", err)
	}
	if second.Type != wire.TypeOutput || string(second.Payload) != "next" {
		t.Errorf("second frame = %v %q, want Output %q", second.Type, second.Payload, "next")
	}
	if _, err := wire.ReadFrame(&stream); err != io.EOF {
		t.Errorf("after both frames: err = %v, want io.EOF", err)
	}
}

// countingWriter records each Write call separately.
type countingWriter struct {
	writes [][]byte
	err    error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

func TestWriteFrameIsOneWrite(t *testing.T) {
	tests := []struct {
		name string
		size int
	}{
		{"empty", 0},
		{"one byte", 1},
		{"page", 4096},
		{"MaxPayload", wire.MaxPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := bytes.Repeat([]byte{'x'}, tt.size)
			w := &countingWriter{}
			if err := wire.WriteFrame(w, wire.TypeOutput, payload); err != nil {
				t.Fatalf("WriteFrame: %v", err)
			}
			if len(w.writes) != 1 {
				t.Fatalf("WriteFrame made %d Write calls, want 1", len(w.writes))
			}
			want, _ := wire.AppendFrame(nil, wire.TypeOutput, payload)
			if !bytes.Equal(w.writes[0], want) {
				t.Error("written bytes differ from AppendFrame's encoding")
			}
		})
	}
}

func TestWriteFrameErrors(t *testing.T) {
	t.Run("oversize payload writes nothing", func(t *testing.T) {
		w := &countingWriter{}
		err := wire.WriteFrame(w, wire.TypeOutput, make([]byte, wire.MaxPayload+1))
		if !errors.Is(err, wire.ErrFrameTooLarge) {
			t.Fatalf("err = %v, want ErrFrameTooLarge", err)
		}
		if len(w.writes) != 0 {
			t.Errorf("%d Write calls for a refused frame", len(w.writes))
		}
	})
	t.Run("writer error is returned", func(t *testing.T) {
		boom := errors.New("boom")
		w := &countingWriter{err: boom}
		if err := wire.WriteFrame(w, wire.TypeOutput, []byte("x")); !errors.Is(err, boom) {
			t.Errorf("err = %v, want %v", err, boom)
		}
	})
}

// Many frames written to one stream come back in order and intact.
func TestFrameStream(t *testing.T) {
	frames := []wire.Frame{
		{Type: wire.TypeHello, Payload: []byte(`{"protocol":1}`)},
		{Type: wire.TypeOutput, Payload: []byte{}},
		{Type: wire.TypeOutput, Payload: bytes.Repeat([]byte{0, 1, 2, 0xff}, 1000)},
		{Type: wire.Type(255), Payload: []byte("?")},
		{Type: wire.TypeExited, Payload: []byte(`{"code":0}`)},
	}
	var stream bytes.Buffer
	for _, f := range frames {
		if err := wire.WriteFrame(&stream, f.Type, f.Payload); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range frames {
		got, err := wire.ReadFrame(&stream)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got.Type != want.Type || !bytes.Equal(got.Payload, want.Payload) {
			t.Errorf("frame %d = %v %q, want %v %q", i, got.Type, got.Payload, want.Type, want.Payload)
		}
	}
	if _, err := wire.ReadFrame(&stream); err != io.EOF {
		t.Errorf("at end: err = %v, want io.EOF", err)
	}
}
