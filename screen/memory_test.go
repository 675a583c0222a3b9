package screen

import "testing"

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
// holds the cells of that line, not of every row: an idle server holds one
// of these per session. An 80x24 screen's rows are 15 KiB; the parser
// (buffers of its own) is pooled between writes, the style table makes its
// index on first use, and the cluster and link tables, the tab stops and
// the parser's handler are shared or made on first use too, which keeps
// the Screen itself in the 448-byte size class (896 with them). An idle
// prompt measures about 1.5 KiB alone, 2.1 KiB in the whole package's run
// (2.2 and 2.7 before the sharing), hence the limit.
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
	if per > 2304 {
		t.Errorf("an 80x24 screen showing a prompt holds %d bytes, want under 2.25 KiB", per)
	}
}
