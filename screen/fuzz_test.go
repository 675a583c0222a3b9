package screen

import (
	"fmt"
	"strings"
	"testing"
)

// fuzzAction is one step of a generated session: bytes to write, or a
// resize when cols > 0.
type fuzzAction struct {
	data       []byte
	cols, rows int
}

// program turns fuzzer bytes into plausible terminal output: mostly well
// formed sequences from every family, with raw bytes mixed in, written in
// pieces, and the odd resize.
type program struct {
	in []byte
}

func (p *program) next() byte {
	if len(p.in) == 0 {
		return 0
	}
	b := p.in[0]
	p.in = p.in[1:]
	return b
}

func (p *program) num(n int) int { return int(p.next()) % n }

var (
	fuzzWide      = []string{"中", "文", "👍", "한", "ｱ", "🎉"}
	fuzzCombining = []string{"\u0301", "\u0308", "\u200d", "\ufe0f", "\u0323"}
	fuzzControls  = []string{"\r", "\n", "\b", "\t", "\v", "\f", "\x0e", "\x0f", "\a", "\r\n"}
	fuzzCSIFinals = "@ABCDEFGHIJKLMPSTXZ`abdefgrsu"
	fuzzDECModes  = []int{1, 5, 6, 7, 9, 12, 25, 47, 66, 1000, 1002, 1003, 1004, 1006, 1047, 1048, 1049, 2004}
	fuzzESC       = []string{"7", "8", "D", "E", "H", "M", "=", ">", "c", "(0", "(B", ")0", "*A", "n", "o", "N", "O", "#8"}
	fuzzSGR       = []string{"0", "1", "2", "3", "4", "4:3", "5", "7", "8", "9", "21", "22", "24", "27", "31", "42", "93", "104", "39", "49", "53", "38;5;200", "48;2;1;2;3", "38:2::9:8:7", "58;5;1", ""}
)

func (p *program) actions() []fuzzAction {
	var out []fuzzAction
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, fuzzAction{data: []byte(b.String())})
			b.Reset()
		}
	}
	for len(p.in) > 0 {
		switch p.num(16) {
		case 0, 1:
			n := p.num(40)
			for i := range n {
				b.WriteByte(byte('a' + (i+n)%26))
			}
		case 2:
			b.WriteString(fuzzWide[p.num(len(fuzzWide))])
		case 3:
			b.WriteString(fuzzCombining[p.num(len(fuzzCombining))])
		case 4:
			b.WriteString(fuzzControls[p.num(len(fuzzControls))])
		case 5:
			fmt.Fprintf(&b, "\x1b[%d;%d%c", p.num(30), p.num(90), fuzzCSIFinals[p.num(len(fuzzCSIFinals))])
		case 6:
			fmt.Fprintf(&b, "\x1b[%c%c", '1'+p.num(9), fuzzCSIFinals[p.num(len(fuzzCSIFinals))])
		case 7:
			fmt.Fprintf(&b, "\x1b[%sm", fuzzSGR[p.num(len(fuzzSGR))])
		case 8:
			fmt.Fprintf(&b, "\x1b[?%d%c", fuzzDECModes[p.num(len(fuzzDECModes))], "hl"[p.num(2)])
		case 9:
			b.WriteString("\x1b" + fuzzESC[p.num(len(fuzzESC))])
		case 10:
			switch p.num(5) {
			case 0:
				fmt.Fprintf(&b, "\x1b]2;title %d\x07", p.num(10))
			case 1:
				fmt.Fprintf(&b, "\x1b]8;;http://x/%d\x1b\\", p.num(4))
			case 2:
				b.WriteString("\x1b]8;;\x1b\\")
			case 3:
				fmt.Fprintf(&b, "\x1b[%d q", p.num(7))
			case 4:
				fmt.Fprintf(&b, "\x1b[%c%du", "<>="[p.num(3)], p.num(32))
			}
		case 11:
			fmt.Fprintf(&b, "\x1b[%d;%dr", p.num(12), p.num(14))
		case 12:
			fmt.Fprintf(&b, "\x1b[%d%c", p.num(5), "hl"[p.num(2)]) // ANSI modes (4 is IRM)
		case 13:
			b.WriteByte(p.next()) // raw byte, anything
		case 14:
			flush() // a Write boundary, possibly inside the next sequence
		case 15:
			if p.num(4) == 0 {
				flush()
				out = append(out, fuzzAction{cols: 1 + p.num(40), rows: 1 + p.num(14)})
			}
		}
	}
	flush()
	return out
}

