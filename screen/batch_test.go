package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// chooser makes a generated session's decisions: from a random source in
// the differential test, from the fuzzer's bytes in the fuzz target.
type chooser interface {
	intn(n int) int // in [0, n); 0 when n <= 1
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

// byteChooser reads decisions from bytes, and answers 0 once they run out.
type byteChooser struct{ in []byte }

func (c *byteChooser) intn(n int) int {
	if n <= 1 || len(c.in) == 0 {
		return 0
	}
	v := int(c.in[0])
	c.in = c.in[1:]
	if n > 256 && len(c.in) > 0 {
		v = v<<8 | int(c.in[0])
		c.in = c.in[1:]
	}
	return v % n
}

// batchStep is one step of a session: a batch, or a resize when cols > 0.
type batchStep struct {
	chunks     [][]byte
	cols, rows int
}

// Pieces of generated output besides plain text.
var (
	batchSGR = []string{"0", "1", "7", "31", "41", "44;33", "48;5;17", "48;2;1;2;3", "49", "39", ""}
	batchCSI = []string{"H", "2;5H", "A", "3B", "C", "2D", "3G", "2d", "E", "F", "J", "1J", "2J", "3J", "K", "1K",
		"2K", "L", "2M", "@", "3P", "2X", "S", "2T", "3b", "r", "2;3r", "1;2r", "s", "u", "!p", "g", "3g", "2Z", "2I"}
	batchModes = []string{"?1049h", "?1049l", "?1047h", "?1047l", "?47h", "?47l", "4h", "4l", "20h", "20l",
		"?7l", "?7h", "?6h", "?6l", "?25l"}
	batchESC  = []string{"\x1b(0", "\x1b(B", "\x1b)0", "\x1b*A", "\x0e", "\x0f", "\x1bN", "\x1bO", "\x1bn", "\x1b7", "\x1b8", "\x1bD", "\x1bM", "\x1bE", "\x1bH", "\x1bc", "\x1b#8"}
	batchUTF8 = []string{"中", "👍", "é", "e\u0301", "\u0301", "👩\u200d👩", "\u200d", "ｱ", "\u00a0"}
	// Unfinished sequences and stray bytes: text that follows may be read
	// as part of a sequence.
	batchPending = []string{"\x1b", "\x1b[", "\x1b[3", "\x1b[?", "\x1b]2;", "\x1b]8;;http://x/", "\x1bP", "\x1b_", "\xe2", "\xe2\x82", "\xf0\x9f", "\x7f", "\a", "\x07", "\x1b\\", "\x18"}
	batchQuery   = []string{"\x1b[6n", "\x1b[?6n", "\x1b[c", "\x1b[>c", "\x1b[5n"}
	batchOSC     = []string{"\x1b]2;title\a", "\x1b]8;;http://a/\x1b\\", "\x1b]8;;\x1b\\", "\x1b]7;file:///tmp\a"}
	batchEnds    = []string{"\r\n", "\r\n", "\r\n", "\r\n", "\r\n", "\r\n", "\n", "\r", "", "\r\r\n", "\n\r"}
)

// genLine appends a line of plain text of random length (up to three
// screen widths, so some wrap), with the odd tab or backspace.
func genLine(b []byte, c chooser, cols int) []byte {
	n := c.intn(3*cols + 2)
	for i := range n {
		switch c.intn(40) {
		case 0:
			b = append(b, '\t')
		case 1:
			b = append(b, '\b')
		default:
			b = append(b, byte('!'+(i*7+n)%94))
		}
	}
	return append(b, batchEnds[c.intn(len(batchEnds))]...)
}

// genSession generates output in batches. Blocks of lines are sized around
// the skip threshold of the current size.
func genSession(c chooser, cols, rows, capacity, size int) []batchStep {
	var steps []batchStep
	var buf []byte
	flush := func() {
		steps = append(steps, batchStep{chunks: split(c, buf)})
		buf = nil
	}
	total := 0
	for total < size {
		n0 := len(buf)
		switch c.intn(20) {
		case 0, 1, 2, 3, 4:
			need := 2*rows - 1 + capacity
			if c.intn(3) == 0 {
				need = 2*rows - 1 // the alternate screen's
			}
			k := [...]int{need - 1, need, need + 1, need + 2, c.intn(3*need + 2), c.intn(5)}[c.intn(6)]
			for range k {
				buf = genLine(buf, c, cols)
			}
		case 5:
			buf = fmt.Appendf(buf, "\x1b[%sm", batchSGR[c.intn(len(batchSGR))])
		case 6:
			buf = fmt.Appendf(buf, "\x1b[%s", batchCSI[c.intn(len(batchCSI))])
		case 7:
			buf = fmt.Appendf(buf, "\x1b[%d;%dr", c.intn(rows+1), c.intn(rows+2))
		case 8:
			buf = fmt.Appendf(buf, "\x1b[%s", batchModes[c.intn(len(batchModes))])
		case 9:
			buf = append(buf, batchESC[c.intn(len(batchESC))]...)
		case 10:
			buf = append(buf, batchUTF8[c.intn(len(batchUTF8))]...)
		case 11:
			buf = append(buf, batchPending[c.intn(len(batchPending))]...)
		case 12:
			buf = append(buf, batchQuery[c.intn(len(batchQuery))]...)
		case 13:
			buf = append(buf, batchOSC[c.intn(len(batchOSC))]...)
		case 14:
			buf = append(buf, byte(c.intn(256)))
		case 15:
			buf = fmt.Appendf(buf, "\x1b[%d;%dH", 1+c.intn(rows), 1+c.intn(cols))
		case 16, 17:
			flush()
		case 18:
			if c.intn(4) == 0 {
				flush()
				cols, rows = 1+c.intn(12), 1+c.intn(8)
				steps = append(steps, batchStep{cols: cols, rows: rows})
			}
		case 19:
			buf = genLine(buf, c, cols)
		}
		total += 1 + len(buf) - n0
	}
	flush()
	return steps
}

// split cuts b into chunks: whole, byte by byte, or of random sizes, some
// of them empty.
func split(c chooser, b []byte) [][]byte {
	var chunks [][]byte
	mode := c.intn(5)
	for len(b) > 0 {
		var n int
		switch mode {
		case 0:
			n = len(b)
		case 1:
			n = 1
		case 2:
			if n = c.intn(8); n == 0 {
				chunks = append(chunks, nil)
				n = 1
			}
		case 3:
			n = 1 + c.intn(64)
		default:
			n = 1 + c.intn(700)
		}
		n = min(n, len(b))
		chunks = append(chunks, b[:n])
		b = b[n:]
	}
	return chunks
}

// batchPair is two screens fed the same output, one with Write and one with
// WriteBatch, and the replies each sent.
type batchPair struct {
	seq, bat         *Screen
	seqRepl, batRepl []byte
}

func newBatchPair(cols, rows, capacity int) *batchPair {
	p := &batchPair{seq: New(cols, rows, capacity), bat: New(cols, rows, capacity)}
	p.seq.SetReply(func(b []byte) { p.seqRepl = append(p.seqRepl, b...) })
	p.bat.SetReply(func(b []byte) { p.batRepl = append(p.batRepl, b...) })
	return p
}

func (p *batchPair) write(b []byte) {
	p.seq.Write(b)
	p.bat.Write(b)
}

func (p *batchPair) step(st batchStep) {
	if st.cols > 0 {
		p.seq.Resize(st.cols, st.rows)
		p.bat.Resize(st.cols, st.rows)
		return
	}
	for _, c := range st.chunks {
		p.seq.Write(c)
	}
	p.bat.WriteBatch(st.chunks)
}

// diff describes the first difference between the two screens, or "".
// Besides what can be observed (restore, text, replies) it compares the
// state that decides what later output does.
func (p *batchPair) diff() string {
	a, b := p.seq, p.bat
	if x, y := a.AppendRestore(nil), b.AppendRestore(nil); !bytes.Equal(x, y) {
		return "restore: " + firstDiff(x, y)
	}
	for _, opt := range []TextOptions{{}, {ANSI: true}, {Scrollback: true}, {ANSI: true, Scrollback: true}} {
		if x, y := a.AppendText(nil, opt), b.AppendText(nil, opt); !bytes.Equal(x, y) {
			return fmt.Sprintf("text %+v: %s", opt, firstDiff(x, y))
		}
	}
	if !bytes.Equal(p.seqRepl, p.batRepl) {
		return fmt.Sprintf("replies %q vs %q", p.seqRepl, p.batRepl)
	}
	if x, y := stateOf(a), stateOf(b); !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("state\n%+v\nvs\n%+v", x, y)
	}
	for i, ga := range []*grid{a.primary, a.alt} {
		gb := []*grid{b.primary, b.alt}[i]
		if (ga == nil) != (gb == nil) {
			return "alternate grid allocated in one only"
		}
		if ga == nil {
			continue
		}
		if len(ga.ring) != len(gb.ring) || ga.history != gb.history {
			return fmt.Sprintf("grid %d: ring %d history %d vs ring %d history %d", i, len(ga.ring), ga.history, len(gb.ring), gb.history)
		}
		for y := -ga.history; y < ga.rows; y++ {
			la, lb := ga.line(y), gb.line(y)
			if !sameLine(la, lb) || la.wrapped != lb.wrapped {
				return fmt.Sprintf("grid %d line %d: %v %v vs %v %v", i, y, la.wrapped, la.cells(), lb.wrapped, lb.cells())
			}
		}
	}
	return ""
}

