package mux

import (
	"regexp"
	"testing"
	"time"
)

// TestAskedLedger: queries are numbered in order, found by number until
// they lapse or are answered and trimmed, capped, and go over in a
// hand-off.
func TestAskedLedger(t *testing.T) {
	now := time.Now()
	var a askedQueries
	if a.find(0, now) != nil || a.find(1, now) != nil {
		t.Fatal("an empty ledger found a query")
	}
	first := a.add(2, 7, now)
	if first != 1 {
		t.Fatalf("the first query is number %d, want 1", first)
	}
	if next := a.add(1, answeredByWr, now); next != 3 {
		t.Fatalf("the third query is number %d, want 3", next)
	}
	if q := a.find(2, now); q == nil || q.answerer != 7 || q.answered || q.lost {
		t.Fatalf("query 2: %+v", q)
	}
	a.lose(7, 2, 2) // 2 was client 7's; 3 was wr's
	if !a.find(2, now).lost || a.find(3, now).lost || a.find(1, now).lost {
		t.Fatal("lose marked the wrong queries")
	}
	a.find(1, now).answered = true
	st := a.state(now) // trims the answered first
	if st.Base != 2 || len(st.Entries) != 2 || !st.Entries[0].Lost || st.Entries[1].Answerer != answeredByWr {
		t.Fatalf("state %+v", st)
	}
	r := restoreAsked(st, now)
	if q := r.find(2, now); q == nil || !q.lost || q.answerer != 7 {
		t.Fatalf("restored query 2: %+v", q)
	}
	if r.find(1, now) != nil {
		t.Fatal("the restored ledger holds a query that was answered")
	}
	later := now.Add(answerWait)
	if r.find(2, later) != nil {
		t.Fatal("a query found after its wait")
	}
	if n := r.add(1, 1, later); n != 4 || len(r.entries) != 1 {
		t.Fatalf("after the wait: number %d, %d entries, want 4 and 1", n, len(r.entries))
	}
	for range maxAsked + 10 {
		r.add(1, 1, later)
	}
	if len(r.entries) != maxAsked || r.find(4, later) != nil || r.find(4+maxAsked+10, later) == nil {
		t.Fatalf("capped ledger: %d entries from %d", len(r.entries), r.base)
	}
	for _, bad := range []*askedState{
		{Base: 0, Entries: []askedEntryState{{Answerer: 1, WaitMS: 1}}},
		{Base: 1, Entries: []askedEntryState{{Answerer: 0, WaitMS: 1}}},
		{Base: 1, Entries: []askedEntryState{{Answerer: 1, WaitMS: -1}}},
	} {
		if got := restoreAsked(bad, now); len(got.entries) != 0 {
			t.Fatalf("restored the impossible %+v", bad)
		}
	}
}

// TestModelAnswersWhatFanOutSays: the model answers the queries of a chunk
// fanOut marked as its own (no terminal that answers was sent it), and no
// other, whoever is attached by the time it draws the chunk.
func TestModelAnswersWhatFanOutSays(t *testing.T) {
	ss := sizeSession(80, 24, &fakePTY{})
	ss.mu.Lock()
	ss.model.pushLocked(modelOp{chunk: []byte("hello\r\n")}) // a timer is armed: not drawn inline
	ss.model.pushLocked(modelOp{chunk: []byte("A\x1b[6n")})
	ss.model.pushLocked(modelOp{chunk: []byte("B\x1b[c")})
	ss.model.answerLastLocked()
	ss.model.pushLocked(modelOp{chunk: []byte("C\x1b[6n")})
	ss.model.syncLocked()
	ss.mu.Unlock()
	if got := string(ss.model.replies); !regexp.MustCompile(`^\x1b\[\?[0-9;]+c$`).MatchString(got) {
		t.Fatalf("replies %q, want the DA1 answer alone", got)
	}
}
