package screen

import "testing"

// TestControlInsideSequence: a C0 control inside an ESC or CSI sequence is
// executed where it stands and the sequence goes on, as in xterm (vttest's
// cursor-movement screen 1.5 sends these).
func TestControlInsideSequence(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "BS inside CUF", in: "abcdef\x1b[2\bCx", want: []string{"abcdef x"}, cursor: at(8, 0)},
		{name: "CR inside CUF", in: "abcdef\x1b[\r2Cx", want: []string{"abxdef"}, cursor: at(3, 0)},
		{name: "VT inside CUU", in: "\x1b[3;1H\x1b[1\vAx", want: []string{"", "", "x"}, cursor: at(1, 2)},
		{name: "BS inside a private mode", in: "\x1b[?\b25l", check: func(t *testing.T, s *Screen) {
			if s.modes.has(modeCursorVisible) {
				t.Error("cursor still visible")
			}
		}},
		{name: "BS after an intermediate", in: "ab\x1b[3 \bq", want: []string{"ab"}, cursor: at(1, 0), check: func(t *testing.T, s *Screen) {
			if s.cursorStyle != 3 {
				t.Errorf("cursor style %d, want 3", s.cursorStyle)
			}
		}},
		{name: "CR inside a charset designation", in: "ab\x1b(\r0q", want: []string{"─b"}},
		{name: "LF inside ESC", in: "ab\x1b\n7\x1b[H\x1b8x", want: []string{"ab", "  x"}},
	})
}
