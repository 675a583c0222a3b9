package attach

import "golang.org/x/term"

// The size a terminal is read as in a dimension it reports as zero: what
// tmux and screen assume too.
const (
	defaultCols = 80
	defaultRows = 24
)

// terminalSize is the size of the terminal on fd as a client reports it.
// A terminal can say it has no size (a serial console before `stty rows`,
// a PTY nobody sized, `script` run from a pipe); each zero dimension is
// read as 80 columns or 24 rows. Reported as it is, 0x0 would tell the
// server the client is no terminal (a relay, sent the program's bytes but
// never the screen, and never the size owner): the person at it would see
// nothing of the session until the program next wrote.
func terminalSize(fd int) (cols, rows int, err error) {
	cols, rows, err = term.GetSize(fd)
	if err != nil {
		return 0, 0, err
	}
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	return cols, rows, nil
}
