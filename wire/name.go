package wire

import "fmt"

// NameRule says what a session name may be, for error messages.
const NameRule = "names are 1-64 characters of A-Z a-z 0-9 . _ - and may not start with - or ."

// CheckName reports whether name may name a session. The rule keeps names
// safe to use as file names, in shell scripts unquoted, and as command-line
// arguments (a leading - would read as a flag).
func CheckName(name string) error {
	if len(name) == 0 || len(name) > 64 {
		return fmt.Errorf("%w %q: %s", ErrBadName, name, NameRule)
	}
	if name[0] == '-' || name[0] == '.' {
		return fmt.Errorf("%w %q: %s", ErrBadName, name, NameRule)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return fmt.Errorf("%w %q: %s", ErrBadName, name, NameRule)
		}
	}
	return nil
}