// screenState is the part of a Screen that is not in its grids.
type screenState struct {
	X, Y                     int
	PendingWrap, Joining     bool
	LastChar                 rune
	Parser                   byte
	CursorStyle              int
	Pen                      style
	PenIdx                   styleID
	EraseBG                  color
	EraseIdx                 styleID
	EraseValid               bool
	Top, Bottom              int
	Tabs                     []bool
	Charsets                 [4]byte
	GL, SingleShift          uint8
	Modes                    modeSet
	OnAlt                    bool
	Title, Cwd               string
	Saved                    [2]savedCursor
	Kitty                    [2]kittyFlags
	Styles                   []style
	Clusters, Links          []string
	PrimaryRing, PrimaryHist int
}

func stateOf(s *Screen) screenState {
	st := screenState{
		X: s.x, Y: s.y, PendingWrap: s.pendingWrap, Joining: s.joining, LastChar: s.lastChar,
		Parser: s.parserState(), CursorStyle: s.cursorStyle, Pen: s.pen, PenIdx: s.penIdx,
		EraseBG: s.eraseBG, EraseIdx: s.eraseIdx, EraseValid: s.eraseValid,
		Top: s.top, Bottom: s.bottom, Tabs: s.tabs, Charsets: s.charsets, GL: s.gl,
		SingleShift: s.singleShift, Modes: s.modes, OnAlt: s.onAlt, Title: s.title, Cwd: s.cwd,
		Styles: s.styles.list, Clusters: s.clusters.texts(), Links: s.links.texts(),
		PrimaryRing: len(s.primary.ring), PrimaryHist: s.primary.history,
	}
	st.Saved[0], st.Kitty[0] = s.primary.saved, s.primary.kitty
	if s.alt != nil {
		st.Saved[1], st.Kitty[1] = s.alt.saved, s.alt.kitty
	}
	return st
}

