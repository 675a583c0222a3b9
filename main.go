// Command wr keeps terminal sessions alive: a server holds each session's
// PTY, and any number of clients attach to it from any terminal.
//
// This file parses the command line and maps outcomes to exit codes: 0
// success, 1 failure, 2 usage; `wr attach` and `wr wait` exit with the
// session's own code. It is also the one place an error becomes the line a
// person reads (sentence): every package below returns errors as values.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"wr/attach"
	"wr/client"
	"wr/mux"
	"wr/screen"
	"wr/wire"
)

// exitError carries an exit code out of a command; err, if any, goes to
// stderr as one line, worded by sentence.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// fail is a failure that main words itself: the sentence the user reads.
func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// usageError marks a command line that could not be understood.
type usageError struct{ err error }

// notNegative is the Action of a flag whose value may not be negative: a
// --timeout of -1s was taken as no limit, and --scrollback -5 as the
// default, both silently.
func notNegative[T time.Duration | int](name string) func(*cli.Context, T) error {
	return func(_ *cli.Context, v T) error {
		if v < 0 {
			return &usageError{fmt.Errorf("--%s may not be negative (%v)", name, v)}
		}
		return nil
	}
}

func (e *usageError) Error() string { return e.err.Error() }

// executable is os.Executable, read once: an attach asks for it twice (to
// see whether the server is older, then in case it must start one), and
// each is a readlink of /proc/self/exe.
var executable = sync.OnceValues(os.Executable)

