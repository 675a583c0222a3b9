package attach

import (
	"bytes"
	"fmt"
)

// termState follows the modes a session turns on in the client's terminal,
// so that whatever way the client leaves (detach, exit, kill, a lost server,
// a signal) it can put back everything that differs from a terminal's
// power-on state, and nothing more: a session that changed nothing gets
// nothing added.
//
// It reads only the sequences that change lasting state (modes, the scroll
// region, character sets, cursor style, keyboard protocols, SGR, colours,
// the title) with a scanner that skips text with IndexByte, because it sees
// every byte of output on the client's hot path. A sequence split across
// writes is carried over. A C0 control inside a sequence is executed by
// terminals and the sequence goes on (CSI 2 BS C is BS then CSI 2 C), so it
// is skipped here too, never taken for the end of the sequence.
type termState struct {
	modes    uint64      // bit i: tracked[i] is away from its power-on value (tracked has at most 64)
	kitty    int         // kitty keyboard flags pushed (approximate depth)
	kittySet bool        // kitty flags set without a push
	keypad   bool        // DECKPAM (ESC =)
	otherKey bool        // modifyOtherKeys (CSI > 4 ; n m) on
	sgrDirty bool        // attributes other than the default are in effect
	region   bool        // a scroll region (DECSTBM) narrower than the screen
	cursor   bool        // a cursor style (DECSCUSR) other than the default
	charsets [4]bool     // G0-G3 designated something other than ASCII
	shift    byte        // the G set shifted into GL: 0 at power-on, 1 after SO, 2 and 3 after LS2 and LS3
	colours  uint16      // colours changed: bit 0 the palette (OSC 4), bit 1 OSC 5, bits 2-11 OSC 10-19
	saved    savedCursor // what DECSC saved

	// The title: the client pushes the terminal's own title (CSI 22;0t)
	// before the session first changes it, and pops back to it on leaving.
	// Pushing lazily keeps a session that never touches the title free of
	// added bytes.
	titlePushed bool   // our push is on the terminal's title stack
	needPush    bool   // push before writing the output just observed
	titleStack  int    // titles the session pushed and did not pop
	pushTail    []byte // an ESC the terminal holds from the previous write

	carry []byte // an unfinished escape sequence from the previous write
}

// savedCursor is what DECSC (ESC 7) saves and DECRC (ESC 8) restores,
// of what termState follows: the pen and the character sets.
type savedCursor struct {
	sgrDirty bool
	charsets [4]bool
	shift    byte
}

// maxCarry bounds a carried sequence; longer ones are not ours to track.
const maxCarry = 64

// maxTitleStack is xterm's title stack depth; pushes past it are lost.
const maxTitleStack = 10

const (
	esc = 0x1b
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	so  = 0x0e // shift out: G1 into GL
	si  = 0x0f // shift in: G0 into GL
)

// trackedMode is a mode set with SM/RM (CSI h/l) or DECSET/DECRST
// (CSI ? h/l) whose power-on value is known.
type trackedMode struct {
	n       int
	private bool
	on      bool // the power-on value
}

// tracked lists the modes put back on leaving, in the order they are put
// back: the alternate screens first, so that the rest applies to the screen
// the user returns to. The mouse modes include X10 (9), highlight (1001)
// and every encoding; then focus, bracketed paste, alternate scroll (1007),
// cursor keys (1), keypad (66), origin (6), reverse video (5), cursor blink
// (12), reverse wraparound (45), left/right margins (69), synchronized
// output (2026), autowrap (7, on at power-on), cursor visible (25, on), and
// the ANSI modes KAM (2), IRM (4) and LNM (20).
var tracked = []trackedMode{
	{1049, true, false}, {1047, true, false}, {47, true, false},
	{9, true, false}, {1000, true, false}, {1001, true, false}, {1002, true, false}, {1003, true, false},
	{1005, true, false}, {1006, true, false}, {1015, true, false}, {1016, true, false},
	{1004, true, false}, {2004, true, false}, {1007, true, false},
	{1, true, false}, {66, true, false}, {6, true, false}, {5, true, false}, {12, true, false},
	{45, true, false}, {69, true, false}, {2026, true, false},
	{7, true, true}, {25, true, true},
	{2, false, false}, {4, false, false}, {20, false, false},
}

