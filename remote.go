package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"wr/attach"
	"wr/client"
	"wr/wire"
)

// A session on another machine is HOST:NAME, wherever a session name is
// taken: HOST is anything the user's ssh takes (an alias of its config,
// user@host), and NAME follows wire.NameRule, which has no ':' in it, so
// the last ':' always splits the two. The verbs reach that machine's
// server through `ssh HOST wr bridge` (attach.RemoteAddress).

// splitHost splits HOST:NAME at its last ':'; host is "" for a name of
// this machine.
func splitHost(arg string) (host, name string) {
	i := strings.LastIndexByte(arg, ':')
	if i < 0 {
		return "", arg
	}
	return arg[:i], arg[i+1:]
}

// checkHost refuses a HOST that ssh would take for an option, or none.
func checkHost(arg, host string) error {
	if host == "" || strings.HasPrefix(host, "-") {
		return &usageError{fmt.Errorf("bad host in %q: write HOST:NAME, HOST as ssh takes it (an alias, host or user@host)", arg)}
	}
	return nil
}

// addressOf is the server of host: this machine's socket (--socket,
// $WR_SOCKET, the default) for "", else host's server through ssh.
func addressOf(c flagValues, host string) (string, error) {
	if host != "" {
		return attach.RemoteAddress(host), nil
	}
	return socketPath(c)
}

// clientAt is the control API of host's server ("" this machine's).
func clientAt(c *cli.Context, host string) (*client.Client, error) {
	addr, err := addressOf(c, host)
	if err != nil {
		return nil, err
	}
	return client.New(addr), nil
}

// namesClient splits names (checked) that must all be on one host, and
// returns the bare names and the client of that host.
func namesClient(c *cli.Context, names []string) ([]string, *client.Client, error) {
	host := ""
	bare := make([]string, len(names))
	for i, n := range names {
		h, b := splitHost(n)
		if i > 0 && h != host {
			return nil, nil, &usageError{fmt.Errorf("%s takes sessions of one host at a time (got %q and %q)", c.Command.Name, names[0], n)}
		}
		host, bare[i] = h, b
	}
	cl, err := clientAt(c, host)
	return bare, cl, err
}

// remoteExit is the exit status of a failure to reach another machine:
// ssh's own 255 when ssh failed, as ssh itself would exit.
func remoteExit(err error) (int, bool) {
	var re *attach.RemoteError
	if errors.As(err, &re) && re.Code != 0 {
		return re.Code, true
	}
	return 0, false
}

// hostSessions is a session as wr ls of several hosts lists it.
type hostSessions struct {
	Host string `json:"host"`
	wire.SessionInfo
}

