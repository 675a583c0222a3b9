package attach

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// termState follows the modes a session turns on in the client's terminal,
// so that whatever way the client leaves (detach, exit, kill, a lost server,
// a signal) it can turn them off again and leave the terminal as it found
// it: out of the alternate screen, mouse, focus, bracketed-paste and kitty
// keyboard reporting off, cursor visible, attributes reset.
//
// It reads only what it needs (CSI ? h/l, kitty keyboard CSI >/</= u,
// modifyOtherKeys CSI > 4 m, SGR, DECKPAM) with a scanner that skips text
// with IndexByte, because it sees every byte of output on the client's hot
// path. A sequence split across writes is carried over.
type termState struct {
	private  map[int]bool // DEC private modes set by the session and not reset
	kitty    int          // kitty keyboard flags pushed (approximate depth)
	kittySet bool         // kitty flags set without a push
	keypad   bool         // DECKPAM (ESC =)
	otherKey bool         // modifyOtherKeys (CSI > 4 ; n m)
	sgrDirty bool         // attributes other than the default are in effect
	hidden   bool         // cursor hidden (?25l)

	carry []byte // an unfinished escape sequence from the previous write
}

// maxCarry bounds a carried sequence; longer ones are not ours to track.
const maxCarry = 64

// resettable DEC private modes: the alternate screens, mouse reporting and
// its encodings, focus events, bracketed paste, cursor keys, origin mode.
var resettable = []int{1049, 1047, 47, 1000, 1002, 1003, 1005, 1006, 1015, 1016, 1004, 2004, 1, 6}

func newTermState() *termState { return &termState{private: map[int]bool{}} }

// observe scans output about to be written to the terminal.
func (s *termState) observe(b []byte) {
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
		i := bytes.IndexByte(b, 0x1b)
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

// sequence reads one escape sequence at the start of b and returns its
// length, 0 if it is not one we follow, or -1 if b ends inside it.
func (s *termState) sequence(b []byte) int {
	if len(b) < 2 {
		return -1
	}
	switch b[1] {
	case '=':
		s.keypad = true
		return 2
	case '>':
		s.keypad = false
		return 2
	case 'c': // RIS: the terminal resets everything
		*s = termState{private: map[int]bool{}, carry: s.carry}
		return 2
	case '[':
	default:
		return 0
	}
	// CSI: parameters, then a final byte in 0x40-0x7e.
	j := 2
	for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
		j++
	}
	if j == len(b) {
		return -1
	}
	final := b[j]
	if final < 0x40 || final > 0x7e {
		return j
	}
	params := b[2:j]
	var prefix byte
	if len(params) > 0 && params[0] >= '<' && params[0] <= '?' {
		prefix, params = params[0], params[1:]
	}
	switch {
	case prefix == '?' && (final == 'h' || final == 'l'):
		for _, p := range bytes.Split(params, []byte{';'}) {
			if n, err := strconv.Atoi(string(p)); err == nil {
				switch {
				case n == 25:
					s.hidden = final == 'l'
				case final == 'h':
					s.private[n] = true
				default:
					delete(s.private, n)
				}
			}
		}
	case final == 'u' && prefix == '>':
		s.kitty++
	case final == 'u' && prefix == '<':
		n := 1
		if v, err := strconv.Atoi(string(params)); err == nil && v > 0 {
			n = v
		}
		s.kitty = max(s.kitty-n, 0)
	case final == 'u' && prefix == '=':
		s.kittySet = !bytes.HasPrefix(params, []byte("0;")) && !bytes.Equal(params, []byte("0"))
	case final == 'm' && prefix == '>':
		s.otherKey = len(params) > 2 && bytes.HasPrefix(params, []byte("4;")) && !bytes.Equal(params, []byte("4;0"))
	case final == 'm' && prefix == 0:
		s.sgrDirty = !(len(params) == 0 || bytes.Equal(params, []byte("0")))
	}
	return j + 1
}

// reset returns what turns off everything the session left on; nothing if
// it left the terminal as it was.
func (s *termState) reset() []byte {
	var out []byte
	// Leave the alternate screen first: the modes after it apply to the
	// screen the user returns to.
	for _, m := range []int{1049, 1047, 47} {
		if s.private[m] {
			out = fmt.Appendf(out, "\x1b[?%dl", m)
		}
	}
	for _, m := range resettable {
		if s.private[m] && !slices.Contains([]int{1049, 1047, 47}, m) {
			out = fmt.Appendf(out, "\x1b[?%dl", m)
		}
	}
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
	if s.sgrDirty {
		out = append(out, "\x1b[0m"...)
	}
	if s.hidden {
		out = append(out, "\x1b[?25h"...)
	}
	return out
}
