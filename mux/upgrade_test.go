package mux

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"reflect"
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

// What a classifier holds crosses a hand-off: a classifier restored from
// its state reads the rest of the input as the one it came from would.
func TestClassifierStateCrosses(t *testing.T) {
	for _, tt := range []struct {
		name   string
		before []string
		owner  bool
		after  string
	}{
		{"nothing yet", nil, false, "abc"},
		{"a lone ESC", []string{"\x1b"}, false, "[A"},
		{"a CSI part way", []string{"\x1b["}, false, "12;4R"},
		{"a CSI part way from the owner", []string{"\x1b[1"}, true, ";5A"},
		{"a C0 inside a CSI", []string{"\x1b[2\x08"}, false, "C"},
		{"an OSC part way", []string{"\x1b]11;rgb:0000/0000"}, false, "\x1b\\x"},
		{"an OSC ended by ESC", []string{"\x1b]11;rgb:0000/0000\x1b"}, false, "\\x"},
		{"an X10 mouse part way", []string{"\x1b[M "}, false, "!!x"},
		{"a paste part way", []string{"\x1b[200~hello"}, false, "lo\x1b[201~\x1b[12;4R"},
		{"a paste's end part way", []string{"\x1b[200~hel\x1b[20"}, false, "1~\x1b[12;4R"},
		{"UTF-8 part way", []string{"\xc3"}, false, "\xa9"},
		{"a key part way after a paste", []string{"\x1b[200~x\x1b[201~\x1b[1;"}, false, "5A"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newInputClassifier()
			for _, in := range tt.before {
				a.classify([]byte(in), tt.owner)
			}
			js, err := json.Marshal(a.state())
			if err != nil {
				t.Fatal(err)
			}
			var st classifierState
			if err := json.Unmarshal(js, &st); err != nil {
				t.Fatal(err)
			}
			b, err := restoreClassifier(st)
			if err != nil {
				t.Fatalf("restore %s: %v", js, err)
			}
			wantOut, wantSegs := a.classify([]byte(tt.after), false)
			gotOut, gotSegs := b.classify([]byte(tt.after), false)
			if !bytes.Equal(gotOut, wantOut) || !reflect.DeepEqual(gotSegs, wantSegs) {
				t.Errorf("after the state %s, %q reads as %q %v, want %q %v", js, tt.after, gotOut, gotSegs, wantOut, wantSegs)
			}
			if !reflect.DeepEqual(b.state(), a.state()) {
				t.Errorf("state %+v, want %+v", b.state(), a.state())
			}
		})
	}
}

// A server before the fix left a finished paste's end matched in full
// (PasteEnd 6, Paste false): taken as no paste, not refused.
func TestClassifierStateOfAFinishedPaste(t *testing.T) {
	c, err := restoreClassifier(classifierState{Seq: []byte("\x1b[1;"), PasteEnd: len(pasteEnd)})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := c.classify([]byte("5A"), false); string(out) != "\x1b[1;5A" {
		t.Fatalf("the held key finished as %q", out)
	}
}

// A state no classifier reaches is refused, not half taken.
func TestClassifierStateRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		st   classifierState
	}{
		{"a finished sequence", classifierState{Seq: []byte("\x1b[A")}},
		{"more sent than held", classifierState{Seq: []byte("\x1b["), SeqSent: 3}},
		{"a paste end past its length", classifierState{Paste: true, PasteEnd: 6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := restoreClassifier(tt.st); !errors.Is(err, ErrHandoff) {
				t.Errorf("restore %+v: %v, want ErrHandoff", tt.st, err)
			}
		})
	}
}
