package attach

import (
	"testing"
)

func TestTermStateReset(t *testing.T) {
	cases := []struct {
		name, out, want string
	}{
		{"nothing", "hello\r\n", ""},
		{"alternate screen", "\x1b[?1049hvim", "\x1b[?1049l"},
		{"alternate screen left", "\x1b[?1049hvim\x1b[?1049l", ""},
		{"mouse and sgr encoding", "\x1b[?1000;1006h", "\x1b[?1000l\x1b[?1006l"},
		{"focus and paste", "\x1b[?1004h\x1b[?2004h", "\x1b[?1004l\x1b[?2004l"},
		{"cursor hidden", "\x1b[?25l", "\x1b[?25h"},
		{"cursor shown again", "\x1b[?25l\x1b[?25h", ""},
		{"attributes", "\x1b[1;31mred", "\x1b[0m"},
		{"attributes reset", "\x1b[1;31mred\x1b[m", ""},
		{"kitty push", "\x1b[>1u", "\x1b[<1u"},
		{"kitty push pop", "\x1b[>1u\x1b[<u", ""},
		{"kitty set", "\x1b[=5;1u", "\x1b[=0;1u"},
		{"keypad", "\x1b=", "\x1b>"},
		{"modifyOtherKeys", "\x1b[>4;2m", "\x1b[>4m"},
		{"cursor keys", "\x1b[?1h", "\x1b[?1l"},
		{"alt screen first", "\x1b[?2004h\x1b[?1049h", "\x1b[?1049l\x1b[?2004l"},
		{"RIS clears", "\x1b[?1049h\x1b[?25l\x1bc", ""},
		{"not ours", "\x1b[2J\x1b]0;title\a\x1b(0", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Every split point: a sequence split across writes counts.
			for i := 0; i <= len(tc.out); i++ {
				s := newTermState()
				s.observe([]byte(tc.out[:i]))
				s.observe([]byte(tc.out[i:]))
				if got := string(s.reset()); got != tc.want {
					t.Fatalf("split at %d: reset %q, want %q", i, got, tc.want)
				}
			}
		})
	}
}

func FuzzTermState(f *testing.F) {
	f.Add([]byte("\x1b[?1049h\x1b[?25l\x1b[1m"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		s := newTermState()
		i := int(cut) % (len(b) + 1)
		s.observe(b[:i])
		s.observe(b[i:])
		_ = s.reset()
		if len(s.carry) >= maxCarry {
			t.Fatalf("carry grew to %d", len(s.carry))
		}
	})
}

func BenchmarkTermStateText(b *testing.B) {
	line := []byte("drwxr-xr-x  2 root root  4096 Dec  2 12:00 \x1b[01;34mbin\x1b[0m\r\n")
	var buf []byte
	for len(buf) < 64<<10 {
		buf = append(buf, line...)
	}
	s := newTermState()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		s.observe(buf)
	}
}
