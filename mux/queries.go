package mux

import (
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// A query a program writes reaches every terminal it is sent to, and each
// may answer; the program must get one answer. Which terminal answers for
// the session was decided when the answer arrived, so a size that moved
// between a query and its answers gave the program none (the old answerer's
// came late, the new one's came early) or two. Now each client keeps, for
// each kind of query its terminal was sent and has not answered, its number
// in the session's ledger (asked.go); terminals answer one kind in the order
// they were asked, so each answer is matched with its query, and goes to the
// program from the client that answered for the session when it was asked
// (or, if that one left or lost its copy, from the first other terminal to
// answer: see answerGoesLocked). A kind not tracked here, or an answer
// nothing was asked for (focus), is still forwarded only from the client
// that answers now.
//
// The same record tells a cursor position report from a modified F3: xterm
// sends Shift+F3 as CSI 1;2R, the report for row 1, column 2. CSI 1;m R is a
// key while the terminal owes no cursor report (as notcurses decides it).

// queryKind names a query by the answer it gets: its class, and for a window
// report or an OSC colour the number that tells answers of that class apart.
type queryKind uint16

const (
	queryCursor  queryKind = iota + 1<<8 // CSI 6n, CSI ?6n: CSI r;c R
	queryStatus                          // CSI 5n: CSI 0n
	queryTheme                           // CSI ?996n: CSI ?997;Ps n
	queryDA1                             // CSI c: CSI ?...c
	queryDA2                             // CSI >c: CSI >...c
	queryDA3                             // CSI =c: DCS !| ... ST
	queryMode                            // DECRQM, CSI ?Ps$p: CSI ?Ps;Pm$y
	queryKitty                           // CSI ?u: CSI ?flags u
	queryVersion                         // XTVERSION, CSI >q: DCS >| ... ST
	querySetting                         // DECRQSS, DCS $q ... ST: DCS Ps$r ... ST
)

// The classes whose kinds carry a number in their low byte.
const (
	queryWindow queryKind = 2 << 8 // CSI Ps t, Ps 11 to 21: CSI Ps-10;... t, or OSC L / OSC l
	queryOSC    queryKind = 3 << 8 // OSC Ps;...;? : OSC Ps;... ST
)

// windowQuery is the kind of CSI ps t, or 0 for one that is not a report
// request.
func windowQuery(ps int) queryKind {
	switch ps {
	case 11, 13, 14, 15, 16, 18, 19, 20, 21:
		return queryWindow | queryKind(ps)
	}
	return 0
}

// oscQuery is the kind of an OSC ps query, or 0 for an OSC that is never
// a query (a title, a link): its body is skipped unread.
func oscQuery(ps int) queryKind {
	switch {
	case ps == 4 || ps == 5 || ps >= 10 && ps <= 19 || ps == 52:
		return queryOSC | queryKind(ps)
	}
	return 0
}

// csiAnswer is the kind of query a CSI report from a terminal answers, or 0.
func csiAnswer(cmd ansi.Cmd, params ansi.Params) queryKind {
	prefix, inter := cmd.Prefix(), cmd.Intermediate()
	first, _, _ := params.Param(0, 0)
	switch cmd.Final() {
	case 'R':
		return queryCursor
	case 'n':
		switch {
		case prefix == 0 && (first == 0 || first == 3):
			return queryStatus
		case prefix == '?' && first == 997:
			return queryTheme
		}
	case 'c':
		switch prefix {
		case '?':
			return queryDA1
		case '>':
			return queryDA2
		}
	case 'y':
		if inter == '$' {
			return queryMode
		}
	case 't':
		switch first {
		case 1, 2: // iconified or not
			return windowQuery(11)
		case 3, 4, 5, 6, 8, 9:
			return windowQuery(first + 10)
		}
	case 'u':
		if prefix == '?' {
			return queryKitty
		}
	}
	return 0
}

// dcsAnswer is the kind of query a DCS from a terminal answers, or 0.
func dcsAnswer(cmd ansi.Cmd) queryKind {
	switch {
	case cmd.Final() == '|' && cmd.Prefix() == '>':
		return queryVersion
	case cmd.Final() == '|' && cmd.Intermediate() == '!':
		return queryDA3
	case cmd.Final() == 'r' && cmd.Intermediate() == '$':
		return querySetting
	}
	return 0
}

// oscAnswer is the kind of query an OSC from a terminal answers, or 0: cmd
// is its number (the parser's MissingCommand for none: a title report
// starts with L or l).
func oscAnswer(cmd int, data []byte) queryKind {
	switch {
	case len(data) > 0 && data[0] == 'L':
		return windowQuery(20)
	case len(data) > 0 && data[0] == 'l':
		return windowQuery(21)
	}
	return oscQuery(cmd)
}

// answerWait is how long a terminal is owed an answer: one that never
// answers a kind (or a client that was sent a redraw in place of the
// query) owes nothing for it after it.
const answerWait = 3 * time.Second

// maxOwed caps the answers owed of one kind: a program asking in a loop
// of a terminal that never answers does not grow the record.
const maxOwed = 64

// Who answered for the session when a query went out, besides a client's
// id (which start at 1).
const (
	// answeredByWr: no terminal that answers was sent the query, and the
	// model answered it (modelOp.answers).
	answeredByWr = -1
	// answererUnknown: an older server's record, which did not say; the
	// client that answers now does.
	answererUnknown = -2
)

// owedAnswers is what one client's terminal owes: for each kind of query
// it was sent and has not answered, oldest first, its number in the
// session's ledger (asked.go) and which client answered for the session
// when it went out. Added to by the session's reader under the session's
// mu (and the client's queueMu), and counted off by the client's input
// under its inMu; mu is a leaf under all of them.
type owedAnswers struct {
	mu    sync.Mutex
	kinds []owedKind
}

type owedKind struct {
	kind    queryKind
	pending []owedAnswer // oldest first; each lapses after its own wait
}

type owedAnswer struct {
	seq      uint64    // its number in the session's ledger; 0: none (an older server's)
	answerer int       // a client's id, answeredByWr or answererUnknown
	until    time.Time // when it lapses
}

// owe records the queries kinds sent to the terminal now, numbered from
// first in the session's ledger, while answerer answered for the session.
func (o *owedAnswers) owe(kinds []queryKind, first uint64, answerer int, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, k := range kinds {
		q := o.findLocked(k, now)
		if q == nil {
			o.kinds = append(o.kinds, owedKind{kind: k})
			q = &o.kinds[len(o.kinds)-1]
		}
		if len(q.pending) == maxOwed { // the oldest goes
			q.pending = append(q.pending[:0], q.pending[1:]...)
		}
		seq := first + uint64(i)
		if first == 0 {
			seq = 0
		}
		q.pending = append(q.pending, owedAnswer{seq: seq, answerer: answerer, until: now.Add(answerWait)})
	}
}

// findLocked is kind k's record with what lapsed by now dropped, or nil if
// none is left.
func (o *owedAnswers) findLocked(k queryKind, now time.Time) *owedKind {
	for i := range o.kinds {
		if o.kinds[i].kind != k {
			continue
		}
		q := &o.kinds[i]
		if q.lapse(now) {
			o.kinds = append(o.kinds[:i], o.kinds[i+1:]...)
			return nil
		}
		return q
	}
	return nil
}

// lapse drops the answers owed that lapsed by now, and reports whether
// none are left.
func (q *owedKind) lapse(now time.Time) bool {
	n := 0
	for n < len(q.pending) && !now.Before(q.pending[n].until) {
		n++
	}
	q.pending = append(q.pending[:0], q.pending[n:]...)
	return len(q.pending) == 0
}

// answered counts one answer of kind k off, and returns the query it
// answers, if one was owed.
func (o *owedAnswers) answered(k queryKind, now time.Time) (a owedAnswer, owed bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.findLocked(k, now)
	if q == nil {
		return owedAnswer{}, false
	}
	a = q.pending[0]
	q.pending = append(q.pending[:0], q.pending[1:]...)
	return a, true
}

// owesOthers reports whether the terminal of client self owes an answer to
// a query asked while another client (or wr) answered for the session. A
// client that takes the size may still owe such answers, and they must not
// pass as its own.
func (o *owedAnswers) owesOthers(self int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.kinds) == 0 { // the owner's every keystroke asks: no clock read
		return false
	}
	now := time.Now()
	others := false
	kept := o.kinds[:0]
	for _, q := range o.kinds {
		if q.lapse(now) {
			continue
		}
		kept = append(kept, q)
		for _, a := range q.pending {
			others = others || a.answerer != self
		}
	}
	clear(o.kinds[len(kept):])
	o.kinds = kept
	return others
}

