package screen

import "testing"

func TestModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []mode
	}{
		{"defaults", "", []mode{modeAutowrap, modeCursorVisible}},
		{"cursor keys and keypad", "\x1b[?1h\x1b=", []mode{modeAutowrap, modeCursorVisible, modeCursorKeys, modeKeypad}},
		{"keypad off", "\x1b=\x1b>", []mode{modeAutowrap, modeCursorVisible}},
		{"mouse and focus", "\x1b[?1000;1002;1006h\x1b[?1004h", []mode{modeAutowrap, modeCursorVisible, modeMouseNormal, modeMouseButton, modeMouseSGR, modeFocus}},
		{"mouse off", "\x1b[?1003h\x1b[?1015h\x1b[?1003;1015l", []mode{modeAutowrap, modeCursorVisible}},
		{"bracketed paste", "\x1b[?2004h", []mode{modeAutowrap, modeCursorVisible, modeBracketedPaste}},
		{"autowrap off, cursor hidden", "\x1b[?7l\x1b[?25l", nil},
		{"insert and newline", "\x1b[4;20h", []mode{modeAutowrap, modeCursorVisible, modeInsert, modeNewline}},
		{"reverse video and origin", "\x1b[?5h\x1b[?6h", []mode{modeAutowrap, modeCursorVisible, modeReverseVideo, modeOrigin}},
		{"DECSTR resets", "\x1b[?1h\x1b=\x1b[?25l\x1b[4h\x1b[?6h\x1b[?7l\x1b[!p", []mode{modeAutowrap, modeCursorVisible}},
		{"RIS resets", "\x1b[?1000h\x1b[?2004h\x1bc", []mode{modeAutowrap, modeCursorVisible}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want modeSet
			for _, m := range tc.want {
				want.set(m, true)
			}
			for i := 0; i <= len(tc.in); i++ {
				s := New(10, 3, 0)
				s.Write([]byte(tc.in[:i]))
				s.Write([]byte(tc.in[i:]))
				if s.modes != want {
					t.Fatalf("split at %d: modes %b, want %b", i, s.modes, want)
				}
			}
		})
	}
}

func TestAltScreen(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "1049 saves the cursor, clears, and restores", in: "main\x1b[2;3H\x1b[?1049hALT\x1b[4;1Hx\x1b[?1049ly",
			want: []string{"main", "  y"}, cursor: at(3, 1)},
		{name: "1049 keeps the cursor position on entry", in: "ab\x1b[?1049hc", want: []string{"  c"},
			check: func(t *testing.T, s *Screen) {
				if !s.altScreen() {
					t.Error("not on the alternate screen")
				}
			}},
		{name: "1049 clears what the last visit left", in: "\x1b[?1049hold\x1b[?1049l\x1b[?1049h", want: nil},
		{name: "47 shows what the last visit left", in: "\x1b[?47hold\x1b[?47l\x1b[?47h", want: []string{"old"}},
		{name: "1047 clears on entry", in: "\x1b[?1047hold\x1b[?1047l\x1b[?1047h", want: nil},
		{name: "47 does not restore the cursor", in: "\x1b[?47h\x1b[3;3H\x1b[?47lx", want: []string{"", "", "  x"}},
		{name: "1048 saves and restores the cursor", in: "\x1b[2;2H\x1b[?1048h\x1b[4;4H\x1b[?1048lx", want: []string{"", " x"}},
		{name: "RIS leaves the alternate screen", in: "main\x1b[?1049halt\x1bc", want: nil,
			check: func(t *testing.T, s *Screen) {
				if s.altScreen() {
					t.Error("still on the alternate screen")
				}
			}},
	})
}

func TestKittyFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		flags uint8
		depth int
	}{
		{"push", "\x1b[>1u", 1, 1},
		{"push twice and pop", "\x1b[>1u\x1b[>3u\x1b[<u", 1, 1},
		{"pop more than pushed", "\x1b[>1u\x1b[<5u", 0, 0},
		{"set all", "\x1b[=5;1u", 5, 0},
		{"set or", "\x1b[=1u\x1b[=4;2u", 5, 0},
		{"set and not", "\x1b[=7u\x1b[=2;3u", 5, 0},
		{"unknown bits dropped", "\x1b[>255u", 31, 1},
		{"stack is bounded", repeatString("\x1b[>1u", 100), 1, maxKittyStack},
		{"per screen", "\x1b[>1u\x1b[?1049h\x1b[>2u", 2, 1},
		{"back on the primary", "\x1b[>1u\x1b[?1049h\x1b[>2u\x1b[?1049l", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.in); i++ {
				s := New(10, 3, 0)
				s.Write([]byte(tc.in[:i]))
				s.Write([]byte(tc.in[i:]))
				if k := s.g.kitty; k.flags != tc.flags || len(k.stack) != tc.depth {
					t.Fatalf("split at %d: kitty flags %d depth %d, want %d depth %d", i, k.flags, len(k.stack), tc.flags, tc.depth)
				}
			}
		})
	}
}

