package mux

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// run is one expected classified run.
type run struct {
	kind inputKind
	b    string
}

func act(s string) run     { return run{inputAct, s} }
func report(s string) run  { return run{inputReport, s} }
func passive(s string) run { return run{inputPassive, s} }

// runs accumulates classified runs, merging neighbours of one kind.
type runs []run

func (rs *runs) add(out []byte, segs []segment) {
	for _, s := range segs {
		b := string(out[s.start:s.end])
		if n := len(*rs); n > 0 && (*rs)[n-1].kind == s.kind {
			(*rs)[n-1].b += b
			continue
		}
		*rs = append(*rs, run{s.kind, b})
	}
}

func formatRuns(rs []run) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s(%q) ", r.kind, r.b)
	}
	return b.String()
}

var classifyCases = []struct {
	name string
	in   string
	want []run
}{
	// Keys in every encoding act.
	{"printable", "hello", []run{act("hello")}},
	{"enter", "\r", []run{act("\r")}},
	{"ctrl-c", "\x03", []run{act("\x03")}},
	{"delete", "\x7f", []run{act("\x7f")}},
	{"utf-8", "é日本🙂", []run{act("é日本🙂")}},
	{"lone escape", "\x1b", []run{act("\x1b")}},
	{"alt-x", "\x1bx", []run{act("\x1bx")}},
	{"alt-underscore", "\x1b_", []run{act("\x1b_")}},
	{"alt-P", "\x1bP", []run{act("\x1bP")}},
	{"alt-close-bracket", "\x1b]", []run{act("\x1b]")}},
	{"arrow", "\x1b[A", []run{act("\x1b[A")}},
	{"ctrl-up", "\x1b[1;5A", []run{act("\x1b[1;5A")}},
	{"ss3 F1", "\x1bOP", []run{act("\x1bOP")}},
	{"F5 tilde", "\x1b[15~", []run{act("\x1b[15~")}},
	{"modifyOtherKeys", "\x1b[27;5;9~", []run{act("\x1b[27;5;9~")}},
	{"kitty key event", "\x1b[97;5u", []run{act("\x1b[97;5u")}},
	{"kitty key no mods", "\x1b[13u", []run{act("\x1b[13u")}},
	{"8-bit CSI key", "\x9bA", []run{act("\x9bA")}},

	// Terminal answers and focus reports never act.
	{"focus in", "\x1b[I", []run{report("\x1b[I")}},
	{"focus out", "\x1b[O", []run{report("\x1b[O")}},
	{"CPR", "\x1b[12;40R", []run{report("\x1b[12;40R")}},
	{"DECXCPR", "\x1b[?12;40;1R", []run{report("\x1b[?12;40;1R")}},
	// With no cursor query owed (queries.go), CSI 1;m R is F3.
	{"shift-F3", "\x1b[1;2R", []run{act("\x1b[1;2R")}},
	{"ctrl-alt-F3", "\x1b[1;7R", []run{act("\x1b[1;7R")}},
	{"CPR row 1 past the modifiers", "\x1b[1;17R", []run{report("\x1b[1;17R")}},
	{"DECXCPR row 1", "\x1b[?1;2R", []run{report("\x1b[?1;2R")}},
	{"DSR ok", "\x1b[0n", []run{report("\x1b[0n")}},
	{"DSR malfunction", "\x1b[3n", []run{report("\x1b[3n")}},
	{"theme report", "\x1b[?997;1n", []run{report("\x1b[?997;1n")}},
	{"DECRPM private", "\x1b[?2004;1$y", []run{report("\x1b[?2004;1$y")}},
	{"DECRPM ansi", "\x1b[4;2$y", []run{report("\x1b[4;2$y")}},
	{"DA1", "\x1b[?62;22c", []run{report("\x1b[?62;22c")}},
	{"DA2", "\x1b[>1;10;0c", []run{report("\x1b[>1;10;0c")}},
	{"DA3 ST", "\x1bP!|00000000\x1b\\", []run{report("\x1bP!|00000000\x1b\\")}},
	{"XTVERSION", "\x1bP>|xterm(390)\x1b\\", []run{report("\x1bP>|xterm(390)\x1b\\")}},
	{"XTGETTCAP", "\x1bP1+r544e=787465726d\x1b\\", []run{report("\x1bP1+r544e=787465726d\x1b\\")}},
	{"window size chars", "\x1b[8;24;80t", []run{report("\x1b[8;24;80t")}},
	{"window size pixels", "\x1b[4;600;800t", []run{report("\x1b[4;600;800t")}},
	{"kitty flags report", "\x1b[?1u", []run{report("\x1b[?1u")}},
	{"OSC 11 ST", "\x1b]11;rgb:0000/0000/0000\x1b\\", []run{report("\x1b]11;rgb:0000/0000/0000\x1b\\")}},
	{"OSC 10 BEL", "\x1b]10;rgb:ffff/ffff/ffff\a", []run{report("\x1b]10;rgb:ffff/ffff/ffff\a")}},
	{"OSC 4", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\", []run{report("\x1b]4;1;rgb:cdcd/0000/0000\x1b\\")}},
	{"OSC 12", "\x1b]12;rgb:ffff/0000/0000\a", []run{report("\x1b]12;rgb:ffff/0000/0000\a")}},
	{"OSC 52", "\x1b]52;c;aGVsbG8=\a", []run{report("\x1b]52;c;aGVsbG8=\a")}},
	{"OSC with UTF-8", "\x1b]2;héllo\a", []run{report("\x1b]2;héllo\a")}},
	{"APC", "\x1b_Gi=1;OK\x1b\\", []run{report("\x1b_Gi=1;OK\x1b\\")}},
	{"OSC title report in UTF-8 with 0x9c", "\x1b]l日本\x1b\\", []run{report("\x1b]l日本\x1b\\")}},
	{"rxvt-unicode's title report ends with 8-bit ST", "\x1b]lmy 日本\x9cls", []run{report("\x1b]lmy 日本\x9c"), act("ls")}},
	{"a stray high byte in an APC answer", "\x1b_Gi=1;\xa5OK\x1b\\ls", []run{report("\x1b_Gi=1;\xa5OK\x1b\\"), act("ls")}},
	{"kitty's remote control answer", "\x1bP@kitty-cmd{\"ok\":true}\x1b\\", []run{report("\x1bP@kitty-cmd{\"ok\":true}\x1b\\")}},
	{"XTSMGRAPHICS", "\x1b[?1;0;256S", []run{report("\x1b[?1;0;256S")}},
	{"DECREPTPARM", "\x1b[2;1;1;112;112;1;0x", []run{report("\x1b[2;1;1;112;112;1;0x")}},
	{"XTQMODKEYS", "\x1b[>4;2m", []run{report("\x1b[>4;2m")}},
	{"DECLRP", "\x1b[1;0;10;5;0&w", []run{report("\x1b[1;0;10;5;0&w")}},
	{"shift-F4 is no XTSMGRAPHICS", "\x1b[1;2S", []run{act("\x1b[1;2S")}},

	// No terminal answers with PM or SOS, or with a string that starts
	// as none of its answers do, or holds a control: Alt with ^ X ] P _
	// and keys after it.
	{"PM is alt-caret", "\x1b^hi\x1b\\", []run{act("\x1b^hi\x1b\\")}},
	{"SOS is alt-X", "\x1bXhi", []run{act("\x1bXhi")}},
	{"alt-underscore then a key", "\x1b_x", []run{act("\x1b_x")}},
	{"alt-P then a key", "\x1bPq", []run{act("\x1bPq")}},
	{"alt-close-bracket then a key", "\x1b]x", []run{act("\x1b]x")}},
	{"alt-close-bracket then a report", "\x1b]\x1b[I", []run{act("\x1b]"), report("\x1b[I")}},
	{"typed string ended by enter", "\x1b]12\r", []run{act("\x1b]12\r")}},
	{"typed string ended by enter, then keys", "\x1b_Gx\rhello", []run{act("\x1b_Gx\rhello")}},
	{"8-bit CPR", "\x9b12;40R", []run{report("\x9b12;40R")}},
	{"8-bit OSC ST", "\x9d11;rgb:0/0/0\x9c", []run{report("\x9d11;rgb:0/0/0\x9c")}},
	{"8-bit DCS", "\x90>|xterm\x9c", []run{report("\x90>|xterm\x9c")}},

	// Mouse: clicks and drags act; the wheel and buttonless motion do not.
	{"sgr press", "\x1b[<0;10;5M", []run{act("\x1b[<0;10;5M")}},
	{"sgr release", "\x1b[<0;10;5m", []run{act("\x1b[<0;10;5m")}},
	{"sgr right press", "\x1b[<2;10;5M", []run{act("\x1b[<2;10;5M")}},
	{"sgr drag", "\x1b[<32;11;5M", []run{act("\x1b[<32;11;5M")}},
	{"sgr motion", "\x1b[<35;11;5M", []run{passive("\x1b[<35;11;5M")}},
	{"sgr wheel up", "\x1b[<64;10;5M", []run{passive("\x1b[<64;10;5M")}},
	{"sgr wheel down", "\x1b[<65;10;5M", []run{passive("\x1b[<65;10;5M")}},
	{"sgr ctrl-wheel", "\x1b[<80;10;5M", []run{passive("\x1b[<80;10;5M")}},
	{"sgr button 8", "\x1b[<128;10;5M", []run{act("\x1b[<128;10;5M")}},
	{"x10 press", "\x1b[M !!", []run{act("\x1b[M !!")}},
	{"x10 release", "\x1b[M#!!", []run{act("\x1b[M#!!")}},
	{"x10 wheel", "\x1b[M`!!", []run{passive("\x1b[M`!!")}},
	{"x10 motion", "\x1b[MC!!", []run{passive("\x1b[MC!!")}},
	{"x10 drag", "\x1b[M@!!", []run{act("\x1b[M@!!")}},
	{"x10 high coordinates", "\x1b[M`\xff\x9b", []run{passive("\x1b[M`\xff\x9b")}},
	{"urxvt wheel", "\x1b[96;10;5M", []run{passive("\x1b[96;10;5M")}},
	{"urxvt motion", "\x1b[67;10;5M", []run{passive("\x1b[67;10;5M")}},
	{"urxvt press", "\x1b[32;10;5M", []run{act("\x1b[32;10;5M")}},

	// A bracketed paste is the person's, whatever it contains.
	{"paste", "\x1b[200~ls\x1b[I\x1b[12;1R\x1b]11;x\a\x1b[201~", []run{act("\x1b[200~ls\x1b[I\x1b[12;1R\x1b]11;x\a\x1b[201~")}},
	{"paste then focus", "\x1b[200~x\x1b[201~\x1b[I", []run{act("\x1b[200~x\x1b[201~"), report("\x1b[I")}},
	{"paste with partial end", "\x1b[200~\x1b[20\x1b[201~", []run{act("\x1b[200~\x1b[20\x1b[201~")}},

	// Mixtures keep their order.
	{"key focus key", "a\x1b[Ib", []run{act("a"), report("\x1b[I"), act("b")}},
	{"escape then report", "\x1b\x1b[I", []run{act("\x1b"), report("\x1b[I")}},
	{"report then escape", "\x1b[I\x1b", []run{report("\x1b[I"), act("\x1b")}},
	{"osc then key", "\x1b]11;x\x1b\\q", []run{report("\x1b]11;x\x1b\\"), act("q")}},
	{"osc ended by a new sequence", "\x1b]11;x\x1b[I", []run{report("\x1b]11;x\x1b[I")}},
	{"wheel between keys", "a\x1b[<64;1;1Mb", []run{act("a"), passive("\x1b[<64;1;1M"), act("b")}},
	{"two reports", "\x1b[?62c\x1b[0n", []run{report("\x1b[?62c\x1b[0n")}},

	// A C0 control inside a CSI is executed by terminals and the sequence
	// goes on: it neither ends nor changes what the sequence is.
	{"CR inside CPR", "\x1b[12;\r40R", []run{report("\x1b[12;\r40R")}},
	{"BS inside DA1", "\x1b[?62\b;22c", []run{report("\x1b[?62\b;22c")}},
	{"BS inside DA2 prefix", "\x1b[>\b1;10;0c", []run{report("\x1b[>\b1;10;0c")}},
	{"C0 inside DECRPM", "\x1b[?2004;1$\ty", []run{report("\x1b[?2004;1$\ty")}},
	{"C0 right after CSI", "\x1b[\rI", []run{report("\x1b[\rI")}},
	{"C0 inside wheel", "\x1b[<64;10\r;5M", []run{passive("\x1b[<64;10\r;5M")}},
	{"C0 inside CSI M", "\x1b[\rM`!!", []run{passive("\x1b[\rM`!!")}},
	{"C0 inside 8-bit CPR", "\x9b12\b;40R", []run{report("\x9b12\b;40R")}},
	// Not in a string: no answer holds one, and a string typed by
	// accident must end at the next control key, not swallow what follows.
	{"C0 inside a DCS header", "\x1bP>\b|xterm(390)\x1b\\", []run{act("\x1bP>\b|xterm(390)\x1b\\")}},
	{"C0 inside an OSC", "\x1b]11;rgb:0000/\r0000/0000\a", []run{act("\x1b]11;rgb:0000/\r0000/0000\a")}},
	{"BS inside a key", "\x1b[2\bC", []run{act("\x1b[2\bC")}},
	{"C0 inside a key then a report", "\x1b[2\bC\x1b[I", []run{act("\x1b[2\bC"), report("\x1b[I")}},
	{"control inside CSI then a key", "\x1b[1\nx", []run{act("\x1b[1\nx")}},

	// Broken sequences are the person's.
	{"alt-enter", "\x1b\r", []run{act("\x1b\r")}},
	{"cancelled CSI", "\x1b[1\x18", []run{act("\x1b[1\x18")}},
	{"escape cuts a CSI", "\x1b[12\x1b[I", []run{act("\x1b[12"), report("\x1b[I")}},

	// Caps: past them a sequence is abandoned as ordinary input, never
	// truncated into a report.
	{"CSI at the cap", "\x1b[" + strings.Repeat("1", maxCSIPending-2) + ";1R", []run{report("\x1b[" + strings.Repeat("1", maxCSIPending-2) + ";1R")}},
	{"CSI past the cap", "\x1b[" + strings.Repeat("1", maxCSIPending+5) + "R", []run{act("\x1b[" + strings.Repeat("1", maxCSIPending+5) + "R")}},
	{"padded focus", "\x1b[" + strings.Repeat(";", 200) + "I", []run{act("\x1b[" + strings.Repeat(";", 200) + "I")}},
	{"OSC past the cap", "\x1b]11;" + strings.Repeat("x", maxStringPending) + "\a", []run{act("\x1b]11;" + strings.Repeat("x", maxStringPending) + "\a")}},
}

