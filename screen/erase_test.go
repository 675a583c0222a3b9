package screen

import "testing"

func TestErase(t *testing.T) {
	const three = "0123456789\r\nabcdefghij\r\nABCDEFGHIJ"
	runScreenCases(t, []screenCase{
		{name: "ED 0 from the cursor", in: three + "\x1b[2;4H\x1b[J", want: []string{"0123456789", "abc"}},
		{name: "ED 1 to the cursor", in: three + "\x1b[2;4H\x1b[1J", want: []string{"", "    efghij", "ABCDEFGHIJ"}},
		{name: "ED 2 all", in: three + "\x1b[2J", want: nil, cursor: at(10-1, 2)},
		{name: "EL 0", in: three + "\x1b[2;4H\x1b[K", want: []string{"0123456789", "abc", "ABCDEFGHIJ"}},
		{name: "EL 1", in: three + "\x1b[2;4H\x1b[1K", want: []string{"0123456789", "    efghij", "ABCDEFGHIJ"}},
		{name: "EL 2", in: three + "\x1b[2;4H\x1b[2K", want: []string{"0123456789", "", "ABCDEFGHIJ"}},
		{name: "ECH", in: "0123456789\x1b[3G\x1b[4X", want: []string{"01    6789"}, cursor: at(2, 0)},
		{name: "ECH past the end", in: "0123456789\x1b[8G\x1b[99X", want: []string{"0123456"}},
		{name: "ICH", in: "0123456789\x1b[3G\x1b[2@", want: []string{"01  234567"}},
		{name: "DCH", in: "0123456789\x1b[3G\x1b[2P", want: []string{"01456789"}},
		{name: "DCH past the end", in: "0123456789\x1b[3G\x1b[99P", want: []string{"01"}},
		{name: "IRM inserts", in: "abcd\x1b[3G\x1b[4hXY\x1b[4lZ", want: []string{"abXYZd"}},
		{name: "IRM pushes off the end", in: "0123456789\x1b[1G\x1b[4hab", want: []string{"ab01234567"}},
		{name: "REP", in: "ab\x1b[3b", want: []string{"abbbb"}},
		{name: "REP wraps", in: "a\x1b[12b", want: []string{"aaaaaaaaaa", "aaa"}},
		{name: "REP with nothing printed", in: "\x1b[3b", want: nil},
		{name: "DECALN", in: "\x1b#8", want: []string{"EEEEEEEEEE", "EEEEEEEEEE", "EEEEEEEEEE", "EEEEEEEEEE"}},
		{name: "erase uses the pen background only", in: "abc\x1b[1;4;41m\x1b[1;2H\x1b[K", want: []string{"a"},
			check: func(t *testing.T, s *Screen) {
				if st := styleAt(s, 5, 0); st != (style{bg: indexedColor(1)}) {
					t.Errorf("erased style %+v", st)
				}
			}},
		{name: "ED 2 with a background", in: "\x1b[44m\x1b[2J", check: func(t *testing.T, s *Screen) {
			if st := styleAt(s, 9, 3); st.bg != indexedColor(4) {
				t.Errorf("erased style %+v", st)
			}
		}},
	})
}
