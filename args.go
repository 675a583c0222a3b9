package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// normalizeArgs puts the command line in the order urfave/cli parses
// (global flags, verb, its flags, then its arguments), so that people can
// write flags where they think of them: `wr capture sb --ansi`, `wr kill sb
// --all`, `wr ls --socket P`. After the verb, --socket moves before it
// (it is global); a flag of the verb moves before the verb's first
// argument, with its value when it takes one. Everything after "--" stays
// where it is (a command and its arguments). For send, whose words are
// text, only its own flags move: `wr send x ls -la` sends "ls -la" (but an
// unknown --flag before the text is refused); for any other verb an
// unknown flag moves too, so the parser names it.
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	// The global flags before the verb stay where they are.
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "--" {
		out = append(out, rest[0])
		if rest[0] == "--socket" || rest[0] == "-socket" {
			if len(rest) > 1 {
				out = append(out, rest[1])
				rest = rest[1:]
			}
		}
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return out
	}
	// wr help server [stop] is wr server [stop] --help: the help verb shows
	// a verb's own page, which for a verb with subcommands left out the
	// list of them, and took wr help server stop for wr help server.
	if (rest[0] == "help" || rest[0] == "h") && len(rest) >= 2 && len(rest) <= 3 {
		if c := app.Command(rest[1]); c != nil && len(c.Subcommands) > 0 {
			if len(rest) == 2 || c.Command(rest[2]) != nil {
				return append(append(out, rest[1:]...), "--help")
			}
		}
	}
	cmd := app.Command(rest[0])
	if cmd == nil {
		return append(out, rest...)
	}
	verb := []string{rest[0]}
	rest = rest[1:]
	if len(cmd.Subcommands) > 0 && len(rest) > 0 {
		if sub := cmd.Command(rest[0]); sub != nil {
			cmd = sub
			verb = append(verb, rest[0])
			rest = rest[1:]
		}
	}
	var global, flags, words []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			words = append(words, rest[i:]...)
			break
		}
		name, hasValue := flagName(a)
		switch {
		case name == "":
			words = append(words, a)
		case name == "socket":
			global = append(global, a)
			if !hasValue && i+1 < len(rest) {
				i++
				global = append(global, rest[i])
			}
		case findFlag(cmd, name) != nil:
			flags = append(flags, a)
			if !hasValue && takesValue(findFlag(cmd, name)) && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		case name == "help" || name == "h":
			flags = append(flags, a)
		case cmd.Name == "send" && (len(words) > 1 || !looksLikeFlag(a)):
			// Text that starts with a dash (ls -la), or any word once the
			// text has begun. A --word before the text is a mistyped
			// flag (--entre, --keys), which was typed into the program
			// with exit 0: the parser names it; text that starts with
			// -- goes after --.
			words = append(words, a)
		default:
			flags = append(flags, a) // unknown: the parser says so
		}
	}
	out = append(out, global...)
	out = append(out, verb...)
	out = append(out, flags...)
	return append(out, words...)
}

// looksLikeFlag reports whether a is spelled as a long flag, --name or
// --name=value: '-- comment' or '--> arrow', sent as one word, is text.
func looksLikeFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	if !strings.HasPrefix(a, "--") || name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// flagName is the name of the flag a names (without dashes and value), ""
// when a is not a flag, and whether a carries its value (--name=value).
func flagName(a string) (string, bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	name := strings.TrimLeft(a, "-")
	if name == "" || len(a)-len(name) > 2 {
		return "", false
	}
	name, _, hasValue := strings.Cut(name, "=")
	return name, hasValue
}

// findFlag is cmd's flag called name (or by that alias), or nil.
func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether a flag is followed by its value.
func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// verbNames are the verbs a person may type.
func verbNames(app *cli.App) []string {
	var names []string
	for _, c := range app.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return append(names, "help")
}

// flagError words a flag the parser could not take: in the --name
// spelling people type (Go's flag package says -name), and for an unknown
// one the closest flag of the verb.
func flagError(err error, verb string, flags []cli.Flag) error {
	msg := dashName().ReplaceAllString(err.Error(), "$1--$2")
	if m := unknownFlag().FindStringSubmatch(err.Error()); m != nil {
		var names []string
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
		where := "wr"
		if verb != "" {
			where = "wr " + verb
		}
		msg = fmt.Sprintf("unknown flag %s for %s", dashed(m[1]), where)
		if near := closest(m[1], names); near != "" {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		}
		return errors.New(msg + " (see `" + strings.Replace(where, "wr", "wr help", 1) + "`)")
	}
	if m := badValue().FindStringSubmatch(msg); m != nil {
		for _, f := range flags {
			if !slices.Contains(f.Names(), m[2]) {
				continue
			}
			switch f.(type) {
			case *cli.DurationFlag:
				return fmt.Errorf("--%s %q: want a DURATION such as 10s, 1m or 0", m[2], m[1])
			case *cli.IntFlag:
				return fmt.Errorf("--%s %q: want a whole number", m[2], m[1])
			}
		}
	}
	return fmt.Errorf("%s (see --help)", msg)
}

// The patterns are compiled when a flag error is first worded, not at
// start: every run of wr (an attach most of all) would pay for them, and
// only a mistyped command line reads them.
var (
	// dashName finds a flag named with Go's single dash in an error.
	dashName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(flag |for |argument: |defined: )-([A-Za-z][A-Za-z0-9-]+)`)
	})
	// badValue is the flag package's error for a value a flag cannot take.
	badValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`invalid value "(.*)" for flag --([A-Za-z0-9-]+)`)
	})
	// unknownFlag is the flag package's error for a flag nobody defined.
	unknownFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`flag provided but not defined: -+(\S+)`)
	})
)

// dashed spells a flag as typed: --name, or -x for a letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// closest is the candidate nearest to word by edit distance, if one is
// near enough to be what was meant; "" if none is.
func closest(word string, candidates []string) string {
	best, bestD := "", max(2, len(word)/3)+1
	word = strings.ToLower(word) // wr ATTACH is wr attach, caps lock on
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
