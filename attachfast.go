package main

import (
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// parseAttachFast reads the command line of the plainest attach, `wr
// attach NAME` (with --socket before the verb, perhaps), without the
// urfave/cli app: building the app and its flag sets for every verb costs
// an attach about half a millisecond, a tenth of its time to the restored
// screen. Any other command line is not ok, and goes to the app, which
// parses it the same way (TestParseAttachFastMatchesApp).
func parseAttachFast(args []string) (name string, flags attachFastFlags, ok bool) {
	rest := args[1:]
	if len(rest) > 0 {
		if v, found := strings.CutPrefix(rest[0], "--socket="); found {
			flags.socket, flags.socketSet = v, true
			rest = rest[1:]
		} else if rest[0] == "--socket" && len(rest) > 1 {
			flags.socket, flags.socketSet = rest[1], true
			rest = rest[2:]
		}
	}
	if len(rest) != 2 || rest[0] != "attach" || strings.HasPrefix(rest[1], "-") || rest[1] == "help" || rest[1] == "h" {
		return "", attachFastFlags{}, false
	}
	if !flags.socketSet {
		flags.socket, flags.socketSet = os.LookupEnv("WR_SOCKET")
	}
	return rest[1], flags, true
}

// runAttachFast is wr attach NAME, parsed by parseAttachFast: what the
// app's attach runs, its upgrade of an older server first.
func runAttachFast(arg string, flags attachFastFlags) error {
	_ = upgradeOlderServer(flags)
	name, command, err := splitCommand([]string{arg})
	if err != nil {
		return err
	}
	return attachAction(flags, name, command)
}

// attachFastFlags answers for the flags of `wr attach` as a *cli.Context
// would for a command line that sets none of them but --socket: each
// flag's default, or its environment variable.
type attachFastFlags struct {
	socket    string
	socketSet bool // on the command line or in $WR_SOCKET
}

func (f attachFastFlags) String(name string) string {
	switch name {
	case "socket":
		return f.socket
	case "detach-key":
		return envOr("WR_DETACH_KEY", defaultDetachKey)
	case "restore":
		return envOr("WR_RESTORE", defaultRestore)
	}
	return ""
}

func (f attachFastFlags) Int(name string) int {
	if name == scrollbackFlag.Name {
		return scrollbackFlag.Value
	}
	return 0
}

func (f attachFastFlags) Duration(name string) time.Duration {
	for _, d := range []*cli.DurationFlag{keepFlag, reconnectFlag, keepaliveFlag} {
		if d.Name == name {
			return d.Value
		}
	}
	return 0
}

func (f attachFastFlags) Bool(string) bool { return false }

func (f attachFastFlags) IsSet(name string) bool {
	switch name {
	case "socket":
		return f.socketSet
	case "detach-key":
		_, set := os.LookupEnv("WR_DETACH_KEY")
		return set
	case "restore":
		_, set := os.LookupEnv("WR_RESTORE")
		return set
	}
	return false
}

// envOr is $key when it is set (even to ""), as urfave/cli takes a flag's
// environment variable, else def.
func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok {
		return v
	}
	return def
}
