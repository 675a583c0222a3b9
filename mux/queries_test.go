package mux

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestQueryScan finds the queries in output split at every point, in two
// chunks and byte by byte.
func TestQueryScan(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want []queryKind
	}{
		{"none", "hello\r\n\x1b[31mred\x1b[m", nil},
		{"CSI 6n", "\x1b[6n", []queryKind{queryCursor}},
		{"DECXCPR", "\x1b[?6n", []queryKind{queryCursor}},
		{"two and text", "a\x1b[6nb\x1b[?6nc", []queryKind{queryCursor, queryCursor}},
		{"other DSR", "\x1b[?5n\x1b[16n\x1b[?26n\x1b[6;1n", nil},
		{"status and theme", "\x1b[5n\x1b[?996n", []queryKind{queryStatus, queryTheme}},
		{"a start then a query", "\x1b[\x1b[6n", []queryKind{queryCursor}},
		{"ESC ESC", "\x1b\x1b[?6n", []queryKind{queryCursor}},
		{"cut short at the end", "\x1b[?6", nil},
		{"device attributes", "\x1b[c\x1b[0c\x1b[>c\x1b[>0c\x1b[=c", []queryKind{queryDA1, queryDA1, queryDA2, queryDA2, queryDA3}},
		{"not device attributes", "\x1b[1c\x1b[>1c\x1b[?c", nil},
		{"modes", "\x1b[?2026$p\x1b[4$p\x1b[!p\x1b[?25h", []queryKind{queryMode, queryMode}},
		{"window reports", "\x1b[14t\x1b[18t\x1b[14;2t\x1b[22;0t\x1b[8;24;80t\x1b[21t",
			[]queryKind{windowQuery(14), windowQuery(18), windowQuery(14), windowQuery(21)}},
		{"kitty flags and version", "\x1b[?u\x1b[>1u\x1b[<u\x1b[>q\x1b[>0q\x1b[q", []queryKind{queryKitty, queryVersion, queryVersion}},
		{"colours", "\x1b]11;?\x07\x1b]10;?\x1b\\\x1b]4;1;?;2;?\x07", []queryKind{oscQuery(11), oscQuery(10), oscQuery(4), oscQuery(4)}},
		{"colours set", "\x1b]11;rgb:0/0/0\x07\x1b]4;1;#fff\x1b\\\x1b]10;??\x07", nil},
		{"clipboard", "\x1b]52;c;?\x07\x1b]52;c;aGVsbG8=\x07", []queryKind{oscQuery(52)}},
		{"an index or a selection of ? asks nothing", "\x1b]4;?;?\x07\x1b]52;?\x07", []queryKind{oscQuery(4)}},
		{"title and link hold no query", "\x1b]0;a ?\x07\x1b]8;;http://x/?\x1b\\\x1b[6n", []queryKind{queryCursor}},
		{"an ESC ends a string", "\x1b]0;a\x1b[6n\x07", []queryKind{queryCursor}},
		{"a query cut short by an ESC asks nothing", "\x1b]11;?\x1b[6n\x1bP$qm\x1b[c", []queryKind{queryCursor, queryDA1}},
		{"dynamic colours, field by field", "\x1b]10;?;?\x07\x1b]10;red;?\x07\x1b]19;?;?\x07",
			[]queryKind{oscQuery(10), oscQuery(11), oscQuery(11), oscQuery(19)}},
		{"out of order CSIs are ignored", "\x1b[6?n\x1b[?2026$1p\x1b[>?c", nil},
		{"a BEL is part of a DCS", "\x1bP$q\x07m\x1b\\", []queryKind{querySetting}},
		{"settings", "\x1bP$qm\x1b\\\x1bP+q544e\x1b\\\x1bPq#0;2;0;0;0\x1b\\", []queryKind{querySetting}},
		{"a string's body asks nothing", "\x1b_Gf=100;?[6n\x1b\\\x1bX?[c\x07\x1b\\", nil},
		{"CAN cancels", "\x1b[6\x18n\x1b]11;?\x18\x07", nil},
		{"an ESC inside a CSI starts afresh", "\x1b[?\x1b[6n", []queryKind{queryCursor}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			scan := func(chunks ...string) []queryKind {
				var q queryScan
				var got []queryKind
				for _, c := range chunks {
					got = append(got, q.scan([]byte(c))...)
				}
				return got
			}
			for i := 0; i <= len(tc.out); i++ {
				if got := scan(tc.out[:i], tc.out[i:]); !slices.Equal(got, tc.want) {
					t.Fatalf("split at %d: %v, want %v", i, got, tc.want)
				}
			}
			var bytes []string
			for i := range len(tc.out) {
				bytes = append(bytes, tc.out[i:i+1])
			}
			if got := scan(bytes...); !slices.Equal(got, tc.want) {
				t.Fatalf("byte at a time: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAnswerKinds: each answer a terminal gives counts off the query it
// answers, and nothing else.
func TestAnswerKinds(t *testing.T) {
	cases := []struct {
		name, query, answer string
	}{
		{"cursor", "\x1b[6n", "\x1b[5;7R"},
		{"DECXCPR", "\x1b[?6n", "\x1b[?5;7;1R"},
		{"status", "\x1b[5n", "\x1b[0n"},
		{"theme", "\x1b[?996n", "\x1b[?997;1n"},
		{"DA1", "\x1b[c", "\x1b[?62;22c"},
		{"DA2", "\x1b[>c", "\x1b[>41;390;0c"},
		{"DA3", "\x1b[=c", "\x1bP!|00000000\x1b\\"},
		{"mode", "\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"window size", "\x1b[14t", "\x1b[4;600;800t"},
		{"iconified", "\x1b[11t", "\x1b[1t"},
		{"title", "\x1b[21t", "\x1b]lvim\x1b\\"},
		{"icon label", "\x1b[20t", "\x1b]Lvim\x1b\\"},
		{"kitty flags", "\x1b[?u", "\x1b[?1u"},
		{"version", "\x1b[>q", "\x1bP>|XTerm(390)\x1b\\"},
		{"background", "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"the background, second of two", "\x1b]10;red;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"palette", "\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\"},
		{"setting", "\x1bP$q m\x1b\\", "\x1bP1$r0m\x1b\\"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var scan queryScan
			kinds := scan.scan([]byte(tc.query))
			if len(kinds) != 1 {
				t.Fatalf("%q scanned as %v, want one query", tc.query, kinds)
			}
			c := newInputClassifier()
			c.owed.owe(kinds, 40, 7, time.Now())
			out, segs := c.classify([]byte(tc.answer), false)
			if len(segs) != 1 || segs[0].kind != inputAnswer || segs[0].query.seq != 40 || segs[0].query.answerer != 7 || string(out) != tc.answer {
				t.Fatalf("classified as %+v, want one answer to query 40, asked while client 7 answered", segs)
			}
			// Answered: the same report again is owed nothing.
			var got runs
			got.add(c.classify([]byte(tc.answer), false))
			if formatRuns(got) != formatRuns([]run{report(tc.answer)}) {
				t.Fatalf("a second answer: %s", formatRuns(got))
			}
		})
	}
}

// TestOwedInOrder: a terminal answers one kind in the order it was asked,
// so each answer is matched with its own query, and a kind it never
// answers holds up no other.
func TestOwedInOrder(t *testing.T) {
	var o owedAnswers
	now := time.Now()
	o.owe([]queryKind{queryDA1, queryDA1}, 1, 1, now)
	o.owe([]queryKind{queryDA1, querySetting}, 3, 2, now)
	if !o.owesOthers(2) {
		t.Fatal("owesOthers(2) is false with two of client 1's answers owed")
	}
	for i, want := range []owedAnswer{{seq: 1, answerer: 1}, {seq: 2, answerer: 1}, {seq: 3, answerer: 2}} {
		if a, owed := o.answered(queryDA1, now); !owed || a.seq != want.seq || a.answerer != want.answerer {
			t.Fatalf("answer %d: %+v owed %v, want %+v", i, a, owed, want)
		}
	}
	if o.owesOthers(2) {
		t.Fatal("owesOthers(2) is true with only its own answer owed")
	}
	if _, owed := o.answered(queryDA1, now); owed {
		t.Fatal("a fourth DA1 answer was owed")
	}
	if a, owed := o.answered(querySetting, now); !owed || a.seq != 4 || a.answerer != 2 {
		t.Fatalf("the setting: %+v owed %v", a, owed)
	}
	// Each lapses after its own wait, however often the kind is asked
	// since: a query another answered, which this terminal never answers,
	// does not keep it from passing as the owner's for longer.
	o.owe([]queryKind{queryTheme}, 5, 1, now.Add(-answerWait))
	o.owe([]queryKind{queryTheme}, 6, 2, now)
	if o.owesOthers(2) {
		t.Fatal("owesOthers(2) is true after the other's wait")
	}
	if n := o.count(queryTheme, now); n != 1 {
		t.Fatalf("%d theme answers owed, want the one not lapsed", n)
	}
	// Past the cap, the oldest go.
	for i := range 2 * maxOwed {
		o.owe([]queryKind{queryMode}, uint64(10+i), 1+i, now)
	}
	if n := o.count(queryMode, now); n != maxOwed {
		t.Fatalf("%d owed after %d queries, want the cap %d", n, 2*maxOwed, maxOwed)
	}
	if a, _ := o.answered(queryMode, now); a.answerer != 1+maxOwed {
		t.Fatalf("the oldest kept was asked while %d answered, want %d", a.answerer, 1+maxOwed)
	}
	// A stand-in's: its own to answer.
	var stand owedAnswers
	stand.owe([]queryKind{queryKitty, queryDA1}, 500, 1, now)
	stand.reassign(500, 2, 9)
	if stand.owesOthers(9) {
		t.Fatal("owesOthers(9) after the queries were given to 9")
	}
	// Dropped unsent: owed no more.
	o.drop(6, 1)
	o.drop(uint64(10+maxOwed+1), maxOwed-2)
	if o.count(queryTheme, now) != 0 {
		t.Fatal("a theme answer owed after its query was dropped")
	}
	if a, owed := o.answered(queryMode, now); !owed || a.seq != uint64(10+2*maxOwed-1) {
		t.Fatalf("after dropping all but the newest: %+v owed %v", a, owed)
	}
}

// TestShiftF3OrCursorReport: CSI 1;2R is an answer while a query is owed,
// and Shift+F3 once the answers are in, or the wait for them is over.
func TestShiftF3OrCursorReport(t *testing.T) {
	classify := func(c *inputClassifier, in string) string {
		var got runs
		got.add(c.classify([]byte(in), false))
		return formatRuns(got)
	}
	c := newInputClassifier()
	cursor := []queryKind{queryCursor}
	c.owed.owe(cursor, 1, 1, time.Now())
	c.owed.owe(cursor, 2, 1, time.Now())
	if got := classify(c, "\x1b[1;2R"); got != formatRuns([]run{{inputAnswer, "\x1b[1;2R"}}) {
		t.Fatalf("the first of two owed answers: %s", got)
	}
	if got := classify(c, "\x1b[7;9R"); got != formatRuns([]run{{inputAnswer, "\x1b[7;9R"}}) {
		t.Fatalf("the second: %s", got)
	}
	if got := classify(c, "\x1b[1;2R"); got != formatRuns([]run{act("\x1b[1;2R")}) {
		t.Fatalf("with every answer in: %s", got)
	}
	if got := classify(c, "\x1b[7;9R"); got != formatRuns([]run{report("\x1b[7;9R")}) {
		t.Fatalf("a report owed nothing: %s", got)
	}
	c.owed.owe(cursor, 3, 1, time.Now().Add(-answerWait-time.Second))
	if got := classify(c, "\x1b[1;2R"); got != formatRuns([]run{act("\x1b[1;2R")}) {
		t.Fatalf("with the wait for an answer over: %s", got)
	}
}

// TestOwedAnswersHandOff: what a terminal owes goes over in a hand-off, and
// an older server's count of cursor queries is answered by whoever answers
// for the session.
func TestOwedAnswersHandOff(t *testing.T) {
	now := time.Now()
	c := newInputClassifier()
	c.owed.owe([]queryKind{queryDA1}, 7, 3, now.Add(-answerWait)) // lapsed by now, in front of the next
	c.owed.owe([]queryKind{queryCursor, queryDA1}, 8, 3, now.Add(-answerWait+time.Millisecond))
	c.owed.owe([]queryKind{queryCursor}, 10, answeredByWr, now)
	c.state()
	st := c.state() // writing it down left the record as it was
	if st.CursorQueries != 2 {
		t.Fatalf("CursorQueries %d for an older server, want 2", st.CursorQueries)
	}
	r, err := restoreClassifier(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		k        queryKind
		owed     bool
		seq      uint64
		answerer int
	}{{queryCursor, true, 8, 3}, {queryCursor, true, 10, answeredByWr}, {queryDA1, true, 9, 3}, {queryDA1, false, 0, 0}} {
		if a, owed := r.owed.answered(want.k, now); owed != want.owed || a.seq != want.seq || a.answerer != want.answerer {
			t.Fatalf("restored, %v: %+v owed %v, want %+v", want.k, a, owed, want)
		}
	}
	r, err = restoreClassifier(classifierState{CursorQueries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a, owed := r.owed.answered(queryCursor, now); !owed || a.answerer != answererUnknown || a.seq != 0 {
		t.Fatalf("an older server's count: %+v owed %v", a, owed)
	}
	for _, bad := range [][]owedState{
		{{Kind: queryDA1}},
		{{Kind: queryDA1, Seqs: []uint64{1}, Answerers: []int{1}, WaitMS: []int64{10, 10}}},
		{{Kind: queryDA1, Seqs: []uint64{1}, Answerers: []int{0}, WaitMS: []int64{10}}},
		{{Kind: queryDA1, Seqs: []uint64{1}, Answerers: []int{1}, WaitMS: []int64{-1}}},
		{{Kind: 0, Seqs: []uint64{1}, Answerers: []int{1}, WaitMS: []int64{10}}},
	} {
		if _, err := restoreClassifier(classifierState{Owed: bad}); err == nil {
			t.Fatalf("restored the impossible %+v", bad)
		}
	}
}

// BenchmarkQueryScan is the cost the scan adds to each chunk of output
// fanned out: plain text, and text coloured word by word.
func BenchmarkQueryScan(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"plain", "00000001 The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs\r\n"},
		{"coloured", "\x1b[1;34mdrwxr-xr-x\x1b[0m 2 \x1b[33muser\x1b[0m \x1b[32m4096\x1b[0m Dec  5 \x1b[1;36mfile.go\x1b[0m\r\n"},
	} {
		chunk := []byte(strings.Repeat(tc.line, 32<<10/len(tc.line)))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			var q queryScan
			for range b.N {
				if len(q.scan(chunk)) != 0 {
					b.Fatal("a query in the chunk")
				}
			}
		})
	}
}

// FuzzQueryScan: a chunk split anywhere holds the queries it holds whole.
func FuzzQueryScan(f *testing.F) {
	f.Add([]byte("\x1b[6n\x1b]11;?\x07\x1bP$qm\x1b\\"), 3)
	f.Add([]byte("\x1b[?2026$p\x1b[14t\x1b[>q"), 7)
	f.Fuzz(func(t *testing.T, out []byte, at int) {
		if at < 0 || at > len(out) {
			return
		}
		var whole, split queryScan
		want := slices.Clone(whole.scan(out))
		got := append(slices.Clone(split.scan(out[:at])), split.scan(out[at:])...)
		if !slices.Equal(got, want) {
			t.Fatalf("%q split at %d: %v, whole %v", out, at, got, want)
		}
	})
}

// TestAnswersThatWentOutUndecided: an answer that goes out as the owner's
// (passed through, or the rest of one whose start was) is listed for the
// session to mark in its ledger; one decided by its segment is not.
func TestAnswersThatWentOutUndecided(t *testing.T) {
	da1 := []queryKind{queryDA1}
	for _, tc := range []struct {
		name   string
		frames []string
		pass   []bool
		want   int // answers listed after the last frame
	}{
		{"passed through", []string{"\x1b[?6c"}, []bool{true}, 1},
		{"decided", []string{"\x1b[?6c"}, []bool{false}, 0},
		{"its start passed through", []string{"\x1b[?6", "c"}, []bool{true, false}, 1},
		{"a string's ST after it", []string{"\x1b]11;rgb:0/0/0\x1b", "\\"}, []bool{true, true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newInputClassifier()
			c.owed.owe(da1, 5, 1, time.Now())
			c.owed.owe([]queryKind{oscQuery(11)}, 6, 1, time.Now())
			for i, f := range tc.frames {
				c.classify([]byte(f), tc.pass[i])
			}
			if len(c.answered) != tc.want {
				t.Fatalf("listed %+v, want %d", c.answered, tc.want)
			}
		})
	}
}
