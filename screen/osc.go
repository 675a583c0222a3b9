package screen

import (
	"bytes"
	"unicode/utf8"
)

// osc is the parser's handler for OSC sequences. data is the whole payload,
// "Ps;Pt"; cmd is Ps. Text that a restore writes back is cleaned first (see
// appendClean), so an application cannot smuggle a control sequence, and so
// a query, into a restore.
func (s *Screen) osc(cmd int, data []byte) {
	s.joining = false
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
