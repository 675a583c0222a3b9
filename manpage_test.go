//go:build !urfave_cli_no_docs

package main

import (
	"flag"
	"os"
	"testing"
)

// The man page is generated from the command definitions, so it cannot
// drift from what wr accepts:
//
//	go generate     (runs: go test -run TestManPage -update-man .)
//
//go:generate go test -run TestManPage -update-man .
var updateMan = flag.Bool("update-man", false, "rewrite docs/wr.1 from the command definitions")

const manPath = "docs/wr.1"

func TestManPage(t *testing.T) {
	var notFound string
	app := newApp(&notFound)
	app.Description = manDescription
	page, err := app.ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	if *updateMan {
		if err := os.WriteFile(manPath, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(manPath)
	if err != nil || string(have) != page {
		t.Fatalf("%s is not what the command definitions make (%v); run `go generate` in the repository's root and commit it", manPath, err)
	}
}

// manDescription is the man page's DESCRIPTION; the commands, flags and
// their usage come from the definitions themselves.
const manDescription = `wr keeps terminal sessions alive. A server process holds each session's PTY and outlives every client; any number of terminals attach to one session at once and see the same screen. wr attach exits with the session's own exit code. Inside a session, ctrl-\ detaches. The server starts by itself the first time a session is created, and exits when its last session is gone. See the README for behaviour, scripting and the systemd units.`