// TestClassify replays every case at every split point: a report split over
// two frames must read exactly as if it had arrived whole.
func TestClassify(t *testing.T) {
	for _, tc := range classifyCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			step := 1
			if len(in) > 300 {
				step = len(in) / 97 // the long cap cases: a sample of splits
			}
			for i := 0; i <= len(in); i += step {
				c := newInputClassifier()
				var got runs
				got.add(c.classify(in[:i], false))
				got.add(c.classify(in[i:], false))
				got.add(c.resolveESC())
				if formatRuns(got) != formatRuns(tc.want) {
					t.Fatalf("split at %d:\n got %s\nwant %s", i, formatRuns(got), formatRuns(tc.want))
				}
			}
		})
	}
}

// TestClassifyByteAtATime feeds every case one byte per frame.
func TestClassifyByteAtATime(t *testing.T) {
	for _, tc := range classifyCases {
		if len(tc.in) > 300 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			c := newInputClassifier()
			var got runs
			for i := range len(tc.in) {
				got.add(c.classify([]byte(tc.in[i:i+1]), false))
			}
			got.add(c.resolveESC())
			if formatRuns(got) != formatRuns(tc.want) {
				t.Fatalf("\n got %s\nwant %s", formatRuns(got), formatRuns(tc.want))
			}
		})
	}
}

