package screen

import "testing"

// widthTable is how many columns each sequence takes, as terminals that
// measure grapheme clusters (kitty, ghostty, foot, WezTerm) draw it; where
// they differ, the rule wr follows is the README's ("Character widths").
var widthTable = []struct {
	name string
	in   string
	want int
}{
	// Flags: a pair of regional indicators is one two-column cluster.
	{"flag US", "\U0001F1FA\U0001F1F8", 2},
	{"flag JP", "\U0001F1EF\U0001F1F5", 2},
	{"two flags", "\U0001F1E9\U0001F1EA\U0001F1EB\U0001F1F7", 4},
	{"lone regional indicator", "\U0001F1FA", 2},
	{"flag and a lone indicator", "\U0001F1FA\U0001F1F8\U0001F1E9", 4},
	{"tag sequence flag (England)", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", 2},
	// ZWJ sequences.
	{"family of four", "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466", 2},
	{"kiss with VS16 inside", "\U0001F469\u200d\u2764\ufe0f\u200d\U0001F48B\u200d\U0001F468", 2},
	{"technologist", "\U0001F468\u200d\U0001F4BB", 2},
	{"rainbow flag", "\U0001F3F3\ufe0f\u200d\U0001F308", 2},
	{"people holding hands", "\U0001F9D1\u200d\U0001F91D\u200d\U0001F9D1", 2},
	// Skin tones.
	{"thumbs up, medium", "\U0001F44D\U0001F3FD", 2},
	{"waving hand, dark", "\U0001F44B\U0001F3FF", 2},
	{"skin tone then ZWJ", "\U0001F9D1\U0001F3FB\u200d\U0001F4BB", 2},
	{"astronaut, medium", "\U0001F469\U0001F3FD\u200d\U0001F680", 2},
	{"skin tone alone", "\U0001F3FD", 2},
	{"two emoji with tones", "\U0001F44D\U0001F3FB\U0001F44E\U0001F3FF", 4},
	// Hangul jamo: a decomposed syllable is as wide as a precomposed one.
	{"jamo L V T", "\u1100\u1161\u11a8", 2},
	{"jamo L V", "\u1100\u1161", 2},
	{"two decomposed syllables", "\u1112\u1161\u11ab\u1100\u1173\u11af", 4},
	{"precomposed syllable", "\uac01", 2},
	{"extended jamo L with V", "\ua960\u1161", 2},
	{"jamo L V with extended T", "\u1100\u1161\ud7cb", 2},
	// Combining marks add nothing.
	{"e acute", "e\u0301", 1},
	{"three marks", "a\u0301\u0302\u0303", 1},
	{"mark on a wide character", "\u4e2d\u0301", 2},
	{"Hebrew point", "\u05e9\u05c1", 1},
	{"Thai vowel mark", "\u0e01\u0e35", 1},
	{"enclosing circle", "x\u20dd", 1},
	{"keycap", "1\ufe0f\u20e3", 2},
	// Soft hyphen and format characters.
	{"soft hyphen", "\u00ad", 1},
	{"soft hyphen between letters", "a\u00adb", 3},
	{"Arabic number sign", "\u0600", 1},
	{"Arabic end of ayah", "\u06dd", 1},
	{"zero width space", "a\u200bb", 2},
	{"word joiner", "a\u2060b", 2},
	{"byte order mark", "a\ufeffb", 2},
	// Variation selectors: VS16 widens, VS15 does not narrow.
	{"heart with VS16", "\u2764\ufe0f", 2},
	{"heart as text", "\u2764", 1},
	{"wide emoji with VS15", "\U0001F44D\ufe0e", 2},
}

// TestWidthTable: each sequence, printed from the first column, leaves the
// cursor its width along, and a terminal fed the restore shows the same.
func TestWidthTable(t *testing.T) {
	if len(widthTable) != 40 {
		t.Fatalf("the table has %d sequences, want 40", len(widthTable))
	}
	for _, tc := range widthTable {
		t.Run(tc.name, func(t *testing.T) {
			s := New(20, 2, 0)
			s.Write([]byte(tc.in))
			if s.x != tc.want || s.y != 0 {
				t.Fatalf("%+q takes %d columns (cursor %d,%d), want %d", tc.in, s.x, s.x, s.y, tc.want)
			}
			// It is drawn after the cells it takes.
			s.Write([]byte("|"))
			if got := cellAt(s, tc.want, 0); got.r != '|' {
				t.Fatalf("%+q: the next character is not in column %d", tc.in, tc.want)
			}
			b := New(20, 2, 0)
			b.Write(s.AppendRestore(nil))
			if d := diffModels(s, b, false); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
			}
		})
	}
}

// With autowrap off, a VS16 after a character printed in the last column
// widens nothing: the cell before the cursor is not the one just printed,
// and widening it would write over the last column.
func TestVS16InLastColumnWithoutAutowrap(t *testing.T) {
	s := New(5, 2, 0)
	s.Write([]byte("\x1b[?7labcd\u2764\ufe0f"))
	if got := cellAt(s, 4, 0); got.r != '\u2764' || got.flags&cellWideTail != 0 {
		t.Fatalf("the last column holds %q (flags %x), want the heart", got.r, got.flags)
	}
}