// firstDiff shows where two outputs part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-60, 0)
	return fmt.Sprintf("at byte %d of %d/%d:\n%q\nvs\n%q", i, len(a), len(b), a[from:min(i+60, len(a))], b[from:min(i+60, len(b))])
}

// batchProbe is output whose effect depends on the state a batch leaves:
// REP repeats the last character, a combining mark joins the cell before
// the cursor, CPR reports the cursor, text continues any pending wrap.
const batchProbe = "\x1b[2b\u0301\u200d\U0001F466\x1b[6nZZ\r\nnext\r\n"

// runSession feeds steps to a pair of screens and fails at the first step
// after which they differ. It returns how many bytes WriteBatch skipped.
func runSession(t testing.TB, cols, rows, capacity int, steps []batchStep) int {
	t.Helper()
	p := newBatchPair(cols, rows, capacity)
	for i, st := range steps {
		p.step(st)
		if d := p.diff(); d != "" {
			t.Fatalf("after step %d of %d (%s): %s", i, len(steps), describeStep(st), d)
		}
	}
	p.write([]byte(batchProbe))
	if d := p.diff(); d != "" {
		t.Fatalf("after the probe: %s", d)
	}
	return p.bat.skipped
}

func describeStep(st batchStep) string {
	if st.cols > 0 {
		return fmt.Sprintf("resize %dx%d", st.cols, st.rows)
	}
	var b strings.Builder
	for _, c := range st.chunks {
		fmt.Fprintf(&b, "%q ", c)
		if b.Len() > 4000 {
			b.WriteString("...")
			break
		}
	}
	return fmt.Sprintf("%d chunks %s", len(st.chunks), b.String())
}

