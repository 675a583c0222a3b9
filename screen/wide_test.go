package screen

import (
	"testing"

	"github.com/clipperhouse/displaywidth"
)

func TestWideAndCombining(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "wide characters take two columns", in: "中文x", want: []string{"中文x"}, cursor: at(5, 0),
			check: func(t *testing.T, s *Screen) {
				if c := cellAt(s, 0, 0); c.flags != cellWide {
					t.Errorf("first half %+v", c)
				}
				if c := cellAt(s, 1, 0); c.flags != cellWideTail {
					t.Errorf("second half %+v", c)
				}
			}},
		{name: "a wide character that does not fit wraps early", in: "012345678中", want: []string{"012345678", "中"}, cursor: at(2, 1)},
		{name: "a wide character filling the line leaves a pending wrap", in: "01234567中x", want: []string{"01234567中", "x"}},
		{name: "without autowrap a wide character that does not fit is dropped", in: "\x1b[?7l012345678中", want: []string{"012345678"}},
		{name: "overwriting the first half erases the second", in: "中文\x1b[1Gx", want: []string{"x 文"}},
		{name: "overwriting the second half erases the first", in: "中文\x1b[2Gx", want: []string{" x文"}},
		{name: "a wide character over two halves", in: "中文\x1b[2G字", want: []string{" 字"}},
		{name: "erasing half a wide character", in: "中文\x1b[2G\x1b[1X", want: []string{"  文"}},
		{name: "ICH pushes a wide character off the edge", in: "012345678\x1b[1G\x1b[2@", want: []string{"  01234567"}},
		{name: "ICH splits a wide character", in: "中\x1b[2G\x1b[@", want: []string{}},
		{name: "DCH pulls half a wide character", in: "a中b\x1b[2G\x1b[P", want: []string{"a b"}},
		{name: "combining characters join the previous cell", in: "e\u0301a\u0308", want: []string{"e\u0301a\u0308"}, cursor: at(2, 0)},
		{name: "combining after a wide character", in: "中\u0301x", want: []string{"中\u0301x"}},
		{name: "combining at a pending wrap", in: "012345678e\u0301", want: []string{"012345678e\u0301"}},
		{name: "combining at column 0 is dropped", in: "\u0301x", want: []string{"x"}},
		{name: "without autowrap combining joins the character in the last column", in: "\x1b[?7l012345678e\u0301", want: []string{"012345678e\u0301"}},
		{name: "without autowrap combining joins what overwrote the last column", in: "\x1b[?7l012345678ef\u0301", want: []string{"012345678f\u0301"}},
		{name: "without autowrap combining on a blank last column joins the cell before it", in: "\x1b[?7l012345678\x1b[10G\u0301", want: []string{"012345678\u0301"}},
		{name: "without autowrap a skin tone joins the emoji in the last columns", in: "\x1b[?7l01234567\U0001F44D\U0001F3FD", want: []string{"01234567\U0001F44D\U0001F3FD"}},
		{name: "without autowrap a VS16 after the last column's character is dropped", in: "\x1b[?7l0123456中e\ufe0f", want: []string{"0123456中e"}},
		{name: "without autowrap a VS16 widens into a blank last column", in: "\x1b[?7l01234567\u263a\ufe0f", want: []string{"01234567\u263a\ufe0f"}, check: func(t *testing.T, s *Screen) {
			if c := cellAt(s, 8, 0); c.flags&cellWide == 0 {
				t.Errorf("the smiley is not two columns wide: %+v", c)
			}
		}},
		{name: "without autowrap a regional indicator does not join across the last column's character", in: "\x1b[?7l0123456\U0001F1E6x\U0001F1E7", want: []string{"0123456\U0001F1E6x"}},
		{name: "without autowrap a skin tone does not join across the last column's character", in: "\x1b[?7l0123456\U0001F44Dx\U0001F3FD", want: []string{"0123456\U0001F44Dx"}},
		{name: "ZWJ sequences stay in one cell", in: "👨\u200d👩\u200d👧x", want: []string{"👨\u200d👩\u200d👧x"}, cursor: at(3, 0)},
		{name: "combining characters are bounded", in: "e" + repeatString("\u0301", 100), want: []string{"e" + repeatString("\u0301", 15)}, check: func(t *testing.T, s *Screen) {
			if n := len(s.cellText(nil, cellAt(s, 0, 0))); n > maxClusterBytes {
				t.Errorf("cluster of %d bytes", n)
			}
		}},
		{name: "REP of a wide character", in: "中\x1b[2b", want: []string{"中中中"}},
	})
}

func repeatString(s string, n int) string {
	var b []byte
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

func TestCharsets(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "DEC special graphics in G0", in: "\x1b(0lqk\x1b(Bq", want: []string{"┌─┐q"}},
		{name: "SO and SI switch to G1", in: "\x1b)0a\x0eqx\x0fq", want: []string{"a─│q"}},
		{name: "UK set maps the pound sign", in: "\x1b(A#\x1b(B#", want: []string{"£#"}},
		{name: "single shift", in: "\x1b*0\x1bNqq", want: []string{"─q"}},
		{name: "LS2 invokes G2", in: "\x1b*0\x1bnqq", want: []string{"──"}},
		{name: "graphics set through the slow path at a wrap", in: "\x1b(0" + "qqqqqqqqqqq", want: []string{"──────────", "─"}},
		{name: "DECSC saves the character sets", in: "\x1b(0\x1b7\x1b(B\x1b8q", want: []string{"─"}},
		{name: "RIS resets the character sets", in: "\x1b(0\x1bcq", want: []string{"q"}},
	})
}

// TestRuneWidthAgrees: runeWidth's shortcuts give displaywidth's widths,
// but where widthOverride says otherwise.
func TestRuneWidthAgrees(t *testing.T) {
	for r := rune(0x20); r < 0x400; r++ {
		if _, over := widthOverride(r); over {
			continue
		}
		if got, want := runeWidth(r), displaywidth.Rune(r); got != want && r != 0x7f && (r < 0x80 || r >= 0xa0) {
			t.Errorf("%U: width %d, want %d", r, got, want)
		}
	}
}
