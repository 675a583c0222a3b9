package mux

import "time"

// askedQueries is a session's ledger of the queries its program asked and
// terminals were sent (queries.go): numbered in the order they were fanned
// out, each with the client that answered for the session then and whether
// an answer reached the program. A terminal's answer is matched with its
// query by number (owedAnswers), and the ledger decides whether it goes
// (answerGoesLocked): the first acceptable answer does, and no other. Guarded by
// the session's mu.
type askedQueries struct {
	base    uint64 // the number of entries[0]; numbers start at 1, 0 is none
	entries []askedQuery
}

type askedQuery struct {
	answerer int       // a client's id, or answeredByWr
	lost     bool      // the answerer's copy was dropped: it will not answer
	answered bool      // an answer reached the program
	until    time.Time // when it lapses, and an answer to it is decided as one to nothing
}

// maxAsked caps the ledger: a program asking faster than terminals answer
// (or of terminals that never answer) does not grow it past this; a query
// pushed out is decided as one never recorded.
const maxAsked = 4096

// add numbers n queries asked now while answerer answered for the session,
// and returns the first number.
func (a *askedQueries) add(n int, answerer int, now time.Time) uint64 {
	a.trim(now)
	if a.base == 0 {
		a.base = 1
	}
	for range n {
		if len(a.entries) == maxAsked {
			a.entries = append(a.entries[:0], a.entries[1:]...)
			a.base++
		}
		a.entries = append(a.entries, askedQuery{answerer: answerer, until: now.Add(answerWait)})
	}
	return a.base + uint64(len(a.entries)-n)
}

// trim drops the leading entries that are answered or lapsed.
func (a *askedQueries) trim(now time.Time) {
	n := 0
	for n < len(a.entries) && (a.entries[n].answered || !now.Before(a.entries[n].until)) {
		n++
	}
	if n > 0 {
		a.entries = append(a.entries[:0], a.entries[n:]...)
		a.base += uint64(n)
	}
	if len(a.entries) == 0 {
		a.entries = nil // an idle session holds nothing
	}
}

// find is query number seq, or nil if it lapsed or was never recorded.
func (a *askedQueries) find(seq uint64, now time.Time) *askedQuery {
	if seq < a.base || seq >= a.base+uint64(len(a.entries)) {
		return nil
	}
	q := &a.entries[seq-a.base]
	if !now.Before(q.until) {
		return nil
	}
	return q
}

// lose marks the queries numbered first to first+n-1 that client id
// answered for as lost: its copy of them was dropped.
func (a *askedQueries) lose(id int, first uint64, n int) {
	for seq := first; seq < first+uint64(n); seq++ {
		if seq >= a.base && seq < a.base+uint64(len(a.entries)) && a.entries[seq-a.base].answerer == id {
			a.entries[seq-a.base].lost = true
		}
	}
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
	Answerer int   `json:"answerer"`
	Lost     bool  `json:"lost,omitempty"`
	Answered bool  `json:"answered,omitempty"`
	WaitMS   int64 `json:"wait_ms"`
}

func (a *askedQueries) state(now time.Time) *askedState {
	a.trim(now)
	if len(a.entries) == 0 {
		return nil
	}
	st := &askedState{Base: a.base}
	for _, q := range a.entries {
		st.Entries = append(st.Entries, askedEntryState{Answerer: q.answerer, Lost: q.lost, Answered: q.answered,
			WaitMS: max(q.until.Sub(now).Milliseconds(), 0)})
	}
	return st
}

// restoreAsked is the ledger st wrote down, or an empty one if st is nil
// or impossible (the answers are then decided as ones to nothing).
func restoreAsked(st *askedState, now time.Time) askedQueries {
	if st == nil || st.Base == 0 || len(st.Entries) > maxAsked {
		return askedQueries{}
	}
	a := askedQueries{base: st.Base}
	for _, e := range st.Entries {
		if e.Answerer < answeredByWr || e.Answerer == 0 || e.WaitMS < 0 || e.WaitMS > answerWait.Milliseconds() {
			return askedQueries{}
		}
		a.entries = append(a.entries, askedQuery{answerer: e.Answerer, lost: e.Lost, answered: e.Answered,
			until: now.Add(time.Duration(e.WaitMS) * time.Millisecond)})
	}
	return a
}