// TestWriteBatchRandom compares WriteBatch with Write on random sessions.
func TestWriteBatchRandom(t *testing.T) {
	cases := []struct {
		name                 string
		cols, rows, capacity int
		sessions, size       int
	}{
		{"1x1 scrollback 1", 1, 1, 1, 200, 400},
		{"5x1 scrollback 3", 5, 1, 3, 200, 600},
		{"10x4 scrollback 5", 10, 4, 5, 200, 2000},
		{"7x3 scrollback 1", 7, 3, 1, 300, 1000},
		{"3x2 scrollback 2", 3, 2, 2, 500, 800},
		{"12x5 scrollback 8", 12, 5, 8, 150, 3000},
		{"20x6 scrollback 20", 20, 6, 20, 150, 5000},
		{"40x10 scrollback 50", 40, 10, 50, 12, 20000},
		{"80x24 scrollback 100", 80, 24, 100, 2, 60000},
	}
	// The race detector makes this single-goroutine comparison ten times
	// slower and finds nothing in it: a quarter of the sessions keeps the
	// package within go test's time limit on a loaded machine.
	div := 1
	switch {
	case testing.Short():
		div = 10
	case raceEnabled:
		div = 4
	}
	for i := range cases {
		cases[i].sessions = max(cases[i].sessions/div, 2)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			skipped := 0
			for seed := range tc.sessions {
				c := randChooser{rand.New(rand.NewPCG(uint64(seed), uint64(tc.cols)<<8|uint64(tc.rows)))}
				steps := genSession(c, tc.cols, tc.rows, tc.capacity, tc.size)
				t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
					skipped += runSession(t, tc.cols, tc.rows, tc.capacity, steps)
				})
			}
			if skipped == 0 {
				t.Errorf("no session skipped anything: the test does not exercise the skip")
			}
		})
	}
}

// batchLines is n plain lines, CR LF each.
func batchLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d xx\r\n", i)
	}
	return b.String()
}

