package screen

import "testing"

func TestCursor(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "text advances the cursor", in: "abc", want: []string{"abc"}, cursor: at(3, 0)},
		{name: "CR returns, LF goes down without CR", in: "ab\rc\nd", want: []string{"cb", " d"}, cursor: at(2, 1)},
		{name: "VT and FF are line feeds", in: "a\vb\fc", want: []string{"a", " b", "  c"}, cursor: at(3, 2)},
		{name: "LNM makes LF a new line", in: "\x1b[20ha\nb", want: []string{"a", "b"}, cursor: at(1, 1)},
		{name: "backspace stops at column 0", in: "ab\b\b\bX", want: []string{"Xb"}, cursor: at(1, 0)},
		{name: "CUP is 1-based and clamps", in: "\x1b[2;3Hx\x1b[99;99Hy", want: []string{"", "  x", "", "         y"}, cursor: at(9, 3)},
		{name: "CUP without parameters goes home", in: "abc\x1b[Hx", want: []string{"xbc"}, cursor: at(1, 0)},
		{name: "HVP is CUP", in: "\x1b[3;2fx", want: []string{"", "", " x"}},
		{name: "CUU CUD CUF CUB", in: "\x1b[3;5H\x1b[2Aa\x1b[Bb\x1b[3Cc\x1b[9Dd", want: []string{"    a", "d    b   c"}},
		{name: "zero counts mean one", in: "\x1b[3;5H\x1b[0A\x1b[0Dx", want: []string{"", "   x"}},
		{name: "CNL and CPL go to column 0", in: "\x1b[2;5H\x1b[Ea\x1b[2Fb", want: []string{"b", "", "a"}},
		{name: "CHA HPA HPR", in: "\x1b[5Ga\x1b[2`b\x1b[3ac", want: []string{" b  ac"}},
		{name: "VPA VPR keep the column", in: "ab\x1b[3dc\x1b[ed", want: []string{"ab", "", "  c", "   d"}},
		{name: "DECSC and DECRC restore position and pen", in: "\x1b[2;3H\x1b[1m\x1b7\x1b[m\x1b[4;1Hx\x1b8y",
			want: []string{"", "  y", "", "x"}, check: func(t *testing.T, s *Screen) {
				if st := styleAt(s, 2, 1); st.attrs != attrBold {
					t.Errorf("restored pen %+v, want bold", st)
				}
			}},
		{name: "SCOSC and SCORC", in: "\x1b[2;2H\x1b[s\x1b[4;4H\x1b[ux", want: []string{"", " x"}},
		{name: "DECRC without DECSC goes home", in: "\x1b[3;3H\x1b8x", want: []string{"x"}},
		{name: "pending wrap keeps the cursor in the last column", in: "0123456789", want: []string{"0123456789"}, cursor: at(9, 0),
			check: func(t *testing.T, s *Screen) {
				if !s.pendingWrap {
					t.Error("no pending wrap")
				}
			}},
		{name: "pending wrap wraps on the next character", in: "0123456789a", want: []string{"0123456789", "a"}, cursor: at(1, 1)},
		{name: "CR cancels a pending wrap", in: "0123456789\rX", want: []string{"X123456789"}},
		{name: "cursor motion cancels a pending wrap", in: "0123456789\x1b[DX", want: []string{"01234567X9"}},
		{name: "backspace from a pending wrap", in: "0123456789\bX", want: []string{"01234567X9"}},
		{name: "no autowrap overwrites the last column", in: "\x1b[?7l0123456789abc", want: []string{"012345678c"}, cursor: at(9, 0)},
		{name: "DECSCUSR", in: "\x1b[5 q", check: func(t *testing.T, s *Screen) {
			if s.cursorStyle != 5 {
				t.Errorf("cursor style %d", s.cursorStyle)
			}
		}},
		{name: "DECTCEM", in: "\x1b[?25l", check: func(t *testing.T, s *Screen) {
			if s.cursorVisible() {
				t.Error("cursor visible")
			}
		}},
	})
}

func TestTabs(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "default stops every 8", cols: 20, rows: 2, in: "a\tb\tc\td", want: []string{"a       b       c  d"}},
		{name: "HTS and TBC", cols: 20, rows: 2, in: "\x1b[3g\x1b[4G\x1bH\r\tx\t\x1b[0gy", want: []string{"   x               y"}},
		{name: "TBC 0 clears one stop", cols: 20, rows: 2, in: "\x1b[9G\x1b[g\r\tx", want: []string{"                x"}},
		{name: "CHT and CBT", cols: 30, rows: 2, in: "\x1b[2Ia\x1b[2Zb\x1b[5Zc", want: []string{"c       b       a"}},
		{name: "tab from a pending wrap stays", cols: 8, rows: 2, in: "01234567\tx", want: []string{"01234567", "x"}},
	})
}

func TestOriginMode(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "CUP is relative to the region", in: "\x1b[2;3r\x1b[?6h\x1b[1;1Ha\x1b[9;1Hb", want: []string{"", "a", "b"}},
		{name: "setting it homes to the region", in: "\x1b[2;3r\x1b[3;5H\x1b[?6hx", want: []string{"", "x"}},
		{name: "resetting it homes to the screen", in: "\x1b[2;3r\x1b[?6h\x1b[?6lx", want: []string{"x"}},
		{name: "VPA is relative to the region", in: "\x1b[2;4r\x1b[?6h\x1b[2dx", want: []string{"", "", "x"}},
	})
}

func TestReplies(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"DA1", "\x1b[c", "\x1b[?62;22c"},
		{"DA1 with 0", "\x1b[0c", "\x1b[?62;22c"},
		{"DA2", "\x1b[>c", "\x1b[>1;10;0c"},
		{"DA2 with 0", "\x1b[>0c", "\x1b[>1;10;0c"},
		{"DSR", "\x1b[5n", "\x1b[0n"},
		{"CPR", "\x1b[3;7H\x1b[6n", "\x1b[3;7R"},
		{"CPR in origin mode", "\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[6n", "\x1b[2;3R"},
		{"CPR at a pending wrap", "0123456789\x1b[6n", "\x1b[1;10R"},
		{"DECXCPR", "\x1b[2;2H\x1b[?6n", "\x1b[?2;2R"},
		{"no reply to other queries", "\x1b[?1$p\x1b]11;?\x07\x1b[>q\x1b[?u", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.in); i++ {
				s := New(10, 4, 0)
				var got []byte
				s.SetReply(func(p []byte) { got = append(got, p...) })
				s.Write([]byte(tc.in[:i]))
				s.Write([]byte(tc.in[i:]))
				if string(got) != tc.want {
					t.Fatalf("split at %d: reply %q, want %q", i, got, tc.want)
				}
			}
		})
	}
}