func main() {
	stop := startProfile()
	code := run(os.Args)
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile of this process to
// $WR_CPUPROFILE.<pid> when that is set: the way to profile the server and
// the client under a real workload (the benchmarks run them as separate
// processes, out of reach of go test -cpuprofile).
func startProfile() func() {
	path := os.Getenv("WR_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid()))
	if err != nil {
		fmt.Fprintf(os.Stderr, "wr: WR_CPUPROFILE: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

func run(args []string) int {
	if name, flags, ok := parseAttachFast(args); ok {
		return exitCode(runAttachFast(name, flags))
	}
	notFound := ""
	app := newApp(&notFound)
	err := app.Run(normalizeArgs(app, args))
	if notFound != "" {
		if near := closest(notFound, verbNames(app)); near != "" {
			fmt.Fprintf(os.Stderr, "wr: unknown command %q; did you mean %q? (`wr help` lists them)\n", notFound, near)
		} else {
			fmt.Fprintf(os.Stderr, "wr: unknown command %q; run `wr help` for the list\n", notFound)
		}
		return 2
	}
	code := exitCode(err)
	if code == 0 {
		if err := outputFailed(); err != nil {
			say(err)
			return 1
		}
	}
	return code
}

// exitCode says err (if any) and is the code wr exits with for it.
func exitCode(err error) int {
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.err != nil {
			say(ee.err)
		}
		return ee.code
	case errors.As(err, &ue):
		say(ue.err)
		return 2
	default:
		say(err)
		if code, ok := remoteExit(err); ok {
			return code
		}
		return 1
	}
}

// say prints err to stderr as the one line a person reads.
func say(err error) {
	s := strings.ReplaceAll(strings.TrimSpace(sentence(err)), "\n", " ")
	fmt.Fprintf(os.Stderr, "wr: %s\n", s)
}

// sentence words err for a person: what failed and, where wr knows, what to
// do. It is the one place that happens. A server's reply (*wire.Error) is
// already its sentence, and so are the socket path errors of wire, which
// name the path; the sentinels of wr's packages, whose own text starts with
// the package's name for programs and logs, are never shown as they are
// but said here. Callers that know more (the session's name, the socket)
// word those errors where they know it; these are the words left for
// anywhere else.
func sentence(err error) string {
	var we *wire.Error
	switch {
	case errors.Is(err, attach.ErrRefused):
		msg := "the server gave no reason"
		if errors.As(err, &we) {
			// Servers before this one started their reason with "wr: ".
			msg = strings.TrimPrefix(we.Error(), "wr: ")
		}
		return "the server refused the connection: " + msg
	case errors.As(err, &we):
		return we.Error()
	case errors.Is(err, attach.ErrNoServer):
		return "no server is running on the socket (see --socket)"
	case errors.Is(err, attach.ErrOldServer):
		return "the server is too old for this request; `wr server stop` ends it and its sessions, and this wr then starts a new one"
	case errors.Is(err, attach.ErrBadDetachKey):
		return "bad detach key: " + attach.DetachKeyRule
	case errors.Is(err, wire.ErrBadName):
		return "invalid session name: " + wire.NameRule
	case errors.Is(err, wire.ErrFrameTooLarge):
		return "a message to or from the server is over the protocol's 1 MiB limit; a new session's command, working directory and environment must fit in one together"
	case errors.Is(err, wire.ErrBadPayload):
		return "the server sent a reply this wr cannot read; if it is another version of wr, `wr server stop` ends it and its sessions"
	case errors.Is(err, mux.ErrRunning):
		return "a server is already running on this socket; stop it or pick another --socket"
	case errors.Is(err, wire.ErrUnsafeDir):
		// Most often another user's WR_SOCKET, inherited through su:
		// the path alone does not say where it came from.
		if ws := os.Getenv("WR_SOCKET"); ws != "" && strings.Contains(err.Error(), filepath.Dir(ws)) {
			return err.Error() + " ($WR_SOCKET names it: if su brought it from another user, `unset WR_SOCKET` finds your own server)"
		}
	}
	return err.Error()
}

func newApp(notFound *string) *cli.App {
	cli.VersionPrinter = func(*cli.Context) { fmt.Fprintln(stdout, versionLine()) }
	app := &cli.App{
		Name:                 "wr",
		Usage:                "keep terminal sessions alive; attach to them from any terminal, many at once",
		Version:              wire.Version,
		EnableBashCompletion: false,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Usage: "server socket `PATH` (also after the verb)", EnvVars: []string{"WR_SOCKET"}},
		},
		ExitErrHandler:  func(*cli.Context, error) {},
		Writer:          stdout,
		CommandNotFound: func(_ *cli.Context, name string) { *notFound = name },
		Commands: []*cli.Command{
			attachCommand(), newCommand(), lsCommand(), hasCommand(), killCommand(), sendCommand(),
			captureCommand(), waitCommand(), detachCommand(), renameCommand(), recordCommand(), envCommand(),
			serverCommand(), completionCommand(), versionCommand(), namesCommand(), bridgeCommand(),
		},
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return &usageError{flagError(err, "", app.Flags)}
	}
	var setUsage func(string, []*cli.Command)
	setUsage = func(parent string, cs []*cli.Command) {
		for _, c := range cs {
			verb := strings.TrimSpace(parent + " " + c.Name)
			flags := append(append([]cli.Flag(nil), c.Flags...), app.Flags...)
			c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
				return &usageError{flagError(err, verb, flags)}
			}
			if upgradesFirst[verb] {
				c.Before = autoUpgrade // upgrade.go
			}
			// A verb without subcommands gets no "help" subcommand: the
			// parser took a session named h or help for it, and wr kill
			// h printed help and exited 0 with the session running.
			// --help and -h still show the verb's help.
			c.HideHelpCommand = len(c.Subcommands) == 0
			setUsage(verb, c.Subcommands)
		}
	}
	setUsage("", app.Commands)
	return app
}

// flagValues are a command line's flag values by name: a *cli.Context,
// or attachFastFlags for the command line that never builds the app.
type flagValues interface {
	String(name string) string
	Int(name string) int
	Bool(name string) bool
	Duration(name string) time.Duration
	IsSet(name string) bool
}

// socketPath resolves --socket / $WR_SOCKET / the default.
func socketPath(c flagValues) (string, error) {
	return wire.SocketPath(c.String("socket"))
}

// splitCommand splits NAME [-- CMD ARGS] into the name and the command.
func splitCommand(args []string) (string, []string, error) {
	if len(args) == 0 {
		return "", nil, &usageError{errors.New("missing session NAME")}
	}
	name, rest := args[0], args[1:]
	if len(rest) > 0 {
		if rest[0] != "--" {
			return "", nil, &usageError{fmt.Errorf("unexpected %q after NAME; put a command after --", rest[0])}
		}
		rest = rest[1:]
	}
	if err := checkName(name); err != nil {
		return "", nil, err
	}
	return name, rest, nil
}

// checkNames is checkName for each of the sessions a verb names.
func checkNames(names []string) error {
	for _, n := range names {
		if err := checkName(n); err != nil {
			return err
		}
	}
	return nil
}

// checkName refuses a session name outside the rule, as a usage error. A
// name may be HOST:NAME, a session on another machine (remote.go).
func checkName(arg string) error {
	host, name := splitHost(arg)
	if host != "" || strings.Contains(arg, ":") {
		if err := checkHost(arg, host); err != nil {
			return err
		}
	}
	if err := wire.CheckName(name); err != nil {
		switch {
		case name == "" && host != "":
			err = fmt.Errorf("%q names a host and no session: write HOST:NAME", arg)
		case errors.Is(err, wire.ErrBadName):
			err = fmt.Errorf("invalid session name %q: %s", name, wire.NameRule)
		}
		return &usageError{err}
	}
	return nil
}

// oneNameClient is oneName and the client to ask about it.
func oneNameClient(c *cli.Context) (string, *client.Client, error) {
	name, err := oneName(c)
	if err != nil {
		return "", nil, err
	}
	host, name := splitHost(name)
	cl, err := clientAt(c, host)
	return name, cl, err
}

// oneName is the single session NAME a command takes.
func oneName(c *cli.Context) (string, error) {
	if c.Args().Len() != 1 {
		return "", &usageError{fmt.Errorf("%s takes one session NAME", c.Command.Name)}
	}
	name := c.Args().First()
	if err := checkName(name); err != nil {
		return "", err
	}
	return name, nil
}

func sessionConfig(c flagValues, command []string) wire.SessionConfig {
	cwd, _ := os.Getwd()
	cfg := wire.SessionConfig{Command: command, Cwd: cwd, Env: os.Environ(), Scrollback: c.Int("scrollback")}
	if cfg.Scrollback == 0 {
		cfg.Scrollback = -1 // none, as tmux's history-limit 0; the wire's 0 is the default
	}
	if c.IsSet("keep") {
		// 0 on the command line keeps nothing; 0 on the wire is the
		// server's default.
		cfg.KeepMS = -1
		if d := c.Duration("keep"); d > 0 {
			cfg.KeepMS = max(d.Milliseconds(), 1)
		}
	}
	return cfg
}

// defaultDetachKey is --detach-key's default, which the flag's Value
// cannot hold: parsing overwrites it with $WR_DETACH_KEY.
const defaultDetachKey = `ctrl-\`

// detachKeyFlag picks the key that detaches a client.
var detachKeyFlag = &cli.StringFlag{Name: "detach-key", Value: defaultDetachKey, EnvVars: []string{"WR_DETACH_KEY"}, Usage: "key that detaches (ctrl-X or none)"}

// keepFlag sets how long a new session is kept, exited, when it ends with
// nobody attached.
var keepFlag = &cli.DurationFlag{Name: "keep", Value: 24 * time.Hour, Usage: "keep a session that ends while detached, with its code and screen, for `DURATION` (0: not at all)", Action: notNegative[time.Duration]("keep")}

// scrollbackFlag sets a new session's scrollback.
var scrollbackFlag = &cli.IntFlag{Name: "scrollback", Value: screen.DefaultScrollback, Usage: "lines of scrollback kept for a new session", Action: notNegative[int]("scrollback")}

// client is the control API on the socket of --socket / $WR_SOCKET / the
// default.
func clientOf(c *cli.Context) (*client.Client, error) {
	socket, err := socketPath(c)
	if err != nil {
		return nil, err
	}
	return client.New(socket), nil
}

// recordFlag records an attached session from this client's start.
var recordFlag = &cli.StringFlag{Name: "record", Usage: "write an asciicast v2 recording of the session to `FILE`"}

func attachCommand() *cli.Command {
	return &cli.Command{
		Name:      "attach",
		Usage:     "attach to a session, creating it if it does not exist",
		ArgsUsage: "NAME [-- CMD [ARG...]]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "read-only", Aliases: []string{"r"}, Usage: "watch only: input is dropped and the size is never taken"},
			&cli.BoolFlag{Name: "detach-others", Aliases: []string{"d"}, Usage: "detach every other client of the session"},
			&cli.BoolFlag{Name: "no-create", Usage: "fail if the session does not exist"},
			detachKeyFlag,
			scrollbackFlag,
			keepFlag,
			&cli.StringFlag{Name: "restore", Value: defaultRestore, EnvVars: []string{"WR_RESTORE"}, Usage: "what a reattach draws: `scrollback` (what this terminal has not been shown, and the screen) or screen (the screen only)"},
			recordFlag,
			reconnectFlag,
			keepaliveFlag,
		},
		Action: func(c *cli.Context) error {
			name, command, err := splitCommand(c.Args().Slice())
			if err != nil {
				return err
			}
			return attachAction(c, name, command)
		},
	}
}

// defaultRestore is --restore's default.
const defaultRestore = "scrollback"

// attachAction is wr attach, once its command line is parsed.
func attachAction(c flagValues, name string, command []string) error {
	switch c.String("restore") {
	case defaultRestore, wire.RestoreScreen:
	default:
		return &usageError{fmt.Errorf("bad --restore %q: scrollback or screen", c.String("restore"))}
	}
	return doAttach(c, name, command, attach.Options{
		Create: !c.Bool("no-create") && !c.Bool("read-only"), ReadOnly: c.Bool("read-only"),
		DetachOthers: c.Bool("detach-others"), Restore: restoreMode(c),
	})
}

// doAttach attaches to session name; opts says how, and doAttach fills in
// the rest from the command line.
func doAttach(c flagValues, name string, command []string, opts attach.Options) error {
	keySpec := c.String("detach-key")
	key, err := attach.ParseDetachKey(keySpec)
	if err != nil {
		if errors.Is(err, attach.ErrBadDetachKey) {
			err = fmt.Errorf("bad detach key %q: %s", keySpec, attach.DetachKeyRule)
		}
		return &usageError{err}
	}
	host, name := splitHost(name)
	socket, err := addressOf(c, host)
	if err != nil {
		return err
	}
	// Attaching to the session this shell runs in, or one that shows it,
	// is refused by the server, which knows sessions by WR_SESSION_ID: a
	// name may have been renamed away and taken by another session since.
	exe, err := executable()
	if err != nil {
		return fail(1, "cannot find my own binary to start the server: %v", err)
	}
	if path := c.String("record"); path != "" {
		f, err := createRecording(path)
		if err != nil {
			return err
		}
		defer f.Close()
		opts.Record = f
	}
	opts.Socket, opts.Exe, opts.Name, opts.DetachKey = socket, exe, name, key
	opts.Config = sessionConfig(c, command)
	opts.Stdin, opts.Stdout = os.Stdin, os.Stdout
	opts.Reconnect, opts.KeepAlive = c.Duration("reconnect"), c.Duration("keepalive")
	code, err := attach.Run(opts)
	// Run has restored the terminal: the error line reads cleanly after it.
	if errors.Is(err, attach.ErrNoServer) {
		err = fmt.Errorf("no session named %s (no server is running)", name)
		if host != "" {
			err = fmt.Errorf("no session named %s on %s (no server is running there)", name, host)
		}
	}
	if rc, ok := remoteExit(err); ok {
		code = rc
	}
	if code != 0 || err != nil {
		return &exitError{code: code, err: err}
	}
	return nil
}

// restoreMode is wire.Attach.Restore for --restore (wr new has none).
func restoreMode(c flagValues) string {
	if c.String("restore") == wire.RestoreScreen {
		return wire.RestoreScreen
	}
	return ""
}

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "create a session (fails if NAME exists) and attach to it",
		ArgsUsage: "NAME [-- CMD [ARG...]]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "detached", Aliases: []string{"d"}, Usage: "create it without attaching"},
			detachKeyFlag,
			scrollbackFlag,
			keepFlag,
			recordFlag,
			reconnectFlag,
			keepaliveFlag,
		},
		Action: func(c *cli.Context) error {
			name, command, err := splitCommand(c.Args().Slice())
			if err != nil {
				return err
			}
			if !c.Bool("detached") {
				return doAttach(c, name, command, attach.Options{Create: true, Exclusive: true})
			}
			// Nothing attaches to use it, but a key attach would refuse is
			// a mistake all the same (in WR_DETACH_KEY, say): said alike.
			if spec := c.String("detach-key"); spec != "" {
				if _, err := attach.ParseDetachKey(spec); err != nil {
					return &usageError{fmt.Errorf("bad detach key %q: %s", spec, attach.DetachKeyRule)}
				}
			}
			host, bare := splitHost(name)
			cl, err := clientAt(c, host)
			if err != nil {
				return err
			}
			exe, err := executable()
			if err != nil {
				return fail(1, "cannot find my own binary to start the server: %v", err)
			}
			if path := c.String("record"); path != "" {
				if path == "-" {
					_, err := createRecording(path) // says why not
					return err
				}
				return startRecorder(c, exe, name, path, command)
			}
			return cl.New(exe, bare, sessionConfig(c, command))
		},
	}
}

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:      "ls",
		Usage:     "list sessions (of other machines: wr ls HOST: [HOST:...])",
		ArgsUsage: "[HOST:...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
			&cli.DurationFlag{Name: "timeout", Value: 15 * time.Second, Usage: "for HOST:, give up on a host that has not answered within `DURATION` (0: wait as long as ssh does)", Action: notNegative[time.Duration]("timeout")},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return lsHosts(c, c.Args().Slice())
			}
			cl, err := clientOf(c)
			if err != nil {
				return err
			}
			sessions, err := cl.List()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				b, _ := json.MarshalIndent(sessions, "", "  ")
				fmt.Fprintln(stdout, string(b))
				return nil
			}
			if len(sessions) == 0 {
				return nil
			}
			all := make([]hostSessions, len(sessions))
			for i, s := range sessions {
				all[i].SessionInfo = s
			}
			printSessions(stdout, all)
			return nil
		},
	}
}

func hasCommand() *cli.Command {
	return &cli.Command{
		Name:      "has",
		Usage:     "exit 0 if the session exists (running or exited), 1 if not; print nothing",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			name, cl, err := oneNameClient(c)
			if err != nil {
				return err
			}
			ok, err := cl.Has(name)
			if err != nil {
				return err
			}
			if !ok {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

// status is a session's STATUS column: running, or exited and its code.
// A server older than protocol 1.2 says nothing: its sessions all run.
func status(s wire.SessionInfo) string {
	if s.State == wire.StateExited && s.ExitCode != nil {
		return fmt.Sprintf("exited %d", *s.ExitCode)
	}
	return wire.StateRunning
}

func killCommand() *cli.Command {
	return &cli.Command{
		Name:      "kill",
		Usage:     "end sessions and every process they started",
		ArgsUsage: "NAME... | --all | --exited",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "kill every session"},
			&cli.BoolFlag{Name: "exited", Usage: "remove every exited session, and nothing else"},
		},
		Action: func(c *cli.Context) error {
			names := c.Args().Slice()
			all, exited := c.Bool("all"), c.Bool("exited")
			switch {
			case all && exited:
				return &usageError{errors.New("kill takes --all or --exited, not both")}
			case (all || exited) && len(names) > 0:
				flag := "--all"
				if exited {
					flag = "--exited"
				}
				return &usageError{fmt.Errorf("kill takes session names or %s, not both (got %s and %q)", flag, flag, names[0])}
			case !all && !exited && len(names) == 0:
				return &usageError{errors.New("kill takes session names, --all or --exited")}
			}
			if err := checkNames(names); err != nil {
				return err
			}
			names, cl, err := namesClient(c, names)
			if err != nil {
				return err
			}
			switch {
			case all:
				_, err = cl.KillAll()
			case exited:
				_, err = cl.KillExited()
			default:
				_, err = cl.Kill(names...)
			}
			return err
		},
	}
}

// sendTimeoutFlag bounds a wr send.
var sendTimeoutFlag = &cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "give up if the program has not taken all the text within `DURATION` (0: wait forever)", Action: notNegative[time.Duration]("timeout")}

func sendCommand() *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "write TEXT to a session as if typed, or press named keys",
		ArgsUsage: "NAME [--enter] [--timeout DURATION] TEXT... | - | --key KEY...",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "enter", Usage: "press Enter after the text"},
			&cli.BoolFlag{Name: "key", Usage: "the words are key names: " + wire.KeyNames},
			sendTimeoutFlag,
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return &usageError{errors.New("missing session NAME")}
			}
			name := args[0]
			if err := checkName(name); err != nil {
				return err
			}
			// The words after NAME are text, up to and after a "--"; the
			// flags among them were moved before NAME (normalizeArgs).
			words := args[1:]
			dashDash := false
			if i := slices.Index(words, "--"); i >= 0 {
				words = append(words[:i:i], words[i+1:]...)
				dashDash = true
			}
			host, name := splitHost(name)
			cl, err := clientAt(c, host)
			if err != nil {
				return err
			}
			timeout := c.Duration("timeout")
			if c.Bool("key") {
				if c.Bool("enter") {
					words = append(words, "Enter")
				}
				if len(words) == 0 {
					return &usageError{errors.New("--key needs key names: " + wire.KeyNames)}
				}
				for _, k := range words {
					if _, err := wire.AppendKey(nil, k, wire.KeyModes{}); err != nil {
						return &usageError{fmt.Errorf("unknown key %q: the keys are %s", k, wire.KeyNames)}
					}
				}
				return sendFailed(cl.SendKeys(name, words, timeout))
			}
			if len(words) == 1 && words[0] == "-" && !dashDash {
				// The text is stdin, streamed as it is read.
				var text io.Reader = os.Stdin
				size := int64(-1)
				if fi, err := os.Stdin.Stat(); err == nil && fi.Mode().IsRegular() {
					if off, err := os.Stdin.Seek(0, io.SeekCurrent); err == nil {
						size = fi.Size() - off
					}
				}
				if c.Bool("enter") {
					text = io.MultiReader(text, strings.NewReader("\r"))
					if size >= 0 {
						size++
					}
				}
				_, err := cl.SendStream(name, text, size, timeout)
				return sendFailed(err)
			}
			text := strings.Join(words, " ")
			if c.Bool("enter") {
				text += "\r"
			}
			if len(words) == 0 && text == "" {
				return &usageError{errors.New("nothing to send: give TEXT, --enter or --key KEY")}
			}
			// An empty TEXT ("$VAR" that is empty) sends nothing and
			// succeeds, as printf '%s' "" does; the session must still exist.
			_, err = cl.Send(name, []byte(text), timeout)
			return sendFailed(err)
		},
	}
}

// sendFailed words a send to a server too old for it.
func sendFailed(err error) error {
	var old *client.OldServerError
	if errors.As(err, &old) && old.Need == 1 {
		w := old.Server
		return fail(1, "the server is too old for this request (server %s, protocol %d.%d): it takes at most about 780 KB per send, and not from stdin (`wr server stop` ends it and its sessions; this wr then starts a new one)", w.Version, w.Protocol, w.Minor)
	}
	return err
}

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:      "capture",
		Usage:     "print a session's screen",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "ansi", Usage: "keep colours and attributes"},
			&cli.BoolFlag{Name: "scrollback", Usage: "include the scrollback"},
		},
		Action: func(c *cli.Context) error {
			name, cl, err := oneNameClient(c)
			if err != nil {
				return err
			}
			// The whole text, then one write: a capture that fails half way
			// prints nothing.
			var text bytes.Buffer
			if err := cl.Capture(name, wire.Capture{ANSI: c.Bool("ansi"), Scrollback: c.Bool("scrollback")}, &text); err != nil {
				return err
			}
			_, _ = stdout.Write(text.Bytes()) // run reports what could not be written, as for every verb
			return nil
		},
	}
}

// waitTimedOut is wr wait's exit code when its --timeout passes first, as
// timeout(1)'s.
const waitTimedOut = 124

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait for a session to end and exit with its code",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "give up after `DURATION` and exit 124 (0: wait forever)", Action: notNegative[time.Duration]("timeout")},
		},
		Action: func(c *cli.Context) error {
			name, cl, err := oneNameClient(c)
			if err != nil {
				return err
			}
			code, err := cl.Wait(name, c.Duration("timeout"))
			if errors.Is(err, client.ErrTimeout) {
				return fail(waitTimedOut, "session %s still running after %v", name, c.Duration("timeout"))
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
				// It said "the server closed the connection during Wait: EOF".
				return fail(1, "lost the server while waiting for %s; the server's log (beside its socket) may say why", name)
			}
			if err != nil {
				return err
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

func detachCommand() *cli.Command {
	return &cli.Command{
		Name:      "detach",
		Usage:     "detach every client of sessions (none named: the session this shell runs in)",
		ArgsUsage: "[NAME...]",
		Action: func(c *cli.Context) error {
			names := c.Args().Slice()
			if err := checkNames(names); err != nil {
				return err
			}
			names, cl, err := namesClient(c, names)
			if err != nil {
				return err
			}
			if len(names) > 0 {
				return cl.Detach(names...)
			}
			// By the session's id, not WR_SESSION: the session may have
			// been renamed since this shell started.
			id := os.Getenv("WR_SESSION_ID")
			if id == "" {
				return &usageError{errors.New("detach takes session NAMEs (with none, it detaches the session it runs in, and this is not inside one)")}
			}
			return cl.DetachSession(id)
		},
	}
}

func renameCommand() *cli.Command {
	return &cli.Command{
		Name:      "rename",
		Usage:     "give a session a new name",
		ArgsUsage: "OLD NEW",
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 2 {
				return &usageError{errors.New("rename takes the session's NAME and its NEW name")}
			}
			old, new := c.Args().Get(0), c.Args().Get(1)
			for _, n := range []string{old, new} {
				if err := checkName(n); err != nil {
					return err
				}
			}
			if h, n := splitHost(new); h == "" {
				// NEW on OLD's host, however OLD was written.
				new = hostPrefix(old) + n
			}
			names, cl, err := namesClient(c, []string{old, new})
			if err != nil {
				return err
			}
			return cl.Rename(names[0], names[1])
		},
	}
}

func serverCommand() *cli.Command {
	return &cli.Command{
		Name:  "server",
		Usage: "run, stop or inspect the server",
		Subcommands: []*cli.Command{
			{
				Name:  "run",
				Usage: "run the server in the foreground (--daemon: detach, log beside the socket)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "daemon", Usage: "detach from the terminal and log to SOCKET.log"}, handoffFlag},
				Action: func(c *cli.Context) (err error) {
					socket, err := socketPath(c)
					if err != nil {
						return err
					}
					// One P: the server is an event loop over PTYs and
					// sockets, all in Go's poller. With a single P a
					// goroutine that readies another (the PTY reader waking
					// a client's writer) hands over on the same thread when
					// it next waits, instead of waking a second thread for
					// every chunk; and while the reader keeps reading what
					// the PTY has, the writer's batch grows. Measured on
					// the 2-core machines: about half the server's CPU per
					// MiB and a tenth of its socket writes (README,
					// Benchmarks). While a session is in a burst and a
					// client is attached to another, the server takes a
					// second P, so that the other session's echo need not
					// wait for a busy P to poll the network (mux/procs.go).
					// Set here rather than for every command: changing it
					// stops the world, which costs a client that must
					// start fast up to a millisecond.
					runtime.GOMAXPROCS(1)
					opts := mux.Options{Socket: socket, Handoff: c.String("handoff"), Daemon: c.Bool("daemon")}
					if c.Bool("daemon") {
						w, restoreStderr, derr := mux.Daemonize(socket)
						if derr != nil {
							return derr
						}
						opts.Log = w
						// A server that cannot start says why in its log
						// and, below, on the stderr of whoever ran it.
						opts.Ready = func() { restoreStderr(false) }
						defer func() {
							if err != nil {
								fmt.Fprintf(w, "wr server: %s\n", sentence(err))
							}
							restoreStderr(err != nil)
						}()
					}
					if err = mux.Run(opts); errors.Is(err, mux.ErrRunning) && opts.Handoff == "" {
						err = fail(1, "a server is already running on %s; stop it or pick another --socket", socket)
					}
					return err
				},
			},
			{
				Name:  "stop",
				Usage: "kill every session and stop the server",
				Action: func(c *cli.Context) error {
					socket, err := socketPath(c)
					if err != nil {
						return err
					}
					err = client.New(socket).Stop()
					if errors.Is(err, attach.ErrNoServer) {
						return fail(1, "no server running on %s", socket)
					}
					return err
				},
			},
			{
				Name:  "status",
				Usage: "print the server's pid, version, uptime, session count, socket, goroutine count, heap, flood pauses, memory releases, bursts, second CPUs, knocks and output written for waiting writers",
				Action: func(c *cli.Context) error {
					socket, err := socketPath(c)
					if err != nil {
						return err
					}
					st, err := client.New(socket).Status()
					if errors.Is(err, attach.ErrNoServer) {
						return fail(1, "no server running on %s", socket)
					}
					if err != nil {
						return err
					}
					// A line per field, each "name value", so a script
					// can read one; build is a line of its own (after
					// version, which stays the version alone), and
					// missing from a server that does not say.
					version := st.Version
					if st.Build != "" {
						version += "\nbuild " + st.Build
					}
					fmt.Fprintf(stdout, "pid %d\nversion %s\nuptime %s\nsessions %d\nsocket %s\ngoroutines %d\nheap-kib %d\nflood-pauses %d\nmemory-releases %d\nbursts %d\nsecond-cpu %d\nknocks %d\nhelped-kib %d\n",
						st.PID, version, (time.Duration(st.Uptime) * time.Second).String(), st.Sessions, st.Socket, st.Goroutines, st.HeapKiB, st.FloodPauses, st.MemoryReleases, st.Bursts, st.SecondCPU, st.Knocks, st.HelpedKiB)
					return nil
				},
			},
			serverUpgradeCommand(), checkHandoffCommand(),
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print wr's version (as --version does)",
		Action: func(*cli.Context) error {
			fmt.Fprintln(stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what wr version and wr --version print.
func versionLine() string {
	if b := wire.Build(); b != "" {
		return fmt.Sprintf("wr %s (protocol %d.%d, build %s)", wire.Version, wire.ProtocolMajor, wire.ProtocolMinor, b)
	}
	return fmt.Sprintf("wr %s (protocol %d.%d)", wire.Version, wire.ProtocolMajor, wire.ProtocolMinor)
}

// namesCommand prints the names of every session, one a line: what the
// completion scripts ask at completion time. With no server it prints
// nothing and succeeds, and it never starts one.
func namesCommand() *cli.Command {
	return &cli.Command{
		Name:   "__names",
		Hidden: true,
		Action: func(c *cli.Context) error {
			cl, err := clientOf(c)
			if err != nil {
				return nil
			}
			names, _ := cl.Names()
			for _, n := range names {
				fmt.Fprintln(stdout, n)
			}
			return nil
		},
	}
}