// TestWriteBatchCases compares WriteBatch with Write on streams made to
// sit at the edges of the skip, each fed as one chunk, byte by byte, split
// in two at every offset, and in random chunks. The screen is 10x4 with 5
// lines of scrollback unless the case says otherwise, so a skip needs 12
// LFs after the cut (need).
func TestWriteBatchCases(t *testing.T) {
	const cols, rows, capacity = 10, 4, 5
	const need = 2*rows - 1 + capacity
	long := strings.Repeat("0123456789abcdefghij-", 2)
	cases := []struct {
		name     string
		setup    string // written with Write to both screens first
		in       string
		skip     bool // whether the unsplit batch skips
		capacity int  // when not 0
	}{
		{"exact threshold", "\x1b[H", "first\r\n" + batchLines(need), true, 0},
		{"one fewer LF", "\x1b[H", "first\r\n" + batchLines(need-1), false, 0},
		{"one more LF", "\x1b[H", "first\r\n" + batchLines(need+1), true, 0},
		{"threshold from the bottom row", "\x1b[4H", "first\r\n" + batchLines(need), true, 0},
		{"threshold with a full scrollback", batchLines(30), "first\r\n" + batchLines(need), true, 0},
		{"threshold, no text on the cut's line", "", "\r\n" + batchLines(need), true, 0},
		{"shortest run that holds a cut", "ab", "\a\r\n" + strings.Repeat("\n", need) + "\ay", true, 0},
		{"ends without a newline", "", batchLines(3*need) + "no newline", true, 0},
		{"ends in CR", "", batchLines(3*need) + "cr\r", true, 0},
		{"ends with a pending wrap", "", batchLines(3*need) + "0123456789", true, 0},
		{"LF only", "", strings.ReplaceAll(batchLines(3*need), "\r", ""), false, 0},
		{"LF only but the cut", "", "x\r\n" + strings.ReplaceAll(batchLines(need), "\r", ""), true, 0},
		{"long lines wrap", "", strings.Repeat(long+"\r\n", need+3), true, 0},
		{"long lines without autowrap", "\x1b[?7l", strings.Repeat(long+"\r\n", need+3), true, 0},
		{"tabs and backspaces", "\x1b[3g\x1b[5G\x1bH", strings.Repeat("a\tb\b\bc\t\t\r\n", need+3), true, 0},
		{"pending CSI before the text", "", "\x1b[3" + batchLines(2*need), true, 0},
		{"CSI before the text", "", "\x1b[1;4H" + batchLines(2*need), true, 0},
		{"pending OSC swallows the text", "", "\x1b]2;" + batchLines(3*need), false, 0},
		{"OSC ended before the text", "", "\x1b]2;" + batchLines(need) + "\a" + batchLines(need+2), true, 0},
		{"partial UTF-8 before the text", "", "\xe2\x82" + batchLines(2*need), true, 0},
		{"wide character before the text", "", "中" + batchLines(2*need), true, 0},
		{"SGR background before the text", "", "\x1b[44m" + batchLines(2*need), true, 0},
		{"SGR background set earlier", "\x1b[48;5;17mab", batchLines(2*need) + "\x1b[m", true, 0},
		{"hyperlink over the text", "", "\x1b]8;;http://x/\x1b\\" + batchLines(2*need) + "\x1b]8;;\x1b\\", true, 0},
		{"scroll region", "", "\x1b[2;3r" + batchLines(3*need), false, 0},
		{"scroll region reset", "\x1b[2;3r", "\x1b[r" + batchLines(3*need), true, 0},
		{"origin mode", "\x1b[?6h", batchLines(3 * need), true, 0},
		{"DEC graphics", "", "\x1b(0" + batchLines(3*need), false, 0},
		{"DEC graphics in G1, shifted out", "\x1b)0\x0e", batchLines(3 * need), false, 0},
		{"DEC graphics in G1, not shifted", "\x1b)0", batchLines(3 * need), true, 0},
		{"single shift", "\x1b*0", "\x1bN" + batchLines(3*need), false, 0},
		{"UK set", "\x1b(A", "#" + batchLines(3*need), false, 0},
		{"insert mode", "\x1b[4h", batchLines(3 * need), false, 0},
		{"newline mode", "\x1b[20h", batchLines(3 * need), true, 0},
		{"alternate screen", "\x1b[?1049h", batchLines(2 * rows), true, 0},
		{"alternate screen one fewer", "\x1b[?1049h", batchLines(2*rows - 1), false, 0},
		{"leaving the alternate screen", "\x1b[?1049h", "\x1b[?1049l" + batchLines(2*rows+3), false, 0},
		{"entering the alternate screen", "", "\x1b[?1049h" + batchLines(need+1) + "\x1b[?1049l", true, 0},
		{"REP after a skipped line", "Q", "X\r\n" + strings.Repeat("\r\n", need) + "\x1b[3b", true, 0},
		{"REP with nothing printed", "Q", strings.Repeat("\r\n", need+1) + "\x1b[3b", true, 0},
		{"REP after an SGR", "Q", "\x1b[1m" + strings.Repeat("\r\n", need+1) + "\x1b[3b", true, 0},
		{"combining mark after the text", "", batchLines(2*need) + "\u0301e\u0301", true, 0},
		{"ZWJ before the text", "👩\u200d", batchLines(2*need) + "👩", true, 0},
		{"queries around the text", "", "\x1b[6n" + batchLines(2*need) + "\x1b[6n\x1b[c", true, 0},
		{"scrollback erased", batchLines(20), "\x1b[3J" + batchLines(2*need), true, 0},
		{"after a reset", batchLines(20), "\x1bc" + batchLines(2*need), true, 0},
		{"saved cursor", "\x1b[2;3H\x1b7", batchLines(2*need) + "\x1b8x", true, 0},
		{"text after text", "", batchLines(3*need) + "\x1b[31m" + batchLines(need+1) + "\x1b[m" + batchLines(3), true, 0},
		{"default scrollback", "", batchLines(2100) + "tail", true, DefaultScrollback},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			capacity := capacity
			if tc.capacity != 0 {
				capacity = tc.capacity
			}
			in := []byte(tc.in)
			var chunkings [][][]byte
			chunkings = append(chunkings, [][]byte{in}, split(&byteChooser{[]byte{1}}, in))
			if len(in) < 3000 {
				for i := 1; i < len(in); i++ {
					chunkings = append(chunkings, [][]byte{in[:i], in[i:]})
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				chunkings = append(chunkings, split(randChooser{r}, in))
			}
			for i, chunks := range chunkings {
				p := newBatchPair(cols, rows, capacity)
				p.write([]byte(tc.setup))
				p.step(batchStep{chunks: chunks})
				if d := p.diff(); d != "" {
					t.Fatalf("chunking %d (%d chunks): %s", i, len(chunks), d)
				}
				if i == 0 && (p.bat.skipped > 0) != tc.skip {
					t.Fatalf("skipped %d bytes, want a skip: %v", p.bat.skipped, tc.skip)
				}
				p.write([]byte(batchProbe))
				if d := p.diff(); d != "" {
					t.Fatalf("chunking %d (%d chunks), after the probe: %s", i, len(chunks), d)
				}
			}
		})
	}
}