// lsHosts is wr ls HOST:...: each host asked at once, one table with a
// HOST column (one JSON array with a host field). A host that fails, or
// does not answer within --timeout, says so on its own line and fails the
// command, and the others are listed.
func lsHosts(c *cli.Context, args []string) error {
	hosts := make([]string, len(args))
	for i, a := range args {
		h, name := splitHost(a)
		if name != "" || !strings.HasSuffix(a, ":") {
			return &usageError{fmt.Errorf("ls takes hosts, written HOST: (got %q)", a)}
		}
		if err := checkHost(a, h); err != nil {
			return err
		}
		hosts[i] = h
	}
	lists := make([][]wire.SessionInfo, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := client.New(attach.RemoteAddress(h))
			cl.Within = c.Duration("timeout")
			lists[i], errs[i] = cl.List()
		}()
	}
	wg.Wait()
	var all []hostSessions
	code := 0
	for i, h := range hosts {
		if errs[i] != nil {
			fmt.Fprintf(os.Stderr, "wr: %s: %s\n", h, strings.ReplaceAll(sentence(errs[i]), "\n", " "))
			code = 1
			if c, ok := remoteExit(errs[i]); ok && len(hosts) == 1 {
				code = c
			}
			continue
		}
		for _, s := range lists[i] {
			all = append(all, hostSessions{Host: h, SessionInfo: s})
		}
	}
	if c.Bool("json") {
		if all == nil {
			all = []hostSessions{}
		}
		b, _ := json.MarshalIndent(all, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else if len(all) > 0 {
		printSessions(stdout, all)
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// printSessions is the table of wr ls; with a HOST column when any
// session is another machine's.
func printSessions(w io.Writer, all []hostSessions) {
	withHost := false
	for _, s := range all {
		withHost = withHost || s.Host != ""
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if withHost {
		fmt.Fprint(tw, "HOST\t")
	}
	fmt.Fprintln(tw, "NAME\tSTATUS\tPID\tCLIENTS\tSIZE\tCREATED\tCOMMAND")
	for _, s := range all {
		created := s.Created
		if t, err := time.Parse(time.RFC3339, s.Created); err == nil {
			created = t.Local().Format("2006-01-02 15:04:05")
		}
		if withHost {
			fmt.Fprintf(tw, "%s\t", s.Host)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%dx%d\t%s\t%s\n", s.Name, status(s.SessionInfo), s.PID, s.Clients, s.Cols, s.Rows, created, shownCommand(s.Command))
	}
	_ = tw.Flush()
}

// shownCommand is a session's command as wr ls shows it: its words joined
// by spaces, with every control character escaped (\n, \t, \e, \xNN), as
// invalid UTF-8 is. A sh -c script of several lines would otherwise break
// the table's one line a session (wc -l, awk), and its escape sequences
// would act on the terminal that lists it.
func shownCommand(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		for j := 0; j < len(w); {
			r, n := utf8.DecodeRuneInString(w[j:])
			switch {
			case r == utf8.RuneError && n <= 1:
				fmt.Fprintf(&b, `\x%02x`, w[j])
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == 0x1b:
				b.WriteString(`\e`)
			case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
				fmt.Fprintf(&b, `\x%02x`, r)
			case isBidiControl(r):
				// Invisible, and it reorders what follows on the line: a
				// right-to-left override makes the columns after it lie.
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteString(w[j : j+n])
			}
			j += n
		}
	}
	return b.String()
}

// isBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters: marks, embeddings, overrides and isolates.
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// bridgeCommand is what ssh runs on the remote for HOST:NAME: it carries
// the client's frames to this machine's server and back.
func bridgeCommand() *cli.Command {
	return &cli.Command{
		Name:  "bridge",
		Usage: "carry a client's frames between stdin/stdout and this machine's server (what `ssh HOST wr bridge` runs for HOST:NAME)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "start", Usage: "start the server when none runs"},
			&cli.DurationFlag{Name: "keepalive", Usage: "send an attached client a keep-alive frame after `DURATION` without output (0: never)", Action: notNegative[time.Duration]("keepalive")},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return &usageError{fmt.Errorf("bridge takes no arguments (got %q)", c.Args().First())}
			}
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			exe, err := executable()
			if err != nil {
				return fail(1, "cannot find my own binary to start the server: %v", err)
			}
			return attach.Bridge(attach.BridgeOptions{
				Socket: socket, Exe: exe, Start: c.Bool("start"), KeepAlive: c.Duration("keepalive"),
				In: os.Stdin, Out: os.Stdout, Say: sentence,
			})
		},
	}
}

// hostPrefix is "HOST:" of a HOST:NAME, "" of a NAME.
func hostPrefix(arg string) string {
	if host, _ := splitHost(arg); host != "" {
		return host + ":"
	}
	return ""
}

// reconnectFlag bounds how long an attached client of another machine
// tries to get a dropped link back.
var reconnectFlag = &cli.DurationFlag{Name: "reconnect", Value: 10 * time.Minute, Usage: "for HOST:NAME, try to get a dropped link back for `DURATION` (0: never)", Action: notNegative[time.Duration]("reconnect")}

// keepaliveFlag is how long such a link may stay silent before it counts
// as dropped; the remote bridge is asked to speak after a third of it.
var keepaliveFlag = &cli.DurationFlag{Name: "keepalive", Value: 15 * time.Second, Usage: "for HOST:NAME, take a link silent for `DURATION` as dropped", Action: notNegative[time.Duration]("keepalive")}
