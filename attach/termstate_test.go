package attach

import (
	"strings"
	"testing"
)

const (
	titlePushSeq = "\x1b[22;0t"
	titlePopSeq  = "\x1b[23;0t"
)

func TestTermStateReset(t *testing.T) {
	cases := []struct {
		name, out string
		push      string // written before the output: the terminal's title pushed
		want      string // written on leaving
	}{
		{"nothing", "hello\r\n", "", ""},
		{"no lasting state", "\x1b[2J\x1b[H\x1b[K\x1b7\x1b8\x1b[5;5H\x1b[?1$p\x1b[c", "", ""},
		{"alternate screen", "\x1b[?1049hvim", "", "\x1b[?1049l"},
		{"alternate screen left", "\x1b[?1049hvim\x1b[?1049l", "", ""},
		{"mouse and sgr encoding", "\x1b[?1000;1006h", "", "\x1b[?1000l\x1b[?1006l"},
		{"modes with an empty parameter", "\x1b[?1000;;1006h", "", "\x1b[?1000l\x1b[?1006l"},
		{"modes with a bad parameter", "\x1b[?1:2;1006h", "", "\x1b[?1006l"},
		{"untracked modes", "\x1b[?3h\x1b[?1034h\x1b[12h", "", ""},
		{"x10 mouse", "\x1b[?9h", "", "\x1b[?9l"},
		{"highlight mouse", "\x1b[?1001h", "", "\x1b[?1001l"},
		{"focus and paste", "\x1b[?1004h\x1b[?2004h", "", "\x1b[?1004l\x1b[?2004l"},
		{"alternate scroll", "\x1b[?1007h", "", "\x1b[?1007l"},
		{"cursor hidden", "\x1b[?25l", "", "\x1b[?25h"},
		{"cursor shown again", "\x1b[?25l\x1b[?25h", "", ""},
		{"cursor blink", "\x1b[?12h", "", "\x1b[?12l"},
		{"cursor shape", "\x1b[5 q", "", "\x1b[0 q"},
		{"cursor shape back to default", "\x1b[5 q\x1b[ q", "", ""},
		{"reverse video", "\x1b[?5h", "", "\x1b[?5l"},
		{"autowrap off", "\x1b[?7l", "", "\x1b[?7h"},
		{"autowrap back on", "\x1b[?7l\x1b[?7h", "", ""},
		{"insert mode", "\x1b[4h", "", "\x1b[4l"},
		{"insert mode off", "\x1b[4h\x1b[4l", "", ""},
		{"newline mode", "\x1b[20h", "", "\x1b[20l"},
		{"keyboard locked", "\x1b[2h", "", "\x1b[2l"},
		{"origin mode", "\x1b[?6h", "", "\x1b[?6l"},
		{"reverse wraparound and margins", "\x1b[?45h\x1b[?69h", "", "\x1b[?45l\x1b[?69l"},
		{"synchronized output", "\x1b[?2026h", "", "\x1b[?2026l"},
		{"scroll region", "\x1b[1;23r", "", "\x1b7\x1b[r\x1b8"},
		{"scroll region top only", "\x1b[5r", "", "\x1b7\x1b[r\x1b8"},
		{"scroll region reset", "\x1b[1;23r\x1b[r", "", ""},
		{"line drawing in G0", "\x1b(0lqk", "", "\x1b(B"},
		{"line drawing left", "\x1b(0lqk\x1b(B", "", ""},
		{"line drawing by shift out", "\x1b)0\x0elqk", "", "\x1b)B\x0f"},
		{"shifted back in", "\x1b)0\x0elqk\x0f", "", "\x1b)B"},
		{"shift out alone", "a\x0eb", "", "\x0f"},
		{"shift out then in", "a\x0eb\x0fc\x0ed\x0f", "", ""},
		{"locking shift G2", "\x1b*0\x1bn", "", "\x1b*B\x0f"},
		{"96-character set", "\x1b-A", "", "\x1b)B"},
		{"two-byte designation", "\x1b(%5", "", "\x1b(B"},
		{"line drawing saved and restored", "\x1b7\x1b(0\x1b[1mq\x1b8", "", ""},
		{"line drawing restored", "\x1b(0\x1b7\x1b(B\x1b8", "", "\x1b(B"},
		{"keypad", "\x1b=", "", "\x1b>"},
		{"cursor keys", "\x1b[?1h", "", "\x1b[?1l"},
		{"kitty push", "\x1b[>1u", "", "\x1b[<1u"},
		{"kitty push pop", "\x1b[>1u\x1b[<u", "", ""},
		{"kitty set", "\x1b[=5;1u", "", "\x1b[=0;1u"},
		{"modifyOtherKeys", "\x1b[>4;2m", "", "\x1b[>4m"},
		{"modifyOtherKeys off", "\x1b[>4;2m\x1b[>4m", "", ""},
		{"modifyOtherKeys all reset", "\x1b[>4;2m\x1b[>m", "", ""},
		{"modifyOtherKeys kept by another resource", "\x1b[>4;2m\x1b[>1;2m", "", "\x1b[>4m"},
		{"attributes", "\x1b[1;31mred", "", "\x1b[0m"},
		{"attributes with colon subparameters", "\x1b[38:2::1:2:3m", "", "\x1b[0m"},
		{"attributes reset", "\x1b[1;31mred\x1b[m", "", ""},
		{"title", "\x1b]0;vim\a", titlePushSeq, titlePopSeq},
		{"window title ST", "$ \x1b]2;make\x1b\\", titlePushSeq, titlePopSeq},
		{"title twice", "\x1b]2;a\a\x1b]2;b\a", titlePushSeq, titlePopSeq},
		{"session pushes and pops", "\x1b[22;2t\x1b]2;vim\a\x1b[23;2t", titlePushSeq, titlePopSeq},
		{"session pushes", "\x1b[22;0t", "", titlePopSeq},
		{"palette", "\x1b]4;1;rgb:ff/00/00\a", "", "\x1b]104\x1b\\"},
		{"palette query", "\x1b]4;1;?\a", "", ""},
		{"palette reset", "\x1b]4;1;rgb:ff/00/00\a\x1b]104\a", "", ""},
		{"foreground", "\x1b]10;#ffffff\x1b\\", "", "\x1b]110\x1b\\"},
		{"background", "\x1b]11;#000000\a", "", "\x1b]111\x1b\\"},
		{"background query", "\x1b]11;?\a", "", ""},
		{"background reset", "\x1b]11;#000000\a\x1b]111\a", "", ""},
		{"foreground and background", "\x1b]10;red;blue\a", "", "\x1b]110\x1b\\\x1b]111\x1b\\"},
		{"cursor colour", "\x1b]12;red\a", "", "\x1b]112\x1b\\"},
		{"hyperlink", "\x1b]8;;http://x\x1b\\x\x1b]8;;\x1b\\", "", ""},
		{"alt screen first", "\x1b[?2004h\x1b[?1049h", "", "\x1b[?1049l\x1b[?2004l"},
		{"region after alt screen", "\x1b[?1049h\x1b[2;5r\x1b[4h", "", "\x1b[?1049l\x1b7\x1b[r\x1b8\x1b[4l"},
		{"RIS clears modes", "\x1b[?1049h\x1b[?25l\x1b(0\x1b[4h\x1bc", "", ""},

		// A C0 control inside a sequence is executed and the sequence goes on.
		{"BS inside DECSET", "\x1b[?10\b49h", "", "\x1b[?1049l"},
		{"CR inside SM", "\x1b[4\rh", "", "\x1b[4l"},
		{"CR inside SGR", "\x1b[1\r;31m", "", "\x1b[0m"},
		{"BS inside cursor movement", "\x1b[?25l\x1b[2\bC\x1b[?25h", "", ""},
		{"C0 after ESC", "\x1b\r(0", "", "\x1b(B"},
		{"C0 before the title", "\x1b\b]2;x\a", titlePushSeq, titlePopSeq},
		{"CAN cancels", "\x1b[?1049\x18h", "", ""},
		{"ESC cuts a CSI", "\x1b[?10\x1b[4h", "", "\x1b[4l"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Every split point: a sequence split across writes counts.
			for i := 0; i <= len(tc.out); i++ {
				s := newTermState()
				var pushed strings.Builder
				for _, part := range []string{tc.out[:i], tc.out[i:]} {
					s.observe([]byte(part))
					pushed.Write(s.titlePush())
				}
				push, reset := pushed.String(), string(s.reset())
				want, wantPush := tc.want, tc.push
				held := "" // an unfinished sequence at the split
				if k := strings.LastIndexByte(tc.out[:i], 0x1b); k >= 0 {
					held = tc.out[k:i]
				}
				switch {
				case wantPush == "" && oscMayBeTitle([]byte(held)):
					// Output ending inside an OSC whose number could still
					// be a title's pushes early; a pop balances it.
					wantPush, want = titlePushSeq, tc.want+titlePopSeq
					reset = strings.Replace(reset, titlePopSeq, "", 1) + titlePopSeq
				case wantPush != "" && held != "" && loneESC([]byte(held)) && push != wantPush:
					// The terminal holds the ESC written before the split:
					// the push cuts it short and sends it again.
					wantPush += held
				}
				if push != wantPush {
					t.Fatalf("split at %d: pushed %q, want %q", i, push, wantPush)
				}
				if reset != want {
					t.Fatalf("split at %d: reset %q, want %q", i, reset, want)
				}
			}
		})
	}
}