// TestWriteBatchFullStyleTable: when scrolling would intern a new erase
// style into a table due for compaction, the compaction that follows depends
// on the cells of the moment, so WriteBatch must not skip; once the style is
// in, it may.
func TestWriteBatchFullStyleTable(t *testing.T) {
	const cols, rows, capacity = 10, 4, 5
	const need = 2*rows - 1 + capacity
	p := newBatchPair(cols, rows, capacity)
	// Take the table to its due point, the last style being the pen's,
	// whose background is in no style of its own.
	var b []byte
	for i := range p.bat.styles.kept + p.bat.slack() - p.bat.styles.added - 1 {
		b = fmt.Appendf(b, "\x1b[38;2;%d;%d;%dmx", i>>16, i>>8&0xff, i&0xff)
	}
	b = append(b, "\x1b[0;31;45mx"...)
	p.write(b)
	if !p.bat.styles.due(p.bat.slack()) || p.bat.compactions != 0 {
		t.Fatalf("style table holds %d after %d compactions, want it due for its first", len(p.bat.styles.list), p.bat.compactions)
	}
	in := []byte(batchLines(3 * need))
	p.step(batchStep{chunks: [][]byte{in}})
	if d := p.diff(); d != "" {
		t.Fatal(d)
	}
	if p.bat.skipped != 0 {
		t.Fatalf("skipped %d bytes with a full style table", p.bat.skipped)
	}
	p.step(batchStep{chunks: [][]byte{[]byte(batchLines(3 * need))}})
	if d := p.diff(); d != "" {
		t.Fatal(d)
	}
	if p.bat.skipped == 0 {
		t.Fatal("did not skip once the erase style was in the table")
	}
}