// altScreens is how many entries at the start of tracked are alternate
// screens.
const altScreens = 3

func newTermState() *termState { return &termState{} }

// lowModes indexes tracked by mode number below 128 ([0] ANSI, [1] DEC
// private; -1: not tracked), because setMode runs for every DECSET a
// program sends. The few modes above are found by a scan.
var lowModes = func() (t [2][128]int8) {
	for i := range t[0] {
		t[0][i], t[1][i] = -1, -1
	}
	for i, m := range tracked {
		if m.n < 128 {
			t[b2i(m.private)][m.n] = int8(i)
		}
	}
	return t
}()

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setMode records SM/RM or DECSET/DECRST of mode n.
func (s *termState) setMode(n int, private, on bool) {
	i := -1
	if n < 128 {
		i = int(lowModes[b2i(private)][n])
	} else {
		for j, m := range tracked {
			if m.n == n && m.private == private {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return
	}
	if on != tracked[i].on {
		s.modes |= 1 << i
	} else {
		s.modes &^= 1 << i
	}
}

// observe scans output about to be written to the terminal.
func (s *termState) observe(b []byte) {
	s.pushTail = s.pushTail[:0]
	if len(s.carry) > 0 && loneESC(s.carry) {
		s.pushTail = append(s.pushTail, s.carry...)
	}
	s.shifts(b)
	s.sequences(b)
	if len(s.carry) > 0 && !s.titlePushed && oscMayBeTitle(s.carry) {
		// The output written now ends inside what may become a title
		// change: the push cannot go in the middle of it later. (It may
		// turn out to be another OSC: a push and a pop are then added.)
		s.needPush = true
	}
}

// titlePush returns the push of the terminal's title, once, when the output
// just observed changes the title: it is written before that output. When
// the terminal was left holding an ESC from the previous write, the push
// cuts it short (ESC ESC starts afresh), so the push sends it again.
func (s *termState) titlePush() []byte {
	if !s.needPush {
		return nil
	}
	s.needPush, s.titlePushed = false, true
	return append([]byte("\x1b[22;0t"), s.pushTail...)
}

// shifts follows SO and SI, which are single bytes outside any escape
// sequence. Output rarely has either, so one IndexByte pass decides. They
// are taken before the write's escape sequences, so a locking shift
// (ESC n, ESC o) or a DECRC in the same write counts as later than any SO
// or SI there; programs do not mix them.
func (s *termState) shifts(b []byte) {
	want := byte(so)
	if s.shift != 0 {
		want = si
	}
	i := bytes.IndexByte(b, want)
	if i < 0 {
		return
	}
	for j := len(b) - 1; j >= i; j-- {
		switch b[j] {
		case so:
			s.shift = 1
			return
		case si:
			s.shift = 0
			return
		}
	}
}

func (s *termState) sequences(b []byte) {
	if held := len(s.carry); held > 0 {
		take := min(len(b), maxCarry)
		joined := append(s.carry, b[:take]...)
		n := s.sequence(joined)
		s.carry = s.carry[:0]
		switch {
		case n < 0 && take == len(b) && len(joined) < maxCarry:
			s.carry = joined // still unfinished
			return
		case n > held:
			b = b[n-held:]
		}
	}
	for {
		i := bytes.IndexByte(b, esc)
		if i < 0 {
			return
		}
		b = b[i:]
		n := s.sequence(b)
		if n < 0 {
			if len(b) < maxCarry {
				s.carry = append(s.carry[:0], b...)
			}
			return
		}
		b = b[max(n, 1):]
	}
}

// skipC0 returns the index of the first byte at or after j that is not a C0
// control a terminal executes in the middle of a sequence and carries on.
func skipC0(b []byte, j int) int {
	for j < len(b) && b[j] < 0x20 && b[j] != esc && b[j] != can && b[j] != sub {
		j++
	}
	return j
}

// sequence reads one escape sequence at the start of b and returns its
// length, 0 if it is not one we follow, or -1 if b ends inside it.
func (s *termState) sequence(b []byte) int {
	if len(b) > 1 && b[1] == '[' { // the common case first
		return s.csi(b, 2)
	}
	j := skipC0(b, 1)
	if j == len(b) {
		return -1
	}
	switch c := b[j]; {
	case c == '[':
		return s.csi(b, j+1)
	case c == ']':
		return s.osc(b, j+1)
	case c == '=':
		s.keypad = true
	case c == '>':
		s.keypad = false
	case c == '7':
		s.saved = savedCursor{s.sgrDirty, s.charsets, s.shift}
	case c == '8':
		s.sgrDirty, s.charsets, s.shift = s.saved.sgrDirty, s.saved.charsets, s.saved.shift
	case c == 'n':
		s.shift = 2
	case c == 'o':
		s.shift = 3
	case c == 'c': // RIS: the terminal resets its modes; the title and colours are put back regardless
		*s = termState{colours: s.colours, titlePushed: s.titlePushed, needPush: s.needPush, pushTail: s.pushTail, titleStack: s.titleStack, carry: s.carry}
	case c >= '(' && c <= '/' && c != ',':
		return s.designate(b, j)
	case c == esc:
		return j
	case c == can || c == sub:
		return j + 1
	default:
		return 0
	}
	return j + 1
}

// designate reads a character set designation, ESC I F with I one of
// ( ) * + (94-character sets into G0-G3) or - . / (96-character sets into
// G1-G3), F possibly after a further intermediate (ESC ( % 5).
func (s *termState) designate(b []byte, j int) int {
	g := int(b[j] - '(')
	if g > 3 {
		g -= 4 // - . / are G1-G3
	}
	ascii := b[j] <= '+'
	extra := false
	for j = skipC0(b, j+1); j < len(b); j = skipC0(b, j+1) {
		switch c := b[j]; {
		case c >= 0x20 && c <= 0x2f:
			extra = true
		case c >= 0x30 && c <= 0x7e:
			s.charsets[g] = !(ascii && !extra && c == 'B')
			return j + 1
		case c == can || c == sub:
			return j + 1
		default:
			return j
		}
	}
	return -1
}

// csi reads a control sequence whose parameters start at b[j]: parameter
// bytes, intermediate bytes, then a final byte in 0x40-0x7e.
func (s *termState) csi(b []byte, j int) int {
	start, c0 := j, false
	for ; j < len(b); j++ {
		for j < len(b) && b[j]-0x20 < 0x20 { // parameter and intermediate bytes
			j++
		}
		if j == len(b) {
			break
		}
		c := b[j]
		switch {
		case c >= 0x40 && c <= 0x7e:
			if c0 {
				s.dispatchC0(b[start:j], c)
			} else {
				s.dispatch(b[start:j], c)
			}
			return j + 1
		case c == esc:
			return j // a new sequence cuts this one short
		case c == can || c == sub:
			return j + 1
		case c < 0x20, c == 0x7f:
			c0 = true // executed (DEL ignored), and the sequence goes on
		default:
			return j
		}
	}
	return -1
}

// dispatchC0 is dispatch for a CSI with controls among its bytes: they
// were executed, and are not part of it.
func (s *termState) dispatchC0(raw []byte, final byte) {
	var buf [maxCarry]byte
	seq := buf[:0]
	for _, x := range raw {
		if x >= 0x20 && x != 0x7f && len(seq) < len(buf) {
			seq = append(seq, x)
		}
	}
	s.dispatch(seq, final)
}

// dispatch acts on a complete CSI: seq is its parameter and intermediate
// bytes, final its final byte.
func (s *termState) dispatch(seq []byte, final byte) {
	switch final {
	case 'm':
		if len(seq) == 0 || seq[0] >= '0' && seq[0] <= ';' && seq[len(seq)-1] >= '0' {
			// SGR, the most common sequence by far: the fast way.
			s.sgrDirty = !(len(seq) == 0 || len(seq) == 1 && seq[0] == '0')
			return
		}
	case 'h', 'l', 'u', 'r', 'q', 't':
	default:
		return // moves, erases and the rest change nothing lasting
	}
	var prefix byte
	if len(seq) > 0 && seq[0] >= '<' && seq[0] <= '?' {
		prefix, seq = seq[0], seq[1:]
	}
	params := seq
	var inter byte
	for i, c := range seq {
		if c < 0x30 {
			params, inter = seq[:i], seq[len(seq)-1]
			break
		}
	}
	first := 0
	if final != 'h' && final != 'l' {
		first, _ = param(params, 0)
	}
	switch {
	case inter == ' ' && final == 'q' && prefix == 0: // DECSCUSR
		s.cursor = first != 0
	case inter != 0:
	case (final == 'h' || final == 'l') && (prefix == '?' || prefix == 0):
		for p := params; ; {
			n, rest := param(p, -1)
			if n >= 0 {
				s.setMode(n, prefix == '?', final == 'h')
			}
			if rest == nil {
				break
			}
			p = rest
		}
	case final == 'u' && prefix == '>':
		s.kitty++
	case final == 'u' && prefix == '<':
		s.kitty = max(s.kitty-max(first, 1), 0)
	case final == 'u' && prefix == '=':
		s.kittySet = first != 0
	case final == 'm' && prefix == '>': // XTMODKEYS: resource;value, no parameters resets all
		if len(params) == 0 {
			s.otherKey = false
		} else if first == 4 {
			_, rest := param(params, 0)
			v, _ := param(rest, 0)
			s.otherKey = v > 0
		}
	case final == 'm' && prefix == 0:
		s.sgrDirty = !(len(params) == 0 || bytes.Equal(params, []byte("0")))
	case final == 'r' && prefix == 0: // DECSTBM
		top, rest := param(params, 0)
		bottom, _ := param(rest, 0)
		s.region = top > 1 || bottom > 0
	case final == 't' && prefix == 0: // the title stack
		switch first {
		case 22:
			s.titleStack = min(s.titleStack+1, maxTitleStack)
		case 23:
			if s.titleStack > 0 {
				s.titleStack--
			} else if s.titlePushed {
				s.titlePushed = false // the session popped ours: the title is back
			}
		}
	}
}

// param reads the first ';'-separated parameter of p: its value (def when
// empty, -1 when not a number) and the rest after the ';' (nil if none).
func param(p []byte, def int) (int, []byte) {
	n, digits := 0, 0
	for i, c := range p {
		switch {
		case c == ';':
			if digits == 0 {
				return def, p[i+1:]
			}
			return n, p[i+1:]
		case c >= '0' && c <= '9' && n <= 1<<20:
			n, digits = n*10+int(c-'0'), digits+1
		default:
			n, digits = -1, 1
			for i < len(p) && p[i] != ';' {
				i++
			}
			if i < len(p) {
				return -1, p[i+1:]
			}
			return -1, nil
		}
	}
	if digits == 0 {
		return def, nil
	}
	return n, nil
}

// osc reads an operating system command whose number starts at b[j], far
// enough to know whether it changes the title or a colour; the rest of its
// body is text to the caller.
func (s *termState) osc(b []byte, j int) int {
	n, digits := 0, 0
	for ; j < len(b) && b[j] >= '0' && b[j] <= '9' && digits < 4; j++ {
		n, digits = n*10+int(b[j]-'0'), digits+1
	}
	if j == len(b) {
		return -1
	}
	if digits == 0 {
		return j
	}
	if b[j] != ';' {
		if b[j] == 0x07 || b[j] == esc { // a reset with no parameters
			switch {
			case n == 104:
				s.colours &^= 1
			case n == 105:
				s.colours &^= 2
			case n >= 110 && n <= 119:
				s.colours &^= 1 << (n - 110 + 2)
			}
		}
		return j
	}
	j++
	switch {
	case n <= 2: // icon name and window title
		if !s.titlePushed {
			s.needPush = true
		}
		return j
	case n == 4 || n == 5: // palette: index;spec pairs, spec "?" a query
		k := bytes.IndexByte(b[j:], ';')
		if k < 0 {
			return -1
		}
		k += j + 1
		if k == len(b) {
			return -1
		}
		if b[k] != '?' {
			s.colours |= 1 << (n - 4)
		}
		return k
	case n >= 10 && n <= 19: // dynamic colours: each value sets the next
		for i := n; i <= 19; i++ {
			if j == len(b) {
				return -1
			}
			if b[j] == 0x07 || b[j] == esc {
				break
			}
			if b[j] != '?' {
				s.colours |= 1 << (i - 10 + 2)
			}
			k := bytes.IndexAny(b[j:], ";\a\x1b")
			if k < 0 {
				return -1 // the next value may follow in the next write
			}
			j += k
			if b[j] != ';' {
				break
			}
			j++
		}
		return j
	}
	return j
}

// loneESC reports whether an unfinished sequence is an ESC and nothing
// but C0 controls.
func loneESC(b []byte) bool { return len(b) > 0 && skipC0(b, 1) == len(b) }

// oscMayBeTitle reports whether an unfinished sequence is an OSC that could
// still turn out to change the title: its number is 0, 1 or 2 so far.
func oscMayBeTitle(b []byte) bool {
	j := skipC0(b, 1)
	if j >= len(b) || b[j] != ']' {
		return false
	}
	num := b[j+1:]
	return len(num) == 0 || len(num) == 1 && num[0] >= '0' && num[0] <= '2'
}

// reset returns what puts back everything the session changed; nothing if
// it left the terminal as it was.
func (s *termState) reset() []byte {
	var out []byte
	modes := func(from, to int) {
		for i := from; i < to; i++ {
			if s.modes&(1<<i) == 0 {
				continue
			}
			m, set := tracked[i], byte('l')
			if m.on {
				set = 'h'
			}
			if m.private {
				out = fmt.Appendf(out, "\x1b[?%d%c", m.n, set)
			} else {
				out = fmt.Appendf(out, "\x1b[%d%c", m.n, set)
			}
		}
	}
	modes(0, altScreens)
	if s.region {
		// DECSTBM homes the cursor: save and restore it around the reset.
		out = append(out, "\x1b7\x1b[r\x1b8"...)
	}
	modes(altScreens, len(tracked))
	if s.kitty > 0 {
		out = fmt.Appendf(out, "\x1b[<%du", s.kitty)
	}
	if s.kittySet {
		out = append(out, "\x1b[=0;1u"...)
	}
	if s.otherKey {
		out = append(out, "\x1b[>4m"...)
	}
	if s.keypad {
		out = append(out, "\x1b>"...)
	}
	if s.cursor {
		out = append(out, "\x1b[0 q"...)
	}
	for g, designated := range s.charsets {
		if designated {
			out = append(out, esc, "()*+"[g], 'B')
		}
	}
	if s.shift != 0 {
		out = append(out, si)
	}
	if s.colours&1 != 0 {
		out = append(out, "\x1b]104\x1b\\"...)
	}
	if s.colours&2 != 0 {
		out = append(out, "\x1b]105\x1b\\"...)
	}
	for i := range 10 {
		if s.colours&(1<<(i+2)) != 0 {
			out = fmt.Appendf(out, "\x1b]%d\x1b\\", 110+i)
		}
	}
	pops := s.titleStack
	if s.titlePushed {
		pops++
	}
	for range pops {
		out = append(out, "\x1b[23;0t"...)
	}
	if s.sgrDirty {
		out = append(out, "\x1b[0m"...)
	}
	return out
}
