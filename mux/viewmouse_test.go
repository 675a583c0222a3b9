package mux

import "testing"

func TestViewMouse(t *testing.T) {
	cases := []struct {
		name, in, want string
		dx, dy         int
	}{
		{"SGR wheel moved", "\x1b[<64;5;3M", "\x1b[<64;15;23M", 10, 20},
		{"SGR motion moved", "\x1b[<35;1;1m", "\x1b[<35;11;21m", 10, 20},
		{"urxvt wheel moved", "\x1b[96;5;3M", "\x1b[96;15;23M", 10, 20},
		{"X10 wheel moved", "\x1b[M`%#", "\x1b[M`/7", 10, 20},
		{"two reports", "\x1b[<64;1;1M\x1b[<65;2;2M", "\x1b[<64;2;2M\x1b[<65;3;3M", 1, 1},
		{"past the screen's right edge dropped", "\x1b[<64;75;3M", "", 10, 0},
		{"past its bottom dropped", "\x1b[<64;5;24M", "", 0, 1},
		{"one of two dropped", "\x1b[<64;80;1M\x1b[<64;81;1M", "\x1b[<64;80;1M", 0, 0},
		{"a control held inside passed on", "\x1b[<64;10\r;5M", "\x1b[<64;10\r;5M", 3, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(viewMouse(nil, []byte(tc.in), tc.dx, tc.dy, 80, 24)); got != tc.want {
				t.Errorf("viewMouse(%q, %d, %d) = %q, want %q", tc.in, tc.dx, tc.dy, got, tc.want)
			}
		})
	}
}