// TestWriteBatchSkips checks how much WriteBatch skips: everything before
// the last CR LF that has need LFs after it in the same run of plain text.
func TestWriteBatchSkips(t *testing.T) {
	const cols, rows, capacity = 80, 24, 2000
	const need = 2*rows - 1 + capacity
	line := "%08d The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs\r\n"
	lineLen := len(fmt.Sprintf(line, 0))
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, line, i)
		}
		return b.String()
	}
	cases := []struct {
		name  string
		setup string
		in    string
		chunk int // chunk size, 0 for one chunk
		want  int
	}{
		{"all plain", "", lines(5000), 0, (5000 - need) * lineLen},
		{"all plain in 4 KiB chunks", "", lines(5000), 4096, (5000 - need) * lineLen},
		{"all plain in 7-byte chunks", "", lines(5000), 7, (5000 - need) * lineLen},
		{"below the threshold", "", lines(need), 0, 0},
		{"at the threshold", "", lines(need + 1), 0, lineLen},
		{"SGR before the text", "", "\x1b[1m" + lines(5000), 0, (5000 - need) * lineLen},
		{"text before an SGR", "", lines(5000) + "\x1b[1mbold\r\n", 0, (5000 - need) * lineLen},
		{"too little text after an SGR", "", lines(5000) + "\x1b[1m" + lines(need), 4096, (5000 - need) * lineLen},
		{"shortest run that holds a cut", "", "x\a\r\n" + strings.Repeat("\n", need) + "\ay", 0, 2},
		{"same in 7-byte chunks", "", "x\a\r\n" + strings.Repeat("\n", need) + "\ay", 7, 2},
		{"run one LF too short", "", "x\a\r\n" + strings.Repeat("\n", need-1) + "\ay", 0, 0},
		{"OSC swallows the text", "", "\x1b]2;" + lines(5000), 0, 0},
		{"scroll region", "\x1b[1;10r", lines(5000), 0, 0},
		{"alternate screen", "\x1b[?1049h", lines(100), 0, (100 - (2*rows - 1)) * lineLen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(cols, rows, capacity)
			s.Write([]byte(tc.setup))
			in := []byte(tc.in)
			chunks := [][]byte{in}
			if tc.chunk > 0 {
				chunks = chunks[:0]
				for len(in) > 0 {
					n := min(tc.chunk, len(in))
					chunks = append(chunks, in[:n])
					in = in[n:]
				}
			}
			s.WriteBatch(chunks)
			if s.skipped != tc.want {
				t.Fatalf("skipped %d bytes, want %d", s.skipped, tc.want)
			}
		})
	}
}

func FuzzWriteBatch(f *testing.F) {
	f.Add([]byte{10, 4, 5, 0, 0, 0, 16, 3, 5, 1, 11, 2})
	f.Add([]byte{40, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	f.Add([]byte{1, 1, 1, 0, 0, 0, 0, 18, 0})
	f.Add([]byte(strings.Repeat("\x00\x02\x05\x0b\x01\x07", 20)))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &byteChooser{in}
		cols, rows, capacity := 1+c.intn(40), 1+c.intn(10), 1+c.intn(30)
		steps := genSession(c, cols, rows, capacity, 4000)
		runSession(t, cols, rows, capacity, steps)
	})
}

// TestPrintableEnd compares the word-at-a-time count with a bytewise one:
// every byte value at every place among printable neighbours of every
// value, and random words.
func TestPrintableEnd(t *testing.T) {
	want := func(p []byte) int {
		if len(p) < 8 {
			return 0
		}
		n := 0
		for i := len(p) - 1; i >= len(p)-8 && p[i] >= 0x20 && p[i] < 0x7f; i-- {
			n++
		}
		return n
	}
	check := func(p []byte) {
		if got, w := printableEnd(p), want(p); got != w {
			t.Fatalf("printableEnd(%q) = %d, want %d", p, got, w)
		}
	}
	for _, fill := range []byte{' ', '!', 'a', '~'} {
		for v := range 256 {
			for k := range 9 {
				p := bytes.Repeat([]byte{fill}, 9)
				p[k] = byte(v)
				check(p)
				check(p[:8])
				check(p[:7])
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	p := make([]byte, 8)
	for range 100000 {
		for i := range p {
			p[i] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				p[i] = byte(0x1e + r.IntN(4))
			} else if r.IntN(2) == 0 {
				p[i] = byte(0x7d + r.IntN(4))
			}
		}
		check(p)
	}
}

// TestWriteBatchAllocs: once the scrollback is full, a batch allocates
// nothing, skip or not.
func TestWriteBatchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	plain := []byte(batchLines(5000))
	colour := []byte(strings.Repeat("\x1b[31mred\x1b[m plain\r\n", 500))
	for _, tc := range []struct {
		name  string
		batch [][]byte
	}{
		{"plain", [][]byte{plain[:4096], plain[4096:]}},
		{"colour", [][]byte{colour[:4096], colour[4096:]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(80, 24, 100)
			s.WriteBatch(tc.batch)
			if n := testing.AllocsPerRun(20, func() { s.WriteBatch(tc.batch) }); n != 0 {
				t.Fatalf("%v allocations per batch", n)
			}
		})
	}
}

// BenchmarkWriteBatch feeds 32 MiB of 80-column lines as a PTY delivers
// them, 4 KiB a read, 256 reads a batch, to an 80x24 screen with 2,000
// lines of scrollback, with WriteBatch and with Write.
func BenchmarkWriteBatch(b *testing.B) {
	var in []byte
	for i := 0; len(in) < 32<<20; i++ {
		in = fmt.Appendf(in, "%08d The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs\r\n", i)
	}
	in = in[:32<<20]
	var chunks [][]byte
	for p := in; len(p) > 0; p = p[min(4096, len(p)):] {
		chunks = append(chunks, p[:min(4096, len(p))])
	}
	var batches [][][]byte
	for c := chunks; len(c) > 0; c = c[min(256, len(c)):] {
		batches = append(batches, c[:min(256, len(c))])
	}
	b.Run("WriteBatch", func(b *testing.B) {
		s := New(80, 24, 2000)
		for _, batch := range batches {
			s.WriteBatch(batch)
		}
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			for _, batch := range batches {
				s.WriteBatch(batch)
			}
		}
	})
	b.Run("Write", func(b *testing.B) { benchWriteChunks(b, chunks, len(in)) })
}