// drop removes the answers owed to the queries numbered first to
// first+n-1: the output that held them was dropped, unsent, and the
// terminal will not answer them.
func (o *owedAnswers) drop(first uint64, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	kept := o.kinds[:0]
	for _, q := range o.kinds {
		pending := q.pending[:0]
		for _, a := range q.pending {
			if a.seq < first || a.seq >= first+uint64(n) {
				pending = append(pending, a)
			}
		}
		q.pending = pending
		if len(q.pending) > 0 {
			kept = append(kept, q)
		}
	}
	clear(o.kinds[len(kept):])
	o.kinds = kept
}

// reassign records answerer as the one that answers for the queries
// numbered first to first+n-1 (a stand-in for one that fell behind).
func (o *owedAnswers) reassign(first uint64, n int, answerer int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.kinds {
		for j := range o.kinds[i].pending {
			if a := &o.kinds[i].pending[j]; a.seq >= first && a.seq < first+uint64(n) {
				a.answerer = answerer
			}
		}
	}
}

// count is how many answers of kind k are owed.
func (o *owedAnswers) count(k queryKind, now time.Time) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q := o.findLocked(k, now); q != nil {
		return len(q.pending)
	}
	return 0
}

// owedState is one kind's record, written down for a hand-off: for each
// answer owed, oldest first, its answerer and how much of its wait was
// left, in milliseconds (the new server's clock starts afresh).
type owedState struct {
	Kind      queryKind `json:"kind"`
	Seqs      []uint64  `json:"seqs"`
	Answerers []int     `json:"answerers"`
	WaitMS    []int64   `json:"wait_ms"`
}

