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
	a.find(2, now).hold([]byte("\x1b[?6c"))
	st := a.state(now) // an answered query is kept until it lapses
	if st.Base != 1 || len(st.Entries) != 3 || !st.Entries[0].Answered || !st.Entries[1].Lost ||
		string(st.Entries[1].Held) != "\x1b[?6c" || st.Entries[2].Answerer != answeredByWr {
		t.Fatalf("state %+v", st)
	}
	r := restoreAsked(st, now)
	if q := r.find(2, now); q == nil || !q.lost || q.answerer != 7 || string(q.held) != "\x1b[?6c" {
		t.Fatalf("restored query 2: %+v", q)
	}
	if q := r.find(1, now); q == nil || !q.answered {
		t.Fatalf("restored query 1: %+v", q)
	}
	// Client 7 leaves: the answer held for its query goes.
	client7 := func(id int) bool { return id == 7 }
	if held := r.leftWhere(client7); string(held) != "\x1b[?6c" || !r.find(2, now).answered {
		t.Fatalf("left: %q", held)
	}
	if held := r.leftWhere(client7); held != nil {
		t.Fatalf("a held answer went twice: %q", held)
	}
	later := now.Add(answerWait)
	if r.find(2, later) != nil {
		t.Fatal("a query found after its wait")
	}
	if n := r.add(1, 1, later); n != 4 || len(r.entries) != 1 {
		t.Fatalf("after the wait: number %d, %d entries, want 4 and 1", n, len(r.entries))
	}
	// The numbering goes on across a hand-off with nothing left to answer.
	empty := restoreAsked(r.state(later.Add(answerWait)), later)
	if n := empty.add(1, 1, later); n != 5 {
		t.Fatalf("after a hand-off of an empty ledger: number %d, want 5", n)
	}
	for range maxAsked + 10 {
		r.add(1, 1, later)
	}
	if len(r.entries) != maxAsked || r.find(4, later) != nil || r.find(4+maxAsked+10, later) == nil {
		t.Fatalf("capped ledger: %d entries from %d", len(r.entries), r.base)
	}
	// A chunk dense with queries is numbered at once, the cap kept.
	big := r.add(5*maxAsked, 2, later)
	if len(r.entries) != maxAsked || r.find(big+5*maxAsked-1, later) == nil || r.find(big, later) != nil {
		t.Fatalf("after %d queries at once: %d entries from %d", 5*maxAsked, len(r.entries), r.base)
	}
	for _, bad := range []*askedState{
		{Base: 0, Entries: []askedEntryState{{Answerer: 1, WaitMS: 1}}},
		{Base: 9, Entries: []askedEntryState{{Answerer: 0, WaitMS: 1}}},
		{Base: 9, Entries: []askedEntryState{{Answerer: 1, WaitMS: -1}}},
	} {
		got := restoreAsked(bad, now)
		if len(got.entries) != 0 {
			t.Fatalf("restored the impossible %+v", bad)
		}
		// The clients' records carry the refused ledger's numbers: a new
		// query must not take one of them.
		if n := got.add(1, 1, now); bad.Base > 0 && n != bad.Base+1 {
			t.Fatalf("after refusing %+v the next query is number %d, want %d", bad, n, bad.Base+1)
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
