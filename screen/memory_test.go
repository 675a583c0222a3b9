package screen

import (
	"testing"
	"unsafe"
)

// TestMemory checks the heap a model holds against the targets (a fresh idle
// 120x40 screen under 64 KiB, a full 2,000-line scrollback at 120 columns
// under 4 MiB). It measures sizes, not time.
func TestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	if idle := heapOf(func() any { return New(120, 40, 2000) }); idle > 64<<10 {
		t.Errorf("idle 120x40 screen holds %d bytes, want under 64 KiB", idle)
	}
	if full := heapOf(func() any { return fullScreen() }); full > 4<<20 {
		t.Errorf("120x40 screen with 2,000 lines of scrollback holds %d bytes, want under 4 MiB", full)
	}
}

// TestIdleScreenHoldsOnlyWhatWasDrawn: a screen showing one prompt line
// holds the cells of that prompt, not of every row nor of the prompt's whole
// row: an idle server holds one of these per session. An 80x24 screen's
// rows are 15 KiB, the prompt's row 640 bytes; the parser (buffers of its
// own) is pooled between writes, the style table makes its index on first
// use, and the cluster and link tables, the tab stops and the parser's
// handler are shared or made on first use too, which keeps the Screen
// itself in the 448-byte size class (896 with them). An idle prompt
// measures about 0.55 KiB alone, 1.1 KiB in the whole package's run (1.0
// and 1.6 with 32-byte lines, 1.5 and 2.1 with the prompt's whole row, 2.2
// and 2.7 before the sharing), hence the limit.
func TestIdleScreenHoldsOnlyWhatWasDrawn(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 64
	per := heapOf(func() any {
		screens := make([]*Screen, n)
		for i := range screens {
			screens[i] = New(80, 24, 2000)
			screens[i].Write([]byte("user@host:~$ "))
		}
		return screens
	}) / n
	if per > 1536 {
		t.Errorf("an 80x24 screen showing a prompt holds %d bytes, want under 1.5 KiB", per)
	}
}

// TestLineIs16Bytes: every row of every screen and scrollback line has one,
// and a []cell alone would take it to 32.
func TestLineIs16Bytes(t *testing.T) {
	if n := unsafe.Sizeof(line{}); n != 16 {
		t.Fatalf("a line is %d bytes, want 16", n)
	}
}

// TestLineHoldsCellsAsFarAsDrawn: a line's cells reach as far as anything
// was drawn on it, growing a few times while a line is typed, and an erase
// to the end of the line gives back what it erased.
func TestLineHoldsCellsAsFarAsDrawn(t *testing.T) {
	s := New(80, 24, 0)
	s.Write([]byte("user@host:~$ "))
	l := s.g.line(0)
	if len(l.cells()) != 13 || cap(l.cells()) != minLineCells {
		t.Fatalf("prompt line holds %d cells (room for %d), want 13 (room for %d)", len(l.cells()), cap(l.cells()), minLineCells)
	}
	grew := 0
	for range 60 {
		before := cap(l.cells())
		s.Write([]byte("x"))
		if cap(l.cells()) != before {
			grew++
		}
	}
	if len(l.cells()) != 73 || grew > 3 {
		t.Fatalf("after typing, %d cells after %d grows, want 73 after at most 3", len(l.cells()), grew)
	}
	s.Write([]byte("\x1b[20G\x1b[K"))
	if len(l.cells()) != 19 {
		t.Fatalf("after EL from column 20, %d cells, want 19", len(l.cells()))
	}
	if got := screenLines(s); len(got) != 1 || got[0] != "user@host:~$ xxxxxx" {
		t.Fatalf("screen %q", got)
	}
}
