package mux

import (
	"bytes"
	"net"
	"testing"
)

// unwritten gives back exactly the bytes a write left, wherever it
// stopped: the stream the new server writes from there stays whole.
func TestUnwritten(t *testing.T) {
	bufs := net.Buffers{[]byte("\x2d\x00\x00\x00\x03"), []byte("abc"), []byte("\x2d\x00\x00\x00\x02"), []byte("de")}
	all := bytes.Join(bufs, nil)
	for n := 0; n <= len(all); n++ {
		if got := unwritten(bufs, int64(n)); !bytes.Equal(got, all[n:]) {
			t.Errorf("after %d bytes: %q, want %q", n, got, all[n:])
		}
	}
}
