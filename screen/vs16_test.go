package screen

import "testing"

// A VS16 that cannot widen its cell (no room: a wrap pending, or autowrap
// off in the last column) is dropped; and a cluster wide only by its VS16
// that a reflow moved past an early wrap is restored after that wrap.
// Each case ends with a restore that must draw the same screen, with the
// scrollback.
func TestVS16Restores(t *testing.T) {
	cases := []struct {
		name       string
		cols, rows int
		in         string
		resize     [2]int // after in, when not zero
		// wantCluster is whether the cell at cell holds a cluster.
		cell        [2]int
		wantCluster bool
	}{
		{
			// The cursor stays in the last column on the heart; the VS16
			// used to join the cell before it, "d", which a restore then
			// drew two columns wide.
			name: "autowrap off, the VS16 joined the cell before", cols: 5, rows: 2,
			in: "\x1b[?7labcd\u2764\ufe0f\x1b[?7h\x1b[1;1H\x1b[P", cell: [2]int{2, 0},
		},
		{
			// The heart, narrow in the last column with its wrap pending,
			// moves into the line by a delete; with its VS16 a restore
			// drew it there two columns wide.
			name: "wrap pending, then moved by DCH", cols: 5, rows: 2,
			in: "abcd\u2764\ufe0f\x1b[1;1H\x1b[2P", cell: [2]int{2, 0},
		},
		{
			name: "wrap pending, then moved by a reflow", cols: 5, rows: 3,
			in: "abcd\u2764\ufe0f", resize: [2]int{8, 3}, cell: [2]int{4, 0},
		},
		{
			// With autowrap off and the last column blank, there is room.
			name: "autowrap off, the VS16 widens into a blank last column", cols: 10, rows: 2,
			in: "\x1b[?7l01234567\u263a\ufe0f", cell: [2]int{8, 0}, wantCluster: true,
		},
		{
			// A VS16 with room still widens, and stays in its cluster.
			name: "room to widen", cols: 5, rows: 2,
			in: "ab\u2764\ufe0f", cell: [2]int{2, 0}, wantCluster: true,
		},
		{
			// p with its VS16 is two columns wide at columns 2 and 3; at
			// three columns it no longer fits after "ab", and wraps early.
			// Drawn in the last column to make that wrap again, a "p"
			// fits, so the restore used to put it there one column wide.
			name: "a VS16 cluster after an early wrap", cols: 5, rows: 3,
			in: "abp\ufe0f", resize: [2]int{3, 3}, cell: [2]int{0, 1}, wantCluster: true,
		},
		{
			name: "a keycap after an early wrap", cols: 6, rows: 3,
			in: "abc1\ufe0f\u20e3", resize: [2]int{4, 3}, cell: [2]int{0, 1}, wantCluster: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.cols, tc.rows, 10)
			s.Write([]byte(tc.in))
			if tc.resize[0] > 0 {
				s.Resize(tc.resize[0], tc.resize[1])
			}
			if c := cellAt(s, tc.cell[0], tc.cell[1]); (c.flags&cellCluster != 0) != tc.wantCluster {
				t.Errorf("cell %v is %q, a cluster: %v; want %v", tc.cell, s.cellText(nil, c), !tc.wantCluster, tc.wantCluster)
			}
			b := New(s.cols, s.rows, 10)
			b.Write(s.AppendRestore(nil))
			if d := diffModels(s, b, true); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s\nrestore %q", joinDiffs(d), s.AppendRestore(nil))
			}
		})
	}
}
