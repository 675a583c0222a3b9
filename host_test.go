package main

import (
	"errors"
	"testing"
)

// HOST:NAME splits at the last ':' (a name has none), and a bad host or
// name is a usage error.
func TestHostNames(t *testing.T) {
	cases := []struct {
		name, arg, host, session string
		bad                      bool
	}{
		{"local", "work", "", "work", false},
		{"alias", "dev:work", "dev", "work", false},
		{"user at host", "me@dev.example.com:build", "me@dev.example.com", "build", false},
		{"IPv6 in brackets", "[::1]:s", "[::1]", "s", false},
		{"no host", ":work", "", "work", true},
		{"host like a flag", "-oProxyCommand=x:work", "-oProxyCommand=x", "work", true},
		{"no name", "dev:", "dev", "", true},
		{"bad name", "dev:a b", "dev", "a b", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, session := splitHost(c.arg)
			if host != c.host || session != c.session {
				t.Errorf("splitHost(%q) = %q, %q; want %q, %q", c.arg, host, session, c.host, c.session)
			}
			err := checkName(c.arg)
			var ue *usageError
			if bad := err != nil; bad != c.bad || bad && !errors.As(err, &ue) {
				t.Errorf("checkName(%q) = %v; want a usage error: %v", c.arg, err, c.bad)
			}
		})
	}
}