func FuzzTermState(f *testing.F) {
	f.Add([]byte("\x1b[?1049h\x1b[?25l\x1b[1m"), uint8(3))
	f.Add([]byte("\x1b]10;red;blue\a\x1b)0\x0e\x1b[2\bC\x1b[4h"), uint8(9))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		s := newTermState()
		i := int(cut) % (len(b) + 1)
		s.observe(b[:i])
		_ = s.titlePush()
		s.observe(b[i:])
		_ = s.titlePush()
		_ = s.reset()
		if len(s.carry) >= maxCarry {
			t.Fatalf("carry grew to %d", len(s.carry))
		}
	})
}

// BenchmarkTermStateText is the common case: text with a little colour.
func BenchmarkTermStateText(b *testing.B) {
	line := []byte("drwxr-xr-x  2 root root  4096 Dec  2 12:00 \x1b[01;34mbin\x1b[0m\r\n")
	benchObserve(b, line)
}

// BenchmarkTermStateSequences is a full-screen program redrawing: a
// sequence every few bytes.
func BenchmarkTermStateSequences(b *testing.B) {
	line := []byte("\x1b[12;1H\x1b[38;5;33mfunc\x1b[m \x1b[1mmain\x1b[22m() {\x1b[K\x1b[?25l\x1b[?2026h\x1b[?2026l\x1b[?25h\r\n")
	benchObserve(b, line)
}

func benchObserve(b *testing.B, line []byte) {
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
