package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"wr/attach"
	"wr/client"
	"wr/mux"
	"wr/wire"
)

// handoffFlag is how an old server tells the binary it execs in its own
// process where its state is (wr server upgrade); never typed by a person.
var handoffFlag = &cli.StringFlag{Name: "handoff", Hidden: true, Usage: "take over from the server whose hand-off state is in `FILE`"}

func serverUpgradeCommand() *cli.Command {
	return &cli.Command{
		Name:  "upgrade",
		Usage: "hand the running server, its sessions and attached clients over to another wr binary, in place (default: this one)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "binary", Usage: "the wr binary to hand over to (`PATH`; default: this wr)"}},
		Action: func(c *cli.Context) error {
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			bin := c.String("binary")
			if bin == "" {
				if bin, err = executable(); err != nil {
					return fail(1, "cannot find my own binary: %v", err)
				}
			}
			if bin, err = filepath.Abs(bin); err != nil {
				return err
			}
			up, err := client.New(socket).Upgrade(bin)
			if err != nil {
				return upgradeFailed(socket, err)
			}
			fmt.Fprintf(stdout, "server %d upgraded to %s: %d sessions, %d attached clients, output paused %.1f ms\n",
				up.PID, up.Version, up.Sessions, up.Clients, up.PauseMS)
			return nil
		},
	}
}

// upgradeFailed words a failed upgrade.
func upgradeFailed(socket string, err error) error {
	var old *client.OldServerError
	switch {
	case errors.Is(err, attach.ErrNoServer):
		return fail(1, "no server running on %s", socket)
	case errors.As(err, &old):
		return fail(1, "the server (version %s, protocol %d.%d) is too old to be upgraded in place; `wr server stop` ends it and its sessions", old.Server.Version, old.Server.Protocol, old.Server.Minor)
	case errors.Is(err, attach.ErrUpgradeTimeout):
		return fail(1, "the server did not answer the upgrade within 15 s; see %s.log, and `wr server status` for the version it runs", socket)
	case errors.Is(err, attach.ErrUpgradeLost):
		// err wraps ErrUpgradeLost and the read's error side by side, so
		// errors.Unwrap has nothing to give (it said "<nil>"): the read's
		// error is what follows ErrUpgradeLost's own words.
		why := strings.TrimPrefix(err.Error(), attach.ErrUpgradeLost.Error()+": ")
		return fail(1, "the server exec'd the new binary but it did not take over (its sessions are lost; see %s.log): %s", socket, why)
	}
	return fail(1, "%s", sentence(err))
}

func checkHandoffCommand() *cli.Command {
	return &cli.Command{
		Name:   "check-handoff",
		Hidden: true,
		Usage:  "check that this wr can take over from a server's hand-off state",
		Action: func(c *cli.Context) error {
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			format, n, err := mux.CheckHandoff(socket, c.Args().First())
			if err != nil {
				return fail(1, "%v", err)
			}
			fmt.Fprintf(stdout, "wr-handoff-ok %d %d %s\n", format, n, wire.Version)
			return nil
		},
	}
}

// upgradesFirst are the verbs that, run by a newer wr than the server,
// upgrade the server to this wr first.
var upgradesFirst = map[string]bool{
	"attach": true, "new": true, "ls": true, "has": true, "kill": true, "send": true,
	"capture": true, "wait": true, "detach": true, "rename": true, "record": true, "env": true,
}

// autoUpgrade hands an older server over to this wr before the verb runs,
// and says so in one line. An upgrade the server refused (the new binary
// failed its check: the old server serves on) or that lost the server is
// said too, and the verb runs as it would have; one that got a reply this
// wr cannot read (not a wr) is left to the verb to meet.
func autoUpgrade(c *cli.Context) error { return upgradeOlderServer(c) }

// upgradeOlderServer is autoUpgrade, also for the attach that never
// builds the app (parseAttachFast).
func upgradeOlderServer(c flagValues) error {
	socket, err := socketPath(c)
	if err != nil {
		return nil // the verb says it
	}
	self, err := executable()
	if err != nil {
		return nil
	}
	done, up, err := client.New(socket).UpgradeIfOlder(self)
	var we *wire.Error
	switch {
	case errors.As(err, &we) || errors.Is(err, attach.ErrUpgradeLost) || errors.Is(err, attach.ErrUpgradeTimeout):
		fmt.Fprintf(os.Stderr, "wr: could not upgrade the older server to this wr (%s): %s\n", wire.Version, sentence(err))
	case err != nil:
	case done:
		fmt.Fprintf(os.Stderr, "wr: upgraded the server (pid %d) to this wr, version %s\n", up.PID, up.Version)
	}
	return nil
}