// BenchmarkWriteBatchColour is the cost of looking for a run to skip where
// there is none: SGR-heavy output in 4 KiB chunks, 256 a batch.
func BenchmarkWriteBatchColour(b *testing.B) {
	in := colourText()
	var chunks [][]byte
	for p := in; len(p) > 0; p = p[min(4096, len(p)):] {
		chunks = append(chunks, p[:min(4096, len(p))])
	}
	b.Run("WriteBatch", func(b *testing.B) {
		s := New(80, 24, 2000)
		s.WriteBatch(chunks)
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s.WriteBatch(chunks)
		}
	})
	b.Run("Write", func(b *testing.B) { benchWriteChunks(b, chunks, len(in)) })
}

// benchWriteChunks is the baseline of the WriteBatch benchmarks: the same chunks
// through Write, one at a time, on a screen that has seen them once.
func benchWriteChunks(b *testing.B, chunks [][]byte, size int) {
	s := New(80, 24, 2000)
	for _, c := range chunks {
		s.Write(c)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range chunks {
			s.Write(c)
		}
	}
}

// In insert mode a character shifts its row, dropping the last cell,
// before the pen is interned; if that interning compacts the tables, the
// dropped cell's style goes. WriteBatch interned the pen before the run
// began, while the cell was still there, and kept one style more.
func TestWriteBatchInsertModeKeepsTheSameStyles(t *testing.T) {
	for _, insert := range []bool{false, true} {
		fresh := func() *Screen {
			s := New(5, 2, 1)
			// A style only the last column of row 0 holds.
			s.Write([]byte("\x1b[1;5H\x1b[38;2;9;9;9mX\x1b[m"))
			// Styles no cell keeps, until the next new one compacts.
			for i := 0; !s.styles.due(s.slack()); i++ {
				fmt.Fprintf(s, "\x1b[2;1H\x1b[38;2;%d;%d;100my", i&255, i>>8&255)
			}
			s.Write([]byte("\x1b[m\x1b[1;1H"))
			return s
		}
		a, b := fresh(), fresh()
		mode := "\x1b[4l"
		if insert {
			mode = "\x1b[4h"
		}
		batch := []byte(mode + "\x1b[48;5;77m\x0f" + "a\r\n\n\n\n\n\n")
		a.Write(batch)
		b.WriteBatch([][]byte{batch})
		sa, sb := stateOf(a), stateOf(b)
		if !reflect.DeepEqual(sa.Styles, sb.Styles) || sa.PenIdx != sb.PenIdx {
			t.Errorf("insert mode %v: Write holds %d styles (pen %d), WriteBatch %d (pen %d)", insert, len(sa.Styles), sa.PenIdx, len(sb.Styles), sb.PenIdx)
		}
	}
}