// state writes down what is owed, leaving the record as it is: the old
// server keeps it if the upgrade fails.
func (o *owedAnswers) state(now time.Time) []owedState {
	o.mu.Lock()
	defer o.mu.Unlock()
	var st []owedState
	for _, q := range o.kinds {
		s := owedState{Kind: q.kind}
		for _, a := range q.pending {
			if now.Before(a.until) {
				s.Seqs = append(s.Seqs, a.seq)
				s.Answerers = append(s.Answerers, a.answerer)
				s.WaitMS = append(s.WaitMS, a.until.Sub(now).Milliseconds())
			}
		}
		if len(s.Seqs) > 0 {
			st = append(st, s)
		}
	}
	return st
}

// restore takes st back, reporting whether it is possible.
func (o *owedAnswers) restore(st []owedState, now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range st {
		if s.Seqs == nil {
			s.Seqs = make([]uint64, len(s.Answerers)) // none: decided as an older server's
		}
		if s.Kind == 0 || len(s.Answerers) == 0 || len(s.Answerers) > maxOwed || len(s.WaitMS) != len(s.Answerers) ||
			len(s.Seqs) != len(s.Answerers) {
			return false
		}
		q := owedKind{kind: s.Kind}
		for i, a := range s.Answerers {
			if a < answererUnknown || a == 0 || s.WaitMS[i] < 0 || s.WaitMS[i] > answerWait.Milliseconds() {
				return false
			}
			q.pending = append(q.pending, owedAnswer{seq: s.Seqs[i], answerer: a,
				until: now.Add(time.Duration(s.WaitMS[i]) * time.Millisecond)})
		}
		o.kinds = append(o.kinds, q)
	}
	return true
}
