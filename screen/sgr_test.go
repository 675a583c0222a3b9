package screen

import "testing"

func TestSGR(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want style
	}{
		{"reset by empty SGR", "\x1b[1;31m\x1b[m", style{}},
		{"reset by 0", "\x1b[1;31;0m", style{}},
		{"bold faint italic", "\x1b[1;2;3m", style{attrs: attrBold | attrFaint | attrItalic}},
		{"blink reverse invisible strike overline", "\x1b[5;6;7;8;9;53m", style{attrs: attrBlink | attrRapidBlink | attrReverse | attrInvisible | attrStrike | attrOverline}},
		{"attributes off", "\x1b[1;2;3;4;5;7;8;9;53m\x1b[22;23;24;25;27;28;29;55m", style{}},
		{"underline", "\x1b[4m", style{underline: underlineSingle}},
		{"double underline 21", "\x1b[21m", style{underline: underlineDouble}},
		{"underline styles", "\x1b[4:3m", style{underline: underlineCurly}},
		{"dashed underline", "\x1b[4:5m", style{underline: underlineDashed}},
		{"underline style none", "\x1b[4m\x1b[4:0m", style{}},
		{"basic colours", "\x1b[31;42m", style{fg: indexedColor(1), bg: indexedColor(2)}},
		{"bright colours", "\x1b[91;102m", style{fg: indexedColor(9), bg: indexedColor(10)}},
		{"default colours", "\x1b[31;42m\x1b[39;49m", style{}},
		{"256 colours", "\x1b[38;5;200;48;5;17m", style{fg: indexedColor(200), bg: indexedColor(17)}},
		{"256 colours with colons", "\x1b[38:5:200;48:5:17m", style{fg: indexedColor(200), bg: indexedColor(17)}},
		{"truecolor", "\x1b[38;2;1;2;3;48;2;4;5;6m", style{fg: rgbColor(1, 2, 3), bg: rgbColor(4, 5, 6)}},
		{"truecolor with colons", "\x1b[38:2:1:2:3m", style{fg: rgbColor(1, 2, 3)}},
		{"truecolor with colour space", "\x1b[38:2::1:2:3m", style{fg: rgbColor(1, 2, 3)}},
		{"underline colour", "\x1b[58;5;9m", style{ul: paletteColor(9)}},
		{"underline colour truecolor", "\x1b[58:2::7:8:9m", style{ul: rgbColor(7, 8, 9)}},
		{"underline colour default", "\x1b[58;5;9;59m", style{}},
		{"parameters after a colour", "\x1b[38;5;1;1m", style{fg: paletteColor(1), attrs: attrBold}},
		{"parameters after a colon colour", "\x1b[38:2::1:2:3;4m", style{fg: rgbColor(1, 2, 3), underline: underlineSingle}},
		{"unknown sub-parameters are skipped", "\x1b[1:2;3m", style{attrs: attrBold | attrItalic}},
		{"truncated colour", "\x1b[38;5m", style{}},
		{"missing parameter is 0", "\x1b[1;;3m", style{attrs: attrItalic}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in + "x"
			for i := 0; i <= len(in); i++ {
				s := New(10, 2, 0)
				s.Write([]byte(in[:i]))
				s.Write([]byte(in[i:]))
				if got := styleAt(s, 0, 0); got != tc.want {
					t.Fatalf("split at %d: style %+v, want %+v", i, got, tc.want)
				}
			}
		})
	}
}

// TestSGRKeepsHyperlink: SGR 0 resets attributes, not the hyperlink.
func TestSGRKeepsHyperlink(t *testing.T) {
	s := New(10, 2, 0)
	s.Write([]byte("\x1b]8;;http://x\x1b\\\x1b[1ma\x1b[0mb"))
	if st := styleAt(s, 1, 0); st.link == 0 || st.attrs != 0 {
		t.Fatalf("style after SGR 0: %+v", st)
	}
}

// TestStyleTableCompaction: a stream of many more distinct styles than the
// table keeps at once keeps working, and what is on screen keeps its
// colours through the compactions.
func TestStyleTableCompaction(t *testing.T) {
	s := New(20, 5, 10)
	s.Write([]byte("\x1b[38;2;1;2;3mkeep\x1b[m\r\n"))
	var b []byte
	for i := range 70000 {
		b = append(b, "\x1b[38;2;"...)
		b = append(b, byte('0'+i%10), ';', byte('0'+i/10%10), ';')
		b = append(b, byte('0'+i/100%10), byte('0'+i/1000%10), byte('0'+i/10000%10))
		b = append(b, "mx\b"...)
	}
	s.Write(b)
	if len(s.styles.list) > maxStyles {
		t.Fatalf("%d styles", len(s.styles.list))
	}
	if st := styleAt(s, 0, 0); st.fg != rgbColor(1, 2, 3) {
		t.Fatalf("kept cell's style %+v", st)
	}
	if st := styleAt(s, 0, 1); st.fg != rgbColor(9, 9, 996%256) {
		t.Fatalf("last cell's style %+v, pen %+v", st, s.pen)
	}
}
