package client

import "testing"

func TestNewer(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		want bool
	}{
		{"patch", "1.2.4", "1.2.3", true},
		{"older", "1.2.3", "1.2.4", false},
		{"same", "1.2.3", "1.2.3", false},
		{"numeric not lexical", "1.10.0", "1.9.0", true},
		{"shorter", "1.2", "1.2.0", false},
		{"longer", "1.2.0.1", "1.2", true},
		{"v prefix", "v2.0.0", "1.9.9", true},
		{"suffix ignored", "1.2.3-rc1", "1.2.3", false},
		{"unreadable", "dev", "1.0.0", false},
		{"unreadable other", "1.0.0", "dev", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Newer(tt.a, tt.b); got != tt.want {
				t.Errorf("Newer(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