// checkInvariants fails when the screen's structure is broken.
func checkInvariants(t *testing.T, s *Screen, maxHistory int) {
	t.Helper()
	if s.x < 0 || s.x >= s.cols || s.y < 0 || s.y >= s.rows {
		t.Fatalf("cursor %d,%d outside %dx%d", s.x, s.y, s.cols, s.rows)
	}
	if s.top < 0 || s.bottom > s.rows || s.top >= s.bottom {
		t.Fatalf("scroll region %d-%d in %d rows", s.top, s.bottom, s.rows)
	}
	for _, g := range []*grid{s.primary, s.alt} {
		if g == nil {
			continue
		}
		if g.history > maxHistory || len(g.ring) > g.rows+maxHistory {
			t.Fatalf("scrollback %d lines in a ring of %d, limit %d", g.history, len(g.ring), maxHistory)
		}
		for y := range s.rows {
			cells := g.line(y).cells()
			if len(cells) > s.cols {
				t.Fatalf("row %d holds %d cells, screen %d wide", y, len(cells), s.cols)
			}
			for x, c := range cells {
				if c.flags&cellWide != 0 && (x+1 >= len(cells) || cells[x+1].flags&cellWideTail == 0) {
					t.Fatalf("row %d: wide character at %d without its second half", y, x)
				}
				if c.flags&cellWideTail != 0 && (x == 0 || cells[x-1].flags&cellWide == 0) {
					t.Fatalf("row %d: second half at %d without its character", y, x)
				}
			}
		}
	}
	if len(s.styles.list) > maxStyles || s.clusters.len() > maxClusters {
		t.Fatalf("tables overflow: %d styles, %d clusters", len(s.styles.list), s.clusters.len())
	}
}

func FuzzScreen(f *testing.F) {
	for _, tc := range restoreStreams {
		f.Add([]byte(tc.in))
	}
	for _, tc := range synthetic {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte{0, 5, 2, 7, 8, 15, 0, 3, 4, 1, 9, 10, 11, 12, 13, 14, 6, 6, 2, 2, 3})
	f.Add([]byte(strings.Repeat("\x08\x01\x02\x00\x1f\x05\x07\x0f", 20)))
	f.Fuzz(func(t *testing.T, in []byte) {
		const maxHistory = 20
		cols, rows := 20, 6
		if len(in) > 2 {
			cols, rows = 1+int(in[0])%40, 1+int(in[1])%14
		}
		p := &program{in: in}
		s := New(cols, rows, maxHistory)
		var replies int
		s.SetReply(func([]byte) { replies++ })
		for _, a := range p.actions() {
			if a.cols > 0 {
				s.Resize(a.cols, a.rows)
			} else {
				s.Write(a.data)
			}
			checkInvariants(t, s, maxHistory)
		}
		// The raw input, as bytes, must not break anything either.
		s.Write(in)
		checkInvariants(t, s, maxHistory)

		// A restore reproduces the screen and the scrollback, resized or
		// not: a resize reflows the scrollback to the new width.
		restore := s.AppendRestore(nil)
		r := New(s.cols, s.rows, maxHistory)
		r.SetReply(func(b []byte) { t.Fatalf("restore made the screen reply %q", b) })
		r.Write(restore)
		if s.modes.has(modeOrigin) && (s.y < s.top || s.y >= s.bottom) {
			// The one state a restore cannot reproduce (see AppendRestore).
			r.x, r.y, r.pendingWrap = s.x, s.y, s.pendingWrap
		}
		if d := diffModels(s, r, true); len(d) > 0 {
			t.Fatalf("restore differs:\n%s\nrestore %q", joinDiffs(d), restore)
		}
	})
}
