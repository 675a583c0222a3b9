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
			fmt.Fprint(stdout, exportLines(vars, wire.StandardRefreshed()))
			return nil
		},
	}
}

// exportLines renders vars as sh export lines in name order, each value
// single-quoted, less SSH_AUTH_SOCK (the session's is already its link),
// then an unset line for each of names (the standard refreshed
// variables) the client that last acted does not have: a shell that took
// DISPLAY from one login must lose it when the next login has none, as
// tmux's show-environment -s says. Names from WR_UPDATE_ENV are never
// unset: the client may not have been asked for them (its WR_UPDATE_ENV
// is its own), and a value set by hand in the shell must survive.
func exportLines(vars map[string]string, names []string) string {
	set := make([]string, 0, len(vars))
	for k := range vars {
		if k != "SSH_AUTH_SOCK" && isShellName(k) {
			set = append(set, k)
		}
	}
	sort.Strings(set)
	var b strings.Builder
	for _, k := range set {
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(vars[k], "'", `'\''`))
	}
	var unset []string
	for _, k := range names {
		if _, ok := vars[k]; !ok && k != "SSH_AUTH_SOCK" && isShellName(k) && !slices.Contains(unset, k) {
			unset = append(unset, k)
		}
	}
	sort.Strings(unset)
	for _, k := range unset {
		fmt.Fprintf(&b, "unset %s\n", k)
	}
	return b.String()
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
