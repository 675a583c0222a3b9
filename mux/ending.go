package mux

import (
	"bytes"

	"wr/screen"
)

// lineUsed reports whether the session's cursor is anywhere but the start
// of an empty line: the client's closing line ([NAME exited]) must then
// begin on a new one, and otherwise may take that line, so that a shell
// that printed its last newline ends with no blank line. Called with the
// model's lock held, once per session.
func lineUsed(scr *screen.Screen) bool {
	x, y, _ := scr.Cursor()
	if x != 0 {
		return true
	}
	text := scr.AppendText(nil, screen.TextOptions{})
	for i := 0; i < y; i++ {
		j := bytes.IndexByte(text, '\n')
		if j < 0 {
			return false // the text ends above the cursor: its line is empty
		}
		text = text[j+1:]
	}
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return len(bytes.TrimSpace(text)) > 0
}
