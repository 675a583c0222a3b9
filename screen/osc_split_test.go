package screen

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// oscStreams are OSC strings of every ending the parser knows (BEL, ST,
// C1 ST, an ESC that starts another sequence, CAN and SUB, which cancel),
// with controls the parser ignores inside, payloads past oscDataSize and
// UTF-8, each followed by text that shows the state they leave.
func oscStreams() []string {
	long := strings.Repeat("x", oscDataSize+10)
	digits := strings.Repeat("7", oscDataSize+3)
	link := "\x1b]8;;https://example.com/g\ag\u0301h\x1b]8;;\x1b\\\r\n"
	return []string{
		"\x1b]8;;https://example.com/a\x1b\\A",
		"\x1b]8;;https://example.com/b\aB\x1b]8;;\aC",
		"\x1b]8;id=1;https://example.com/c\x9cD\x1b]8;;\x1b\\",
		"\x1b]0;title one\x1b[1mE\x1b[m",
		"\x1b]2;title\x01two\aF",
		"\x1b]2;can\x18celled\aG",
		"\x1b]2;sub\x1acelled\aH",
		"\x1b]7;file://host/dir\x1b\\I",
		"\x1b];no command\a\x1b]x;junk\aJ",
		"\x1b]8;;https://example.com/" + long + "\aK",
		"\x1b]8;;https://example.com/" + long[:maxLinkBytes-30] + "\aK",
		"\x1b]2;" + long + "\aL",
		"\x1b]" + digits + ";x\aM",
		"\x1b]2;caf\u00e9 \u0153\u0153 \u4e16\aN\u0301",
		"\x1b]8;;https://example.com/d\x1b\x1b\\O",
		"\x1b]8;;https://example.com/e\x1b7P\x1b8Q",
		"\x9d2;c1 osc\x9cR",
		"\x1b]8;;https://example.com/f\x1b",
		link + link + "\x1b]8;;https://example.com/g\x1b\\G\x1b]8;;\x1b\\",
	}
}

// TestOSCSplit feeds each stream of OSC strings whole, a byte at a time
// (which the parser reads alone) and split in two at many points: the
// screens must end the same.
func TestOSCSplit(t *testing.T) {
	for n, str := range oscStreams() {
		in := []byte("\x1b]2;before\a" + str + "\r\n\\tail\x1b]8;;x\a")
		want := New(40, 10, 100)
		for i := range in {
			want.Write(in[i : i+1])
		}
		wantState, wantRestore := stateOf(want), want.AppendRestore(nil)
		check := func(name string, s *Screen) {
			t.Helper()
			if got := stateOf(s); !reflect.DeepEqual(got, wantState) {
				t.Fatalf("stream %d %s: state differs:\n%+v\nwant\n%+v", n, name, got, wantState)
			}
			if got := s.AppendRestore(nil); !bytes.Equal(got, wantRestore) {
				t.Fatalf("stream %d %s: restore differs %s", n, name, firstDiff(got, wantRestore))
			}
		}
		whole := New(40, 10, 100)
		whole.Write(in)
		check("whole", whole)
		for k := range in {
			if k > 64 && k < len(in)-64 && k%509 != 0 {
				continue
			}
			s := New(40, 10, 100)
			s.Write(in[:k])
			s.Write(in[k:])
			check(fmt.Sprint("split at ", k), s)
		}
	}
}
