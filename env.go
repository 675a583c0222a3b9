package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"wr/wire"
)

// envCommand is wr env: export lines for a prompt hook, so a shell that
// outlived its login takes the variables of the terminal the person is at
// now (the agent needs none: SSH_AUTH_SOCK is the session's agent link).
func envCommand() *cli.Command {
	return &cli.Command{
		Name:      "env",
		Usage:     "print export lines of the variables of the client that last acted in a session (for eval in a prompt hook)",
		ArgsUsage: "[NAME]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fish", Usage: "print fish's set -gx and set -e lines instead of sh's export and unset"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return &usageError{errors.New("wr env takes one session NAME")}
			}
			host, name := "", ""
			if c.NArg() == 1 {
				// A bad name is a usage error, as for every verb.
				if err := checkName(c.Args().First()); err != nil {
					return err
				}
				host, name = splitHost(c.Args().First())
			}
			cl, err := clientAt(c, host)
			if err != nil {
				return err
			}
			var vars map[string]string
			if c.NArg() == 1 {
				vars, err = cl.Env(name)
			} else {
				// The session this shell runs in, by its id: WR_SESSION
				// keeps the old name after a rename, and another session
				// may have taken it since.
				id := os.Getenv("WR_SESSION_ID")
				if id == "" || os.Getenv("WR_SOCKET") != cl.Socket {
					return &usageError{errors.New("wr env needs a session NAME outside a session")}
				}
				vars, err = cl.SessionEnv(id)
			}
			if err != nil {
				return err
			}
			lines := shLines
			if c.Bool("fish") {
				lines = fishLines
			}
			fmt.Fprint(stdout, exportLines(vars, wire.StandardRefreshed(), lines))
			return nil
		},
	}
}

// exportLines renders vars as lines that set them in lines' shell (shLines
// or fishLines), in name order, less SSH_AUTH_SOCK (the session's is
// already its link), then an unset line for each of names (the standard
// refreshed variables) the client that last acted does not have: a shell that took
// DISPLAY from one login must lose it when the next login has none, as
// tmux's show-environment -s says. Names from WR_UPDATE_ENV are never
// unset: the client may not have been asked for them (its WR_UPDATE_ENV
// is its own), and a value set by hand in the shell must survive.
func exportLines(vars map[string]string, names []string, lines shellLines) string {
	set := make([]string, 0, len(vars))
	for k := range vars {
		if k != "SSH_AUTH_SOCK" && isShellName(k) {
			set = append(set, k)
		}
	}
	sort.Strings(set)
	var b strings.Builder
	for _, k := range set {
		b.WriteString(lines.set(k, vars[k]))
	}
	var unset []string
	for _, k := range names {
		if _, ok := vars[k]; !ok && k != "SSH_AUTH_SOCK" && isShellName(k) && !slices.Contains(unset, k) {
			unset = append(unset, k)
		}
	}
	sort.Strings(unset)
	for _, k := range unset {
		b.WriteString(lines.unset(k))
	}
	return b.String()
}

// shellLines writes one variable's line for a shell to eval.
type shellLines struct {
	set   func(k, v string) string
	unset func(k string) string
}

// shLines are for sh, bash and zsh: a value in single quotes, where
// nothing is special but the quote itself.
var shLines = shellLines{
	set:   func(k, v string) string { return "export " + k + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'\n" },
	unset: func(k string) string { return "unset " + k + "\n" },
}

// fishLines are for fish, which has no unset, and whose single quotes
// take a backslash before a quote or a backslash as an escape.
var fishLines = shellLines{
	set: func(k, v string) string {
		return "set -gx " + k + " '" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(v) + "'\n"
	},
	unset: func(k string) string { return "set -e " + k + "\n" },
}

// isShellName reports whether k can be exported by sh: WR_UPDATE_ENV may
// name anything, and a line the shell cannot read would break the eval.
func isShellName(k string) bool {
	for i, r := range k {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return k != ""
}
