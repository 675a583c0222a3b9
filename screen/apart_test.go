package screen

import (
	"strings"
	"testing"
)

// The round trips of joiners drawn apart are restoreStreams' cases; these
// are the two states a restore draws apart but cannot make exactly.

// A run of joiners that ends a wrapped line is drawn from the right, so its
// last cell is not the last one drawn: the terminal wraps no more there,
// and the restored line is not marked as continued. What it shows is the
// same.
func TestRestoreDrawsJoinersEndingAWrappedLineApart(t *testing.T) {
	a := New(30, 10, 100)
	a.Write([]byte("\x1b[1;29H\U0001F3FDx\x1b[1;27H\u4e16"))
	b := New(30, 10, 100)
	b.Write(a.AppendRestore(nil))
	if d := diffModels(a, b, true); len(d) > 0 {
		t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
	}
}

// With the cursor's wrap pending after a joiner in the last column, the
// restore cannot draw that cell again to make the wrap pending (it would
// join the cell before it): the cursor goes to the last column, with no
// wrap pending, and every cell is as it was.
func TestRestoreLeavesAJoinerUnderAPendingWrapApart(t *testing.T) {
	a := New(30, 10, 100)
	a.Write([]byte("\U0001F3FD\x1b[14b"))
	if !a.pendingWrap {
		t.Fatal("the screen has no wrap pending")
	}
	b := New(30, 10, 100)
	b.Write(a.AppendRestore(nil))
	want := "cursor 29,0 wrap true vs 29,0 wrap false"
	if d := diffModels(a, b, true); len(d) != 1 || d[0] != want {
		t.Fatalf("restored screen differs:\n%s\nwant only: %s", joinDiffs(d), want)
	}
	if got := screenLines(b)[0]; got != strings.Repeat("\U0001F3FD", 15) {
		t.Fatalf("the restored row is %+q", got)
	}
}
