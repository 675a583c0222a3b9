package screen

import (
	"strings"
	"testing"
)

// TestRestoreKeepsKeyboardAndScrollModes: a client that attaches after the
// application turned on modifyOtherKeys (vim 9 does) or alternate scroll
// gets them turned on too, and a model fed the restore has them.
func TestRestoreKeepsKeyboardAndScrollModes(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"modifyOtherKeys 2", "\x1b[>4;2m", "\x1b[>4;2m"},
		{"modifyOtherKeys 1", "\x1b[>4;1m", "\x1b[>4;1m"},
		{"alternate scroll", "\x1b[?1007h", "\x1b[?1007h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(20, 4, 0)
			a.Write([]byte(tc.in + "text"))
			restore := string(a.AppendRestore(nil))
			if i := strings.LastIndex(restore, tc.want); i < strings.LastIndex(restore, "\x1b[2J") {
				t.Fatalf("restore does not turn it on after its reset: %q", restore)
			}
			b := New(20, 4, 0)
			b.Write([]byte(restore))
			if d := diffModels(a, b, true); len(d) > 0 {
				t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
			}
		})
	}
}

// TestModifyOtherKeys: CSI > 4 ; n m sets it, CSI > 4 m and CSI > 4 n reset
// it, RIS resets it.
func TestModifyOtherKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want int
	}{
		{"set 2", "\x1b[>4;2m", 2},
		{"no value resets", "\x1b[>4;2m\x1b[>4m", 0},
		{"set 0", "\x1b[>4;2m\x1b[>4;0m", 0},
		{"disable", "\x1b[>4;1m\x1b[>4n", 0},
		{"another resource is not it", "\x1b[>1;2m", 0},
		{"RIS", "\x1b[>4;2m\x1bc", 0},
		{"plain SGR is not it", "\x1b[4;2m", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(20, 4, 0)
			s.Write([]byte(tc.in))
			if got := int(s.modifyOtherKeys); got != tc.want {
				t.Fatalf("modifyOtherKeys %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLowPaletteColoursKeepTheirForm: 38;5;n and 48;5;n with n < 16 mean
// another colour than SGR 3x/9x where bold brightens colours 0-7, so a
// restore and an ANSI capture write them back as the application did.
func TestLowPaletteColoursKeepTheirForm(t *testing.T) {
	in := "\x1b[1;38;5;1mA\x1b[0;48;5;9mB\x1b[0;31mC\x1b[0;38;5;200mD\x1b[0;38:5:3mE\x1b[m"
	s := New(20, 4, 0)
	s.Write([]byte(in))
	capture := string(s.AppendText(nil, TextOptions{ANSI: true}))
	restore := string(s.AppendRestore(nil))
	for _, want := range []string{"38;5;1m", "48;5;9m", "31m", "38;5;200m", "38;5;3m"} {
		if !strings.Contains(capture, want) {
			t.Errorf("capture lacks %q: %q", want, capture)
		}
		if !strings.Contains(restore, want) {
			t.Errorf("restore lacks %q: %q", want, restore)
		}
	}
	for _, bad := range []string{";91m", ";101m", ";33m"} {
		if strings.Contains(capture, bad) || strings.Contains(restore, bad) {
			t.Errorf("a 256-colour form was rewritten to %q:\ncapture %q\nrestore %q", bad, capture, restore)
		}
	}
	b := New(20, 4, 0)
	b.Write([]byte(restore))
	if d := diffModels(s, b, true); len(d) > 0 {
		t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
	}
}
