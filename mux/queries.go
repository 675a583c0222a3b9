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
// each kind of query its terminal was sent and has not answered, whether it
// answered for the session when the query went out; an answer is forwarded
// by that, as terminals answer one kind in the order they were asked. A
// kind not tracked here, or an answer nothing was asked for (focus), is
// still forwarded only from the client that answers now.
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

// answerWait is how long a terminal is owed its answers: one that never
// answers a kind (or a client that was sent a redraw in place of the
// query) owes nothing of it after it.
const answerWait = 3 * time.Second

// maxOwed caps the answers owed of one kind: a program asking in a loop
// does not make a client owe them for longer than one wait.
const maxOwed = 64

// owedAnswers is what one client's terminal owes: for each kind of query it
// was sent and has not answered, oldest first, whether the client answered
// for the session when the query went out. Counted up by the session's
// reader under the session's mu, and down by the client's input under its
// inMu; mu is a leaf under both.
type owedAnswers struct {
	mu    sync.Mutex
	kinds []owedKind
}

type owedKind struct {
	kind  queryKind
	n     int       // answers owed
	ours  uint64    // bit i: the i-th oldest was asked while this client answered
	until time.Time // when the newest of them lapses, and all with it
}

// owe counts one query of each of kinds sent to the terminal now, with
// whether the client answers for the session.
func (o *owedAnswers) owe(kinds []queryKind, ours bool, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, k := range kinds {
		i := o.findLocked(k, now)
		if i < 0 {
			o.kinds = append(o.kinds, owedKind{kind: k})
			i = len(o.kinds) - 1
		}
		q := &o.kinds[i]
		if q.n == maxOwed { // the oldest goes
			q.ours >>= 1
			q.n--
		}
		if ours {
			q.ours |= 1 << q.n
		}
		q.n++
		q.until = now.Add(answerWait)
	}
}

// findLocked is the index of kind k's record, or -1; one that lapsed is
// dropped.
func (o *owedAnswers) findLocked(k queryKind, now time.Time) int {
	for i := range o.kinds {
		if o.kinds[i].kind != k {
			continue
		}
		if !now.Before(o.kinds[i].until) {
			o.kinds = append(o.kinds[:i], o.kinds[i+1:]...)
			return -1
		}
		return i
	}
	return -1
}

// answered counts one answer of kind k off, reporting whether one was owed
// and, if so, whether the client answered for the session when it was asked.
func (o *owedAnswers) answered(k queryKind, now time.Time) (owed, ours bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := o.findLocked(k, now)
	if i < 0 {
		return false, false
	}
	q := &o.kinds[i]
	ours = q.ours&1 != 0
	q.ours >>= 1
	q.n--
	if q.n == 0 {
		o.kinds = append(o.kinds[:i], o.kinds[i+1:]...)
	}
	return true, ours
}

// owesOthers reports whether the terminal owes an answer to a query asked
// while another client answered for the session. A client that takes the
// size may still owe such answers, and they must not pass as its own.
func (o *owedAnswers) owesOthers() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.kinds) == 0 { // the owner's every keystroke asks: no clock read
		return false
	}
	now := time.Now()
	for i := 0; i < len(o.kinds); i++ {
		q := o.kinds[i]
		if !now.Before(q.until) {
			o.kinds = append(o.kinds[:i], o.kinds[i+1:]...)
			i--
			continue
		}
		if q.ours != 1<<q.n-1 {
			return true
		}
	}
	return false
}

// owedState is one kind's record, written down for a hand-off.
type owedState struct {
	Kind queryKind `json:"kind"`
	N    int       `json:"n"`
	Ours uint64    `json:"ours,omitempty"`
	// WaitMS is how much of the wait was left, in milliseconds: the new
	// server's clock starts afresh.
	WaitMS int64 `json:"wait_ms"`
}

func (o *owedAnswers) state(now time.Time) []owedState {
	o.mu.Lock()
	defer o.mu.Unlock()
	var st []owedState
	for _, q := range o.kinds {
		if now.Before(q.until) {
			st = append(st, owedState{Kind: q.kind, N: q.n, Ours: q.ours, WaitMS: q.until.Sub(now).Milliseconds()})
		}
	}
	return st
}

// count is how many answers of kind k are owed.
func (o *owedAnswers) count(k queryKind, now time.Time) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i := o.findLocked(k, now); i >= 0 {
		return o.kinds[i].n
	}
	return 0
}

func (o *owedAnswers) restore(st []owedState, now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range st {
		if s.Kind == 0 || s.N <= 0 || s.N > maxOwed || s.Ours>>s.N != 0 || s.WaitMS < 0 || s.WaitMS > answerWait.Milliseconds() {
			return false
		}
		o.kinds = append(o.kinds, owedKind{kind: s.Kind, n: s.N, ours: s.Ours,
			until: now.Add(time.Duration(s.WaitMS) * time.Millisecond)})
	}
	return true
}
