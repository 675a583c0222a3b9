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