// Alt-_ then typing: once the 25 ms pass with nothing after the introducer,
// it and what follows are keystrokes, not a string swallowing them.
func TestAltStringIntroducerIsTyped(t *testing.T) {
	c := newInputClassifier()
	var got runs
	got.add(c.classify([]byte("\x1b_"), false))
	if !c.loneESC() {
		t.Fatal("ESC _ alone should wait, like a lone ESC")
	}
	got.add(c.resolveESC())
	got.add(c.classify([]byte("echo hi\r"), false))
	if formatRuns(got) != formatRuns([]run{act("\x1b_echo hi\r")}) {
		t.Fatalf("got %s", formatRuns(got))
	}
}

// A lone ESC is held, not lost: the next byte resolves it.
func TestLoneEscapeHeld(t *testing.T) {
	c := newInputClassifier()
	out, segs := c.classify([]byte("\x1b"), false)
	if len(segs) != 0 || len(out) != 0 || !c.loneESC() {
		t.Fatalf("a lone ESC at the end of a frame should be held; got %q %v", out, segs)
	}
	var got runs
	got.add(c.classify([]byte("[I"), false))
	if formatRuns(got) != formatRuns([]run{report("\x1b[I")}) {
		t.Fatalf("ESC then [I = %s", formatRuns(got))
	}
	if c.loneESC() {
		t.Fatal("nothing should be held after a complete report")
	}
}