func TestOSC(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "OSC 2 sets the title", in: "\x1b]2;hello; world\x07", check: func(t *testing.T, s *Screen) {
			if s.windowTitle() != "hello; world" {
				t.Errorf("title %q", s.windowTitle())
			}
		}},
		{name: "OSC 0 with ST", in: "\x1b]0;vim - file\x1b\\x", want: []string{"x"}, check: func(t *testing.T, s *Screen) {
			if s.windowTitle() != "vim - file" {
				t.Errorf("title %q", s.windowTitle())
			}
		}},
		{name: "OSC 1 does not set the title", in: "\x1b]1;icon\x07", check: func(t *testing.T, s *Screen) {
			if s.windowTitle() != "" {
				t.Errorf("title %q", s.windowTitle())
			}
		}},
		{name: "OSC 7 sets the working directory", in: "\x1b]7;file://host/home/me\x07", check: func(t *testing.T, s *Screen) {
			if s.workingDirectory() != "file://host/home/me" {
				t.Errorf("cwd %q", s.workingDirectory())
			}
		}},
		{name: "OSC 8 links cells", in: "\x1b]8;id=7;http://a/b;c\x1b\\ab\x1b]8;;\x1b\\c", want: []string{"abc"},
			check: func(t *testing.T, s *Screen) {
				st := styleAt(s, 1, 0)
				if st.link == 0 || s.links.text(int32(st.link)) != "id=7;http://a/b;c" {
					t.Errorf("link %d", st.link)
				}
				if styleAt(s, 2, 0).link != 0 {
					t.Error("link not ended")
				}
			}},
		{name: "other OSC are ignored", in: "\x1b]52;c;aGVsbG8=\x07\x1b]11;?\x07ok", want: []string{"ok"}},
		{name: "DCS APC PM SOS are ignored", in: "\x1bPq#0;2;0;0;0\x1b\\\x1b_Gf=1;AAAA\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok", want: []string{"ok"}},
	})
}

func TestResize(t *testing.T) {
	s := New(10, 4, 100)
	s.Write([]byte("0123456789\r\nab\r\ncd\r\nef"))
	s.Resize(5, 2)
	if got := screenLines(s); !equalLines(got, []string{"cd", "ef"}) {
		t.Fatalf("after shrinking: %q", got)
	}
	if got := historyLines(s); !equalLines(got, []string{"01234", "56789", "ab"}) {
		t.Fatalf("scrollback after shrinking: %q", got)
	}
	if x, y := s.cursor(); x != 2 || y != 1 {
		t.Fatalf("cursor %d,%d", x, y)
	}
	s.Resize(12, 5)
	if got := screenLines(s); !equalLines(got, []string{"0123456789", "ab", "cd", "ef"}) {
		t.Fatalf("after growing: %q", got)
	}
	if x, y := s.cursor(); x != 2 || y != 3 {
		t.Fatalf("cursor %d,%d", x, y)
	}
	if c, r := s.size(); c != 12 || r != 5 {
		t.Fatalf("size %dx%d", c, r)
	}
	s.Write([]byte("\x1b[5;1H" + repeatString("x", 13)))
	if got := screenLines(s); !equalLines(got, []string{"ab", "cd", "ef", "xxxxxxxxxxxx", "x"}) {
		t.Fatalf("writing after the resize: %q", got)
	}
	if got := historyLines(s); len(got) != 1 || got[0] != "0123456789" {
		t.Fatalf("scrollback %q", got)
	}
	s.Resize(0, -3)
	if c, r := s.size(); c != 1 || r != 1 {
		t.Fatalf("size after a bogus resize %dx%d", c, r)
	}
}

func TestResizeKeepsPendingWrap(t *testing.T) {
	s := New(5, 2, 0)
	s.Write([]byte("01234"))
	s.Resize(8, 2)
	s.Write([]byte("x"))
	if got := screenLines(s); !equalLines(got, []string{"01234x"}) {
		t.Fatalf("screen %q", got)
	}
}
