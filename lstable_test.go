package main

import "testing"

func TestShownCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		want  string
	}{
		{"plain words", []string{"sh", "-c", "sleep 600"}, "sh -c sleep 600"},
		{"a script of several lines", []string{"sh", "-c", "make\nmake install"}, `sh -c make\nmake install`},
		{"a tab and a carriage return", []string{"a\tb\rc"}, `a\tb\rc`},
		{"escape sequences", []string{"\x1b]0;pwned\a\x1b[2J"}, `\e]0;pwned\x07\e[2J`},
		{"DEL and a C1 control", []string{"a\x7fb\u0085c"}, `a\x7fb\x85c`},
		{"invalid UTF-8", []string{"a\xffb"}, `a\xffb`},
		{"wide and accented text kept", []string{"echo", "日本 é"}, "echo 日本 é"},
		{"a right-to-left override", []string{"echo", "a\u202eb", "\u2066c\u2069"}, `echo a\u202eb \u2066c\u2069`},
		{"a backslash kept", []string{`a\nb`}, `a\nb`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shownCommand(tc.words); got != tc.want {
				t.Errorf("shownCommand(%q) = %q, want %q", tc.words, got, tc.want)
			}
		})
	}
}
