package screen

import "testing"

// TestDECCOLM: ?3h and ?3l keep the size (the client's) but do the rest of
// a column change, as a VT100 and tmux do: margins reset, screen erased,
// cursor home. vttest relies on it to clear its screens.
func TestDECCOLM(t *testing.T) {
	for _, set := range []string{"h", "l"} {
		t.Run("?3"+set, func(t *testing.T) {
			s := New(10, 4, 0)
			s.Write([]byte("abc\r\ndef\x1b[2;3r\x1b[3;4H\x1b[?3" + set + "x"))
			if got := screenLines(s); !equalLines(got, []string{"x"}) {
				t.Fatalf("screen\n%s", quoteLines(got))
			}
			if s.top != 0 || s.bottom != 4 || s.cols != 10 || s.rows != 4 {
				t.Fatalf("region %d-%d, size %dx%d", s.top, s.bottom, s.cols, s.rows)
			}
			if s.x != 1 || s.y != 0 {
				t.Fatalf("cursor %d,%d", s.x, s.y)
			}
		})
	}
}
