package wire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"wr/wire"
)

// stutter returns its bytes in the pieces given, with errStop between
// pieces, as a connection whose read deadline keeps passing would.
type stutter struct {
	pieces [][]byte
	stop   bool
}

var errStop = errors.New("deadline")

func (s *stutter) Read(p []byte) (int, error) {
	if s.stop {
		s.stop = false
		return 0, errStop
	}
	if len(s.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.pieces[0])
	s.pieces[0] = s.pieces[0][n:]
	if len(s.pieces[0]) == 0 {
		s.pieces = s.pieces[1:]
		s.stop = true
	}
	return n, nil
}

// A frame interrupted at any byte is finished by the next ReadFrame, and
// Pending holds exactly the bytes read and not yet returned.
func TestReaderResumesAtEverySplit(t *testing.T) {
	stream, _ := wire.AppendFrame(nil, wire.TypeInput, []byte("hello"))
	stream, _ = wire.AppendFrame(stream, wire.TypeInput, []byte("world!"))
	for cut := 1; cut < len(stream); cut++ {
		r := wire.NewReaderSize(&stutter{pieces: [][]byte{stream[:cut], stream[cut:]}}, 16)
		var got []string
		var pending []byte
		for {
			f, err := r.ReadFrame()
			if errors.Is(err, errStop) {
				if pending == nil {
					pending = r.Pending()
				}
				continue
			}
			if err != nil {
				break
			}
			got = append(got, string(f.Payload))
		}
		if len(got) != 2 || got[0] != "hello" || got[1] != "world!" {
			t.Fatalf("cut %d: frames %q", cut, got)
		}
		// What was taken at the interruption, less the frames returned
		// before it, is the rest of the first cut.
		done := 0
		if cut >= wire.HeaderLen+5 {
			done = wire.HeaderLen + 5
		}
		if !bytes.Equal(pending, stream[done:cut]) {
			t.Fatalf("cut %d: pending %q, want %q", cut, pending, stream[done:cut])
		}
	}
}
