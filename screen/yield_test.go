package screen

import (
	"bytes"
	"testing"
)

// A server on one thread lets other sessions in at the yields, so a single
// large chunk of output that cannot be skipped must not be drawn in one go:
// a 64 KiB read of coloured text yields every 4 KiB, and the pieces draw
// exactly what the whole chunk would (the parser keeps its state across
// them, even in the middle of a sequence).
func TestYieldWithinAChunk(t *testing.T) {
	chunk := colourText()
	for len(chunk) < 64<<10 {
		chunk = append(chunk, colourText()...)
	}
	chunk = chunk[:64<<10] // cut anywhere, perhaps inside a sequence

	yields := 0
	s := New(80, 24, 100)
	s.SetYield(4<<10, func() { yields++ })
	s.WriteBatch([][]byte{chunk})

	whole := New(80, 24, 100)
	whole.Write(chunk)

	if want := len(chunk) / (4 << 10); yields < want {
		t.Errorf("one %d-byte chunk yielded %d times, want at least %d", len(chunk), yields, want)
	}
	opt := TextOptions{ANSI: true, Scrollback: true}
	if got, want := s.AppendText(nil, opt), whole.AppendText(nil, opt); !bytes.Equal(got, want) {
		t.Errorf("drawn in pieces, the screen differs from one Write of the chunk:\n got %q\nwant %q", got, want)
	}
}
