package wire_test

import (
	"errors"
	"strings"
	"testing"

	"wr/wire"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name  string
		input string
		ok    bool
	}{
		{"single letter", "a", true},
		{"every allowed class", "Work_2.log-x", true},
		{"digits first", "0day", true},
		{"inner dot and dash", "a.-b", true},
		{"64 characters", strings.Repeat("a", 64), true},

		{"empty", "", false},
		{"65 characters", strings.Repeat("a", 65), false},
		{"leading dash", "-x", false},
		{"leading dot", ".x", false},
		{"dot", ".", false},
		{"dot dot", "..", false},
		{"parent path", "../x", false},
		{"slash", "a/b", false},
		{"space", "a b", false},
		{"tab", "a\tb", false},
		{"newline", "a\nb", false},
		{"NUL", "a\x00b", false},
		{"shell metacharacters", "a;rm", false},
		{"glob", "a*", false},
		{"colon", "a:b", false},
		{"unicode letter", "café", false},
		{"unicode only", "работа", false},
		{"invalid UTF-8", "a\xffb", false},
		{"32 two-byte runes are 64 bytes but not allowed", strings.Repeat("é", 32), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := wire.CheckName(tt.input)
			if tt.ok {
				if err != nil {
					t.Errorf("CheckName(%q) = %v, want nil", tt.input, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckName(%q) = nil, want an error", tt.input)
			}
			if !errors.Is(err, wire.ErrBadName) {
				t.Errorf("CheckName(%q) = %v, does not wrap ErrBadName", tt.input, err)
			}
			if !strings.Contains(err.Error(), wire.NameRule) {
				t.Errorf("error %q does not state the rule", err)
			}
		})
	}
}
