package wire

import "strings"

// refreshedVars are the variables a session takes from the client that
// last acted in it (wr env prints them; SSH_AUTH_SOCK is followed through
// the session's agent link instead). A shell started from one login keeps
// that login's values for life; these are the ones that go stale when the
// person comes back from another.
var refreshedVars = []string{"SSH_AUTH_SOCK", "DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "COLORTERM"}

// RefreshedEnv picks, from an environment read through lookup, the
// variables a session refreshes from the client that last acted: the
// standard ones and those named in WR_UPDATE_ENV (separated by spaces or
// commas). Variables the client does not have are left out.
func RefreshedEnv(lookup func(string) (string, bool)) map[string]string {
	vars := map[string]string{}
	for _, n := range RefreshedNames(lookup) {
		if v, ok := lookup(n); ok && n != "" && !strings.ContainsRune(n, '=') {
			vars[n] = v
		}
	}
	return vars
}

// StandardRefreshed are the variables every client sends when it has
// them, whatever its WR_UPDATE_ENV: a client's lacking one of these says
// it has none.
func StandardRefreshed() []string { return refreshedVars[:len(refreshedVars):len(refreshedVars)] }

// RefreshedNames are the names of the variables a session refreshes, as
// an environment read through lookup names them: the standard ones and
// those in its WR_UPDATE_ENV.
func RefreshedNames(lookup func(string) (string, bool)) []string {
	names := refreshedVars
	if extra, ok := lookup("WR_UPDATE_ENV"); ok {
		names = append(names[:len(names):len(names)], strings.FieldsFunc(extra, func(r rune) bool { return r == ' ' || r == ',' })...)
	}
	return names
}

// LookupIn reads a variable from an environment in os.Environ's form.
func LookupIn(env []string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v, true
			}
		}
		return "", false
	}
}
