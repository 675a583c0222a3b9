package mux

import (
	"bytes"
	"time"
)

// askedQueries is a session's ledger of the queries its program asked and
// terminals were sent (queries.go): numbered in the order they were fanned
// out, each with the client that answered for the session then and whether
// an answer reached the program. A terminal's answer is matched with its
// query by number (owedAnswers), and the ledger decides whether it goes
// (answerGoesLocked): the first acceptable answer does, and no other.
// Guarded by the session's mu.
type askedQueries struct {
	base    uint64 // the number of entries[0]; numbers start at 1, 0 is none
	entries []askedQuery
}

type askedQuery struct {
	answerer int       // a client's id, or answeredByWr
	lost     bool      // the answerer's copy was dropped: it will not answer
	answered bool      // an answer reached the program
	until    time.Time // when it lapses, and an answer to it is refused
	// held is the first answer refused while the answerer was still to
	// answer: it goes if the answerer leaves or loses its copy first.
	held []byte
}

// maxHeldAnswer is the longest answer held: a colour, a mode, a version; a
// clipboard's contents is not kept.
const maxHeldAnswer = 1 << 10

// maxAsked caps the ledger: a program asking faster than terminals answer
// (or of terminals that never answer) does not grow it past this; an
// answer to a query pushed out goes from the client that answers now.
const maxAsked = 4096

// add numbers n queries asked now while answerer answered for the session,
// and returns the first number.
func (a *askedQueries) add(n int, answerer int, now time.Time) uint64 {
	a.trim(now)
	if a.base == 0 {
		a.base = 1
	}
	first := a.base + uint64(len(a.entries))
	for range n {
		a.entries = append(a.entries, askedQuery{answerer: answerer, until: now.Add(answerWait)})
	}
	if over := len(a.entries) - maxAsked; over > 0 {
		a.dropFront(over) // at once: one by one, a chunk of queries took the session's lock for 30 ms
	}
	return first
}

// dropFront drops the first n entries. The slice is cut, not moved: append
// copies only what is left when it next needs room.
func (a *askedQueries) dropFront(n int) {
	clear(a.entries[:n]) // the held answers
	a.entries = a.entries[n:]
	a.base += uint64(n)
}

// trim drops the leading entries that lapsed. An answered one is kept
// until then: forgotten, a late answer to it from another client would be
// taken for one to nothing.
func (a *askedQueries) trim(now time.Time) {
	n := 0
	for n < len(a.entries) && !now.Before(a.entries[n].until) {
		n++
	}
	if n > 0 {
		a.dropFront(n)
	}
	if len(a.entries) == 0 {
		a.entries = nil // a session asked nothing for a while holds nothing
	}
}

// find is query number seq, or nil if it lapsed (or was pushed out by the
// cap) or was never recorded.
func (a *askedQueries) find(seq uint64, now time.Time) *askedQuery {
	a.trim(now)
	if seq < a.base || seq >= a.base+uint64(len(a.entries)) {
		return nil
	}
	return &a.entries[seq-a.base]
}

// hold keeps b as q's held answer, if it is the first and short enough.
func (q *askedQuery) hold(b []byte) {
	if q.held == nil && len(b) <= maxHeldAnswer {
		q.held = bytes.Clone(b)
	}
}

// take marks q answered and returns its held answer, if any, to go to the
// program now.
func (q *askedQuery) take(dst []byte) []byte {
	if q.answered || q.held == nil {
		return dst
	}
	dst = append(dst, q.held...)
	q.answered, q.held = true, nil
	return dst
}

// lose marks the queries numbered first to first+n-1 that client id
// answered for as lost (its copy of them was dropped unsent), and returns
// the answers held for them, which go now.
func (a *askedQueries) lose(id int, first uint64, n int) (held []byte) {
	for seq := first; seq < first+uint64(n); seq++ {
		if seq >= a.base && seq < a.base+uint64(len(a.entries)) && a.entries[seq-a.base].answerer == id {
			q := &a.entries[seq-a.base]
			q.lost = true
			held = q.take(held)
		}
	}
	return held
}

// leftWhere returns the answers held for queries whose answerer has gone
// (a client id for which gone is true), which go now: it will not answer.
func (a *askedQueries) leftWhere(gone func(id int) bool) (held []byte) {
	for i := range a.entries {
		if id := a.entries[i].answerer; id > 0 && gone(id) {
			held = a.entries[i].take(held)
		}
	}
	return held
}

// reassign makes answerer the one that answers for the queries numbered
// first to first+n-1.
func (a *askedQueries) reassign(first uint64, n int, answerer int) {
	for seq := first; seq < first+uint64(n); seq++ {
		if seq >= a.base && seq < a.base+uint64(len(a.entries)) {
			a.entries[seq-a.base].answerer = answerer
		}
	}
}

// askedState is the ledger written down for a hand-off: the new server's
// clock starts afresh, so each entry's wait is what was left of it.
type askedState struct {
	Base    uint64            `json:"base"`
	Entries []askedEntryState `json:"entries"`
}

type askedEntryState struct {
	Answerer int    `json:"answerer"`
	Lost     bool   `json:"lost,omitempty"`
	Answered bool   `json:"answered,omitempty"`
	WaitMS   int64  `json:"wait_ms"`
	Held     []byte `json:"held,omitempty"`
}

func (a *askedQueries) state(now time.Time) *askedState {
	a.trim(now)
	if a.base == 0 {
		return nil // nothing was ever asked
	}
	st := &askedState{Base: a.base}
	for _, q := range a.entries {
		st.Entries = append(st.Entries, askedEntryState{Answerer: q.answerer, Lost: q.lost, Answered: q.answered,
			WaitMS: max(q.until.Sub(now).Milliseconds(), 0), Held: q.held})
	}
	return st
}

// restoreAsked is the ledger st wrote down, or an empty one if st is nil
// or impossible (answers to its queries then go from the client that
// answers now). An empty one numbers on from where st stopped: the
// clients' records carry its numbers, and a new query must not take one.
func restoreAsked(st *askedState, now time.Time) askedQueries {
	if st == nil || st.Base == 0 || st.Base > 1<<62 {
		return askedQueries{}
	}
	next := askedQueries{base: st.Base + uint64(len(st.Entries))}
	if len(st.Entries) > maxAsked {
		return next
	}
	a := askedQueries{base: st.Base}
	for _, e := range st.Entries {
		if e.Answerer < answeredByWr || e.Answerer == 0 || e.WaitMS < 0 || e.WaitMS > answerWait.Milliseconds() ||
			len(e.Held) > maxHeldAnswer {
			return next
		}
		a.entries = append(a.entries, askedQuery{answerer: e.Answerer, lost: e.Lost, answered: e.Answered,
			until: now.Add(time.Duration(e.WaitMS) * time.Millisecond), held: e.Held})
	}
	return a
}
