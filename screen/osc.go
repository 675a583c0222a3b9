package screen

import (
	"bytes"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// osc is the parser's handler for OSC sequences. data is the whole payload,
// "Ps;Pt"; cmd is Ps. Text that a restore writes back is cleaned first (see
// appendClean), so an application cannot smuggle a control sequence, and so
// a query, into a restore.
func (s *Screen) osc(cmd int, data []byte) {
	s.joining, s.lastChar = false, 0
	semi := bytes.IndexByte(data, ';')
	if semi < 0 {
		return
	}
	s.scratch = appendClean(s.scratch[:0], data[semi+1:])
	arg := s.scratch
	switch cmd {
	case 0, 2: // title (0 also sets the icon name, which we do not keep)
		if string(arg) != s.title {
			s.title = string(arg)
		}
	case 7: // working directory
		if string(arg) != s.cwd {
			s.cwd = string(arg)
		}
	case 8: // hyperlink: params;uri, an empty uri ends the link
		var link uint32
		if i := bytes.IndexByte(arg, ';'); i >= 0 && i+1 < len(arg) && len(arg) <= maxLinkBytes {
			link = s.internLink(arg)
		}
		if link != s.pen.link {
			s.pen.link = link
			s.penChanged()
		}
	}
}

// oscString is the fast path for an OSC string the parser has just
// started, whose payload is b's first bytes: when b also holds its
// terminator (BEL, ST or ESC, with nothing the parser would ignore or
// cancel on before it), it hands the payload to osc at once, as the parser
// would at the terminator, leaves the parser in the state the terminator
// leaves it, and returns the bytes it read. Otherwise (the string goes on
// past this Write, say) it returns 0 and the parser reads b a byte at a
// time.
func (s *Screen) oscString(b []byte) int {
	j := 0
	for j < len(b) && b[j] >= 0x20 && b[j] != 0x9c {
		j++
	}
	if j == len(b) || b[j] != 0x07 && b[j] != 0x1b && b[j] != 0x9c {
		return 0
	}
	// The parser keeps the first oscDataSize bytes, and reads the command
	// as their leading digits.
	data := b[:min(j, oscDataSize)]
	cmd := parser.MissingCommand
	for _, d := range data {
		if d < '0' || d > '9' {
			break
		}
		if cmd == parser.MissingCommand {
			cmd = 0
		}
		cmd = cmd*10 + int(d-'0')
	}
	s.osc(cmd, data)
	s.parser.Reset()
	if b[j] != 0x1b {
		return j + 1
	}
	if j+1 < len(b) && b[j+1] == '\\' {
		// ST: the parser would dispatch ESC \ next.
		s.esc(ansi.Cmd('\\'))
		return j + 2
	}
	// An ESC that ends the string starts an escape sequence.
	s.parser.Advance(0x1b)
	return j + 1
}

// appendClean appends the printable characters of b: valid UTF-8 without C0
// or C1 controls or DEL.
func appendClean(dst, b []byte) []byte {
	for len(b) > 0 {
		// Printable ASCII, most of any payload, a run at a time.
		i := 0
		for i < len(b) && b[i] >= 0x20 && b[i] < 0x7f {
			i++
		}
		dst = append(dst, b[:i]...)
		if b = b[i:]; len(b) == 0 {
			break
		}
		r, n := utf8.DecodeRune(b)
		if r >= 0x20 && (r < 0x7f || r > 0x9f) && !(r == utf8.RuneError && n == 1) {
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst
}
