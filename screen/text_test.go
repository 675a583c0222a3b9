package screen

import "testing"

func TestAppendText(t *testing.T) {
	const in = "\x1b[1;31mred\x1b[m plain   \r\n\r\n中文 e\u0301\x1b[44m  \x1b[m\r\n\r\n"
	for _, tc := range []struct {
		name string
		opt  TextOptions
		want string
	}{
		{"plain", TextOptions{}, "red plain\n\n中文 e\u0301\n"},
		{"ansi", TextOptions{ANSI: true}, "\x1b[0;1;31mred\x1b[0m plain\n\n中文 e\u0301\x1b[0;44m  \x1b[0m\n"},
		{"scrollback", TextOptions{Scrollback: true}, "old 1\nold 2\nred plain\n\n中文 e\u0301\n"},
		{"scrollback ansi", TextOptions{Scrollback: true, ANSI: true}, "old 1\nold 2\n\x1b[0;1;31mred\x1b[0m plain\n\n中文 e\u0301\x1b[0;44m  \x1b[0m\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(12, 5, 10)
			// Two lines scroll into the scrollback, and the screen is clear.
			s.Write([]byte("old 1\r\nold 2\r\n\x1b[S\x1b[S\x1b[H"))
			s.Write([]byte(in))
			if got := string(s.AppendText([]byte("prefix:"), tc.opt)); got != "prefix:"+tc.want {
				t.Fatalf("text\n%q\nwant\n%q", got, "prefix:"+tc.want)
			}
		})
	}
}

func TestAppendTextEmpty(t *testing.T) {
	s := New(10, 3, 0)
	if got := s.AppendText(nil, TextOptions{ANSI: true, Scrollback: true}); len(got) != 0 {
		t.Fatalf("empty screen gives %q", got)
	}
}

func TestAppendTextAltScreen(t *testing.T) {
	s := New(10, 3, 0)
	s.Write([]byte("main\x1b[?1049h\x1b[Hvim"))
	if got := string(s.AppendText(nil, TextOptions{})); got != "vim\n" {
		t.Fatalf("text %q", got)
	}
}