// The owner's input is never held back: passthrough forwards every byte of
// each frame at once, and a later non-owner frame continues in context
// without repeating what was already forwarded.
func TestPassthroughForwardsAtOnce(t *testing.T) {
	c := newInputClassifier()
	if out, segs := c.classify([]byte("a\x1b"), true); string(out) != "a\x1b" || len(segs) != 1 || segs[0].kind != inputOwner {
		t.Fatalf("owner frame forwarded %q %v, want all of it as the owner's", out, segs)
	}
	// The rest of a sequence whose start went through as the owner's goes
	// the same way, whoever owns the size now: dropping it as a report would
	// leave the application half a sequence.
	var got runs
	got.add(c.classify([]byte("[?62c"), false))
	if formatRuns(got) != formatRuns([]run{{inputOwner, "[?62c"}}) {
		t.Fatalf("tail after an owner's ESC = %s", formatRuns(got))
	}
	c2 := newInputClassifier()
	c2.classify([]byte("\x1b[?6"), true)
	var tail runs
	tail.add(c2.classify([]byte("2c"), false))
	if formatRuns(tail) != formatRuns([]run{{inputOwner, "2c"}}) {
		t.Fatalf("tail after passthrough = %s", formatRuns(tail))
	}
	// Once the sequence is over, the next one is decided afresh.
	tail = nil
	tail.add(c2.classify([]byte("\x1b[I"), false))
	if formatRuns(tail) != formatRuns([]run{report("\x1b[I")}) {
		t.Fatalf("the next report = %s", formatRuns(tail))
	}
	// And a non-owner's held head goes out first when it becomes the owner.
	c3 := newInputClassifier()
	if o, _ := c3.classify([]byte("\x1b[1;"), false); len(o) != 0 {
		t.Fatalf("held head forwarded early: %q", o)
	}
	if o, _ := c3.classify([]byte("5A"), true); string(o) != "\x1b[1;5A" {
		t.Fatalf("new owner forwarded %q", o)
	}
	// A key whose ESC went through as the owner's claims the size when
	// another client took it meanwhile: it is a person's all the same.
	c4 := newInputClassifier()
	c4.classify([]byte("\x1b"), true)
	var key runs
	key.add(c4.classify([]byte("i"), false))
	if formatRuns(key) != formatRuns([]run{act("i")}) {
		t.Fatalf("a key after an owner's ESC = %s", formatRuns(key))
	}
	// Alt+^ (PM) and Alt+_ then a key, as the owner's, leave nothing held:
	// the keys after them, typed once another client took the size, are
	// keys and not a string's body.
	for _, alt := range []string{"\x1b^", "\x1b_\r"} {
		c5 := newInputClassifier()
		c5.classify([]byte(alt), true)
		var later runs
		later.add(c5.classify([]byte("hello\r"), false))
		if formatRuns(later) != formatRuns([]run{act("hello\r")}) {
			t.Fatalf("keys after the owner's %q = %s", alt, formatRuns(later))
		}
	}
}

