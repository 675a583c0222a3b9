package wire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"wr/wire"
)

// FuzzReadFrame feeds arbitrary bytes to the frame decoder. It must never
// panic, never hand back more than MaxPayload, never read past the header
// of an oversize frame, and a frame it accepts must re-encode to exactly the
// bytes it consumed.
func FuzzReadFrame(f *testing.F) {
	seed := func(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
	frame := func(typ wire.Type, payload string) []byte {
		b, err := wire.AppendFrame(nil, typ, []byte(payload))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add([]byte{})
	f.Add([]byte{45})
	f.Add([]byte{45, 0, 0, 0})
	f.Add(frame(wire.TypeDetach, ""))
	f.Add(frame(wire.TypeOutput, "hello"))
	f.Add(frame(wire.TypeHello, `{"protocol":1,"minor":0,"version":"0.1.0"}`))
	f.Add(frame(wire.Type(200), "future"))
	f.Add(seed(frame(wire.TypeInput, "a"), frame(wire.TypeResize, `{"cols":80,"rows":24}`)))
	f.Add([]byte{45, 0, 0, 0, 9, 'x'})                      // truncated payload
	f.Add([]byte{45, 0, 0x10, 0, 0})                        // exactly MaxPayload declared, nothing follows
	f.Add([]byte{45, 0, 0x10, 0, 1})                        // one over MaxPayload
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}) // largest declared length

	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		fr, err := wire.ReadFrame(r)
		consumed := len(in) - r.Len()
		if err != nil {
			switch {
			case errors.Is(err, wire.ErrFrameTooLarge):
				if consumed != wire.HeaderLen {
					t.Fatalf("oversize frame: consumed %d bytes, want only the %d-byte header", consumed, wire.HeaderLen)
				}
			case err == io.EOF:
				if len(in) != 0 {
					t.Fatalf("io.EOF with %d bytes of input", len(in))
				}
			case errors.Is(err, io.ErrUnexpectedEOF):
			default:
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(fr.Payload) > wire.MaxPayload {
			t.Fatalf("payload of %d bytes exceeds MaxPayload", len(fr.Payload))
		}
		again, err := wire.AppendFrame(nil, fr.Type, fr.Payload)
		if err != nil {
			t.Fatalf("re-encoding an accepted frame: %v", err)
		}
		if !bytes.Equal(again, in[:consumed]) {
			t.Fatalf("re-encoded % x, consumed % x", again, in[:consumed])
		}
	})
}
