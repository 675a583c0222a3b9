package mux

import (
	"fmt"
	"testing"
)

// A session remembers the last maxShown terminals recorded, and a terminal
// recorded again becomes the newest.
func TestShownTermsBounded(t *testing.T) {
	var s shownTerms
	for i := range maxShown + 4 {
		s.set(fmt.Sprint(i), uint64(i))
	}
	s.set("5", 500) // recorded again: now the newest
	s.set("new", 1) // so 4, not 5, goes
	if len(s.ids) != maxShown {
		t.Fatalf("%d terminals kept, want %d", len(s.ids), maxShown)
	}
	for _, gone := range []string{"0", "1", "2", "3", "4"} {
		if _, ok := s.get(gone); ok {
			t.Errorf("terminal %s still remembered", gone)
		}
	}
	if n, ok := s.get("5"); !ok || n != 500 {
		t.Errorf("terminal 5: %d %v, want 500", n, ok)
	}
	if n, ok := s.get("new"); !ok || n != 1 {
		t.Errorf("terminal new: %d %v, want 1", n, ok)
	}
}