// FuzzClassify: never panics; what is forwarded, in order, followed by what
// is still held, is exactly the input (so forwarded bytes are a subsequence
// of it); and the held sequence never grows past its cap.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		if len(tc.in) < 300 {
			f.Add([]byte(tc.in), uint8(3), uint8(0))
		}
	}
	f.Add([]byte("\x1b[200~\x1b[201"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, owner uint8) {
		c := newInputClassifier()
		size := int(chunk%16) + 1
		var forwarded []byte
		for i, n := 0, 0; i < len(in); i, n = i+size, n+1 {
			end := min(i+size, len(in))
			out, segs := c.classify(in[i:end], owner>>(n%8)&1 == 1)
			for _, s := range segs {
				if s.start > s.end || s.end > len(out) || s.kind == 0 {
					t.Fatalf("bad segment %+v of %d bytes", s, len(out))
				}
				forwarded = append(forwarded, out[s.start:s.end]...)
			}
			if len(c.seq) > maxStringPending+2 {
				t.Fatalf("held %d bytes, past the cap", len(c.seq))
			}
		}
		out, segs := c.resolveESC()
		for _, s := range segs {
			forwarded = append(forwarded, out[s.start:s.end]...)
		}
		held := c.seq[c.seqSent:]
		if !bytes.Equal(append(forwarded, held...), in) {
			t.Fatalf("forwarded %q + held %q != input %q", forwarded, held, in)
		}
	})
}

func BenchmarkClassifyTyping(b *testing.B) {
	c := newInputClassifier()
	in := []byte("ls -la /usr/local/bin | grep wr\r")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		c.classify(in, false)
	}
}

func BenchmarkClassifyOwner(b *testing.B) {
	c := newInputClassifier()
	in := []byte("ls -la /usr/local/bin | grep wr\r")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		c.classify(in, true)
	}
}

// TestClassifierIsSmall: every client that attaches gets a classifier, and
// ansi.NewParser's 64 KiB string buffer made each attach zero and collect
// 64 KiB for nothing (the classifier keeps 256 bytes of it).
func TestClassifierIsSmall(t *testing.T) {
	const n = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	keep := make([]*inputClassifier, n)
	for i := range keep {
		keep[i] = newInputClassifier()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Fatalf("a classifier allocates %d bytes; want under 8 KiB", per)
	}
	runtime.KeepAlive(keep)
}
