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

// A hand-off starts each classifier afresh, so it waits while one holds
// anything back: a lone ESC until its timer resolves it, a sequence part
// way; never for one that is at rest, whatever it saw before.
func TestInputSettled(t *testing.T) {
	for _, tt := range []struct {
		name  string
		input []string
		owner bool
		want  bool
	}{
		{"nothing yet", nil, false, true},
		{"a keystroke", []string{"a"}, false, true},
		{"a lone ESC", []string{"\x1b"}, false, false},
		{"a CSI part way", []string{"\x1b["}, false, false},
		{"a CSI part way from the owner", []string{"\x1b[1"}, true, false},
		{"a CSI finished over two frames", []string{"\x1b[", "A"}, false, true},
		{"a report", []string{"\x1b[12;4R"}, false, true},
		{"an OSC part way", []string{"\x1b]11;rgb:0000/0000"}, false, false},
		{"a paste part way", []string{"\x1b[200~hello"}, false, false},
		{"a paste ended", []string{"\x1b[200~hello\x1b[201~"}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(1, nil, false, 80, 24)
			for _, in := range tt.input {
				c.classifier.classify([]byte(in), tt.owner)
			}
			if got := c.inputSettled(); got != tt.want {
				t.Errorf("settled after %q: %v, want %v", tt.input, got, tt.want)
			}
		})
	}
}

// A lone ESC resolved by its timer leaves the classifier at rest.
func TestInputSettledAfterLoneESC(t *testing.T) {
	c := newClient(1, nil, false, 80, 24)
	c.classifier.classify([]byte("\x1b"), false)
	c.classifier.resolveESC()
	if !c.inputSettled() {
		t.Error("not settled after the lone ESC was resolved")
	}
}
