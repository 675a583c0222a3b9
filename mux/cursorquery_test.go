package mux

import (
	"strings"
	"testing"
	"time"
)

// TestCursorQueryScan counts the queries in output split at every point,
// in two chunks and byte by byte.
func TestCursorQueryScan(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want int
	}{
		{"none", "hello\r\n\x1b[31mred\x1b[m", 0},
		{"CSI 6n", "\x1b[6n", 1},
		{"DECXCPR", "\x1b[?6n", 1},
		{"two and text", "a\x1b[6nb\x1b[?6nc", 2},
		{"back to back", "\x1b[6n\x1b[6n\x1b[?6n", 3},
		{"other DSR", "\x1b[5n\x1b[?5n\x1b[16n\x1b[?26n", 0},
		{"a start then a query", "\x1b[\x1b[6n", 1},
		{"ESC ESC", "\x1b\x1b[?6n", 1},
		{"cut short at the end", "\x1b[?6", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.out); i++ {
				var q cursorQueryScan
				if got := q.count([]byte(tc.out[:i])) + q.count([]byte(tc.out[i:])); got != tc.want {
					t.Fatalf("split at %d: %d queries, want %d", i, got, tc.want)
				}
			}
			var q cursorQueryScan
			got := 0
			for i := range len(tc.out) {
				got += q.count([]byte(tc.out[i : i+1]))
			}
			if got != tc.want {
				t.Fatalf("byte at a time: %d queries, want %d", got, tc.want)
			}
		})
	}
}

// TestShiftF3OrCursorReport: CSI 1;2R is an answer while a query is owed,
// and Shift+F3 once the answers are in, or the wait for them is over.
func TestShiftF3OrCursorReport(t *testing.T) {
	kind := func(c *inputClassifier) string {
		var got runs
		got.add(c.classify([]byte("\x1b[1;2R"), false))
		return formatRuns(got)
	}
	c := newInputClassifier()
	c.cursorQueries.owe(2, time.Now())
	if got := kind(c); got != formatRuns([]run{report("\x1b[1;2R")}) {
		t.Fatalf("the first of two owed answers: %s", got)
	}
	if got := formatRuns(func() (r runs) { r.add(c.classify([]byte("\x1b[7;9R"), false)); return }()); got != formatRuns([]run{report("\x1b[7;9R")}) {
		t.Fatalf("the second: %s", got)
	}
	if got := kind(c); got != formatRuns([]run{act("\x1b[1;2R")}) {
		t.Fatalf("with every answer in: %s", got)
	}
	c.cursorQueries.owe(1, time.Now().Add(-cursorQueryWait-time.Second))
	if got := kind(c); got != formatRuns([]run{act("\x1b[1;2R")}) {
		t.Fatalf("with the wait for an answer over: %s", got)
	}
	c.cursorQueries.owe(1000, time.Now())
	if got := c.cursorQueries.owed(time.Now()); got != maxCursorQueriesOwed {
		t.Fatalf("owed %d after 1000 queries, want the cap %d", got, maxCursorQueriesOwed)
	}
	// The count goes over in a hand-off.
	r, err := restoreClassifier(c.state())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.cursorQueries.owed(time.Now()); got != maxCursorQueriesOwed {
		t.Fatalf("a restored classifier owes %d, want %d", got, maxCursorQueriesOwed)
	}
}

// BenchmarkCursorQueryScan is the cost the scan adds to each chunk of
// output fanned out: plain text, and text coloured word by word.
func BenchmarkCursorQueryScan(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"plain", "00000001 The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs\r\n"},
		{"coloured", "\x1b[1;34mdrwxr-xr-x\x1b[0m 2 \x1b[33muser\x1b[0m \x1b[32m4096\x1b[0m Dec  5 \x1b[1;36mfile.go\x1b[0m\r\n"},
	} {
		chunk := []byte(strings.Repeat(tc.line, 32<<10/len(tc.line)))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			var q cursorQueryScan
			for range b.N {
				if q.count(chunk) != 0 {
					b.Fatal("a query in the chunk")
				}
			}
		})
	}
}
