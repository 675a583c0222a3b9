package mux

import (
	"bytes"
	"sync/atomic"
	"time"
)

// A modified F3 and a cursor position report on the first row are the same
// bytes: xterm sends Shift+F3 as CSI 1;2R, Ctrl+F3 as CSI 1;5R, and a
// terminal answers a program's CSI 6n with CSI 1;5R when the cursor is in
// row 1, column 5. Taken always for a report, a modified F3 from a client
// that does not answer for the session was dropped. So each client counts
// the cursor queries its terminal was sent and has not answered yet (as
// notcurses does), and CSI 1;m R is a key while it owes none.

// cursorQueryWait is how long a terminal is owed its answers: one that
// never answers (or a client that was sent a redraw in place of the query)
// owes nothing after it.
const cursorQueryWait = 3 * time.Second

// maxCursorQueriesOwed caps the count: a program asking in a loop does not
// make a client owe answers for longer than one wait.
const maxCursorQueriesOwed = 64

// cursorQueriesOwed is a client's count of cursor queries sent to its
// terminal and not answered, with the time after which it owes none. It is
// counted up by the session's reader under the session's mu and down by
// the client's input under its inMu, whose lock order (inMu before mu)
// rules out one lock for both: so both halves are one atomic word (the
// deadline in milliseconds (owedEpoch) above 8 bits of count), and an expiry seen by
// one side can never wipe queries the other has just counted.
type cursorQueriesOwed struct {
	v atomic.Uint64
}

// owedEpoch is what deadlines are counted from, in milliseconds on the
// monotonic clock: a wall clock set back would keep a count alive.
var owedEpoch = time.Now()

func owedMillis(t time.Time) uint64 { return uint64(max(t.Sub(owedEpoch).Milliseconds(), 0)) }

func packOwed(n int, until time.Time) uint64 { return owedMillis(until)<<8 | uint64(n) }

// unpackOwed is the count in v at now: none once its deadline has passed.
func unpackOwed(v uint64, now time.Time) int {
	if v>>8 <= owedMillis(now) { // a deadline before the epoch reads as 0: over
		return 0
	}
	return int(v & 0xff)
}

// owe counts n more queries sent, from now.
func (o *cursorQueriesOwed) owe(n int, now time.Time) {
	for {
		old := o.v.Load()
		next := packOwed(min(unpackOwed(old, now)+n, maxCursorQueriesOwed), now.Add(cursorQueryWait))
		if o.v.CompareAndSwap(old, next) {
			return
		}
	}
}

// answered counts one answer, and reports whether one was owed.
func (o *cursorQueriesOwed) answered(now time.Time) bool {
	for {
		old := o.v.Load()
		n := unpackOwed(old, now)
		if n == 0 {
			return false
		}
		if o.v.CompareAndSwap(old, old-1) {
			return true
		}
	}
}

// owed is the count, for a hand-off.
func (o *cursorQueriesOwed) owed(now time.Time) int { return unpackOwed(o.v.Load(), now) }

// cursorQueryScan counts the cursor position queries (CSI 6n and DECXCPR's
// CSI ?6n) in a program's output, read in chunks that may split one.
type cursorQueryScan struct {
	held    [4]byte // the end of the last chunk, a query's start
	heldLen int
}

var cursorQueries = [...]string{"\x1b[6n", "\x1b[?6n"}

// count returns how many queries chunk ends, with what was held before it.
func (q *cursorQueryScan) count(chunk []byte) int {
	n := 0
	if q.heldLen > 0 {
		// A query held in part can only go on at chunk's start: it holds
		// no other ESC.
		var buf [9]byte
		head := append(append(buf[:0], q.held[:q.heldLen]...), chunk[:min(len(chunk), 5)]...)
		held := q.heldLen
		q.heldLen = 0
		if l := queryAt(head); l > 0 {
			n++
			chunk = chunk[l-held:]
		} else if isQueryStart(head) { // chunk was too short to finish it
			q.heldLen = copy(q.held[:], head)
			return 0
		}
	}
	for {
		i := bytes.IndexByte(chunk, 0x1b)
		if i < 0 {
			return n
		}
		chunk = chunk[i:]
		// Most escapes in output are SGR and cursor moves: turned away on
		// their third byte, before queryAt.
		if len(chunk) >= 3 && (chunk[1] != '[' || chunk[2] != '6' && chunk[2] != '?') {
			chunk = chunk[1:]
			continue
		}
		if l := queryAt(chunk); l > 0 {
			n++
			chunk = chunk[l:]
			continue
		}
		if isQueryStart(chunk) {
			q.heldLen = copy(q.held[:], chunk)
			return n
		}
		chunk = chunk[1:]
	}
}

// queryAt is the length of the query b starts with, or 0.
func queryAt(b []byte) int {
	for _, query := range cursorQueries {
		if len(b) >= len(query) && string(b[:len(query)]) == query {
			return len(query)
		}
	}
	return 0
}

// isQueryStart reports whether b is a query's first bytes, short of all.
func isQueryStart(b []byte) bool {
	for _, query := range cursorQueries {
		if len(b) < len(query) && query[:len(b)] == string(b) {
			return true
		}
	}
	return false
}
