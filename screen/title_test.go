package screen

import (
	"fmt"
	"strings"
	"testing"
)

// TestTitleStack: CSI 22 t pushes the title and CSI 23 t pops it back, as
// xterm does, so a program that sets its own title (vim with "set title")
// gives the shell's back when it quits.
func TestTitleStack(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"vim quits", "\x1b]2;shell\x07\x1b[22;0t\x1b]2;Thanks for flying Vim\x07\x1b[23;0t", "shell"},
		{"default parameter is both", "\x1b]2;shell\x07\x1b[22t\x1b]2;vim\x07\x1b[23t", "shell"},
		{"window title only", "\x1b]2;shell\x07\x1b[22;2t\x1b]0;vim\x07\x1b[23;2t", "shell"},
		{"icon name only leaves the title", "\x1b]2;shell\x07\x1b[22;1t\x1b]2;vim\x07\x1b[23;0t", "vim"},
		{"pop of the icon name leaves the title", "\x1b]2;shell\x07\x1b[22;0t\x1b]2;vim\x07\x1b[23;1t", "vim"},
		{"nested", "\x1b]2;a\x07\x1b[22t\x1b]2;b\x07\x1b[22t\x1b]2;c\x07\x1b[23t\x1b[23t", "a"},
		{"pop of an empty stack", "\x1b]2;shell\x07\x1b[23t", "shell"},
		{"an empty title pushed", "\x1b[22t\x1b]2;vim\x07\x1b[23t", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(20, 4, 0)
			s.Write([]byte(tc.in))
			if s.title != tc.want {
				t.Fatalf("title %q, want %q", s.title, tc.want)
			}
			// A terminal fed the restore shows the same.
			b := New(20, 4, 0)
			b.Write(s.AppendRestore(nil))
			if b.title != tc.want {
				t.Fatalf("restored title %q, want %q", b.title, tc.want)
			}
		})
	}
}

// TestTitleStackRestored: a client that attaches while vim runs gets the
// stack too, so vim's pop on exit shows the shell's title there.
func TestTitleStackRestored(t *testing.T) {
	a := New(20, 4, 0)
	a.Write([]byte("\x1b]2;shell\x07\x1b[22;0t\x1b[22;1t\x1b]2;vim\x07"))
	b := New(20, 4, 0)
	b.Write(a.AppendRestore(nil))
	if b.title != "vim" {
		t.Fatalf("restored title %q", b.title)
	}
	pops := []byte("\x1b[23;0t\x1b[23;0t")
	a.Write(pops)
	b.Write(pops)
	if a.title != "shell" || b.title != "shell" {
		t.Fatalf("after the pops: %q and restored %q, want shell", a.title, b.title)
	}
}

// TestTitleStackDepth: the stack keeps the last maxTitleStack (10, as
// xterm) pushes; a pop past them leaves the title as it is.
func TestTitleStackDepth(t *testing.T) {
	s := New(20, 4, 0)
	var in strings.Builder
	for i := range maxTitleStack + 2 {
		fmt.Fprintf(&in, "\x1b]2;t%d\x07\x1b[22t", i)
	}
	in.WriteString("\x1b]2;top\x07")
	s.Write([]byte(in.String()))
	for i := maxTitleStack + 1; i >= 2; i-- {
		s.Write([]byte("\x1b[23t"))
		if want := fmt.Sprintf("t%d", i); s.title != want {
			t.Fatalf("pop gave %q, want %q", s.title, want)
		}
	}
	s.Write([]byte("\x1b[23t"))
	if s.title != "t2" {
		t.Fatalf("a pop past the stack's depth gave %q, want t2 kept", s.title)
	}
}
