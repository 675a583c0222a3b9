package screen

import "strconv"

// The title stack: xterm's CSI 22 ; Ps t pushes the title and CSI 23 ; Ps t
// pops it, Ps saying which of the icon name (1), the window title (2) or
// both (0, the default) the entry keeps and the pop restores. vim with
// "set title" pushes the shell's title on start and pops it on exit.
//
// The screen keeps only the window title (OSC 0 and 2; the icon name is not
// drawn by the terminals wr runs in), so an entry records whether it holds
// the title. Like xterm, the stack holds maxTitleStack entries: a push onto
// a full stack forgets the oldest.

const maxTitleStack = 10 // xterm's MAX_SAVED_TITLES

// titleEntry is one pushed title; hasTitle is false for an icon-name-only
// push (Ps 1), whose pop leaves the window title alone.
type titleEntry struct {
	title    string
	hasTitle bool
}

// windowOp is xterm's window manipulation (CSI Ps ; Ps ; Ps t). Only the
// title stack is modelled: the others resize, move or report the window,
// which is the outer terminal's business.
func (s *Screen) windowOp(op, which int) {
	switch op {
	case 22:
		if len(s.titles) == maxTitleStack {
			copy(s.titles, s.titles[1:])
			s.titles = s.titles[:len(s.titles)-1]
		}
		s.titles = append(s.titles, titleEntry{title: s.title, hasTitle: which != 1})
	case 23:
		if len(s.titles) == 0 {
			return
		}
		e := s.titles[len(s.titles)-1]
		s.titles = s.titles[:len(s.titles)-1]
		if e.hasTitle && which != 1 {
			s.title = e.title
		}
	}
}

// appendTitles sets the window title, after pushing the stack's entries so
// that the application's pops find them in the terminal.
func appendTitles(b []byte, s *Screen) []byte {
	for _, e := range s.titles {
		if !e.hasTitle {
			b = append(b, "\x1b[22;1t"...)
			continue
		}
		b = appendOSC(b, 2, e.title)
		b = append(b, "\x1b[22;2t"...)
	}
	if s.title != "" || len(s.titles) > 0 {
		b = appendOSC(b, 2, s.title)
	}
	return b
}

// appendOSC appends OSC cmd ; text ST.
func appendOSC(b []byte, cmd int, text string) []byte {
	b = append(b, "\x1b]"...)
	b = strconv.AppendInt(b, int64(cmd), 10)
	b = append(b, ';')
	b = append(b, text...)
	return append(b, "\x1b\\"...)
}
