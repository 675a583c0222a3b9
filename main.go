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
	"runtime"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"wr/attach"
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

func (e *usageError) Error() string { return e.err.Error() }

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
	notFound := ""
	app := newApp(&notFound)
	err := app.Run(args)
	if notFound != "" {
		fmt.Fprintf(os.Stderr, "wr: unknown command %q; run `wr --help` for the list\n", notFound)
		return 2
	}
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
	}
	return err.Error()
}

func newApp(notFound *string) *cli.App {
	onUsage := func(_ *cli.Context, err error, _ bool) error {
		return &usageError{fmt.Errorf("%w (see --help)", err)}
	}
	app := &cli.App{
		Name:                 "wr",
		Usage:                "keep terminal sessions alive; attach to them from any terminal, many at once",
		Version:              wire.Version,
		HideHelpCommand:      true,
		EnableBashCompletion: false,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Usage: "server socket `PATH`", EnvVars: []string{"WR_SOCKET"}},
		},
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError:    onUsage,
		CommandNotFound: func(_ *cli.Context, name string) { *notFound = name },
		Commands: []*cli.Command{
			attachCommand(), newCommand(), lsCommand(), killCommand(), sendCommand(),
			captureCommand(), waitCommand(), serverCommand(), versionCommand(),
		},
	}
	var setUsage func([]*cli.Command)
	setUsage = func(cs []*cli.Command) {
		for _, c := range cs {
			c.OnUsageError = onUsage
			setUsage(c.Subcommands)
		}
	}
	setUsage(app.Commands)
	return app
}

// socketPath resolves --socket / $WR_SOCKET / the default.
func socketPath(c *cli.Context) (string, error) {
	return wire.SocketPath(c.String("socket"))
}

// splitCommand splits NAME [-- CMD ARGS] into the name and the command.
func splitCommand(c *cli.Context) (string, []string, error) {
	args := c.Args().Slice()
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

// checkName refuses a session name outside the rule, as a usage error.
func checkName(name string) error {
	if err := wire.CheckName(name); err != nil {
		if errors.Is(err, wire.ErrBadName) {
			err = fmt.Errorf("invalid session name %q: %s", name, wire.NameRule)
		}
		return &usageError{err}
	}
	return nil
}

// sessionRequest makes one request about an existing session without
// starting a server: no server means no such session.
func sessionRequest(c *cli.Context, name string, t wire.Type, req, reply any) error {
	socket, err := socketPath(c)
	if err != nil {
		return err
	}
	err = attach.Do(socket, t, req, reply)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, attach.ErrNoServer):
		return fail(1, "no session named %s", name)
	default:
		return err
	}
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

func sessionConfig(c *cli.Context, command []string) wire.SessionConfig {
	cwd, _ := os.Getwd()
	cfg := wire.SessionConfig{Command: command, Cwd: cwd, Env: os.Environ(), Scrollback: c.Int("scrollback")}
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

// detachKeyFlag picks the key that detaches a client.
var detachKeyFlag = &cli.StringFlag{Name: "detach-key", Value: `ctrl-\`, EnvVars: []string{"WR_DETACH_KEY"}, Usage: "key that detaches (ctrl-X or none)"}

// keepFlag sets how long a new session is kept, exited, when it ends with
// nobody attached.
var keepFlag = &cli.DurationFlag{Name: "keep", Value: 24 * time.Hour, Usage: "keep a session that ends while detached, with its code and screen, for `DURATION` (0: not at all)"}

// scrollbackFlag sets a new session's scrollback.
var scrollbackFlag = &cli.IntFlag{Name: "scrollback", Value: screen.DefaultScrollback, Usage: "lines of scrollback kept for a new session"}

func attachCommand() *cli.Command {
	return &cli.Command{
		Name:      "attach",
		Usage:     "attach to a session, creating it if it does not exist",
		ArgsUsage: "NAME [-- CMD [ARG...]]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "read-only", Aliases: []string{"r"}, Usage: "watch only: input is dropped and the size is never taken"},
			&cli.BoolFlag{Name: "no-create", Usage: "fail if the session does not exist"},
			detachKeyFlag,
			scrollbackFlag,
			keepFlag,
			&cli.StringFlag{Name: "restore", Value: "scrollback", EnvVars: []string{"WR_RESTORE"}, Usage: "what a reattach draws: `scrollback` (what this terminal has not been shown, and the screen) or screen (the screen only)"},
		},
		Action: func(c *cli.Context) error {
			name, command, err := splitCommand(c)
			if err != nil {
				return err
			}
			switch c.String("restore") {
			case "scrollback", wire.RestoreScreen:
			default:
				return &usageError{fmt.Errorf("bad --restore %q: scrollback or screen", c.String("restore"))}
			}
			return doAttach(c, name, command, !c.Bool("no-create"), false, c.Bool("read-only"), c.String("detach-key"))
		},
	}
}

func doAttach(c *cli.Context, name string, command []string, create, exclusive, readOnly bool, keySpec string) error {
	key, err := attach.ParseDetachKey(keySpec)
	if err != nil {
		if errors.Is(err, attach.ErrBadDetachKey) {
			err = fmt.Errorf("bad detach key %q: %s", keySpec, attach.DetachKeyRule)
		}
		return &usageError{err}
	}
	socket, err := socketPath(c)
	if err != nil {
		return err
	}
	if os.Getenv("WR_SESSION") == name && os.Getenv("WR_SOCKET") == socket {
		return fail(1, "already inside session %s; attaching to it from inside itself would loop", name)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(1, "cannot find my own binary to start the server: %v", err)
	}
	code, err := attach.Run(attach.Options{
		Socket: socket, Exe: exe, Name: name,
		Create: create, Exclusive: exclusive, ReadOnly: readOnly, DetachKey: key,
		Restore: restoreMode(c),
		Config:  sessionConfig(c, command),
		Stdin:   os.Stdin, Stdout: os.Stdout,
	})
	// Run has restored the terminal: the error line reads cleanly after it.
	if errors.Is(err, attach.ErrNoServer) {
		err = fmt.Errorf("no session named %s (no server is running)", name)
	}
	if code != 0 || err != nil {
		return &exitError{code: code, err: err}
	}
	return nil
}

// restoreMode is wire.Attach.Restore for --restore (wr new has none).
func restoreMode(c *cli.Context) string {
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
		},
		Action: func(c *cli.Context) error {
			name, command, err := splitCommand(c)
			if err != nil {
				return err
			}
			if !c.Bool("detached") {
				return doAttach(c, name, command, true, true, false, c.String("detach-key"))
			}
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fail(1, "cannot find my own binary to start the server: %v", err)
			}
			req := wire.New{Name: name, Config: sessionConfig(c, command)}
			return attach.Create(socket, exe, wire.TypeNew, req, nil)
		},
	}
}

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list sessions",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print a JSON array"}},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return &usageError{fmt.Errorf("ls takes no arguments (got %q)", c.Args().First())}
			}
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			var reply wire.Sessions
			err = attach.Do(socket, wire.TypeList, wire.List{}, &reply)
			if err != nil && !errors.Is(err, attach.ErrNoServer) {
				return err
			}
			if reply.Sessions == nil {
				reply.Sessions = []wire.SessionInfo{}
			}
			if c.Bool("json") {
				b, _ := json.MarshalIndent(reply.Sessions, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			if len(reply.Sessions) == 0 {
				return nil
			}
			tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTATUS\tPID\tCLIENTS\tSIZE\tCREATED\tCOMMAND")
			for _, s := range reply.Sessions {
				created := s.Created
				if t, err := time.Parse(time.RFC3339, s.Created); err == nil {
					created = t.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%dx%d\t%s\t%s\n", s.Name, status(s), s.PID, s.Clients, s.Cols, s.Rows, created, strings.Join(s.Command, " "))
			}
			return tw.Flush()
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
			if all && exited || (all || exited) == (len(names) > 0) {
				return &usageError{errors.New("kill takes session names, --all or --exited")}
			}
			for _, n := range names {
				if err := checkName(n); err != nil {
					return err
				}
			}
			if all || exited {
				socket, err := socketPath(c)
				if err != nil {
					return err
				}
				// With no server there is nothing to kill: that is success.
				if err := attach.Do(socket, wire.TypeKill, wire.Kill{All: all, Exited: exited}, nil); err != nil && !errors.Is(err, attach.ErrNoServer) {
					return err
				}
				return nil
			}
			return sessionRequest(c, names[0], wire.TypeKill, wire.Kill{Names: names}, nil)
		},
	}
}

// sendTimeoutFlag bounds a wr send.
var sendTimeoutFlag = &cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "give up if the program has not taken all the text within `DURATION` (0: wait forever)"}

func sendCommand() *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "write TEXT to a session as if typed",
		ArgsUsage: "NAME [--enter] [--timeout DURATION] TEXT... | -",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "enter", Usage: "press Enter after the text"},
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
			// The design's order is `wr send NAME --enter TEXT`, and the flag
			// parser stops at NAME: take --enter and --timeout from among
			// the words too, up to a "--" after which everything is text.
			enter := c.Bool("enter")
			timeout := c.Duration("timeout")
			var words []string
			dashDash := false
			rest := args[1:]
			for i := 0; i < len(rest); i++ {
				a := rest[i]
				if a == "--" {
					words = append(words, rest[i+1:]...)
					dashDash = true
					break
				}
				if a == "--enter" || a == "-enter" {
					enter = true
					continue
				}
				if v, ok := strings.CutPrefix(a, "--timeout="); ok || a == "--timeout" {
					if !ok {
						if i+1 == len(rest) {
							return &usageError{errors.New("--timeout needs a DURATION (10s, 1m, 0 for none)")}
						}
						i++
						v = rest[i]
					}
					d, err := time.ParseDuration(v)
					if err != nil || d < 0 {
						return &usageError{fmt.Errorf("--timeout %q: want a DURATION such as 10s, 1m or 0", v)}
					}
					timeout = d
					continue
				}
				words = append(words, a)
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
				if enter {
					text = io.MultiReader(text, strings.NewReader("\r"))
					if size >= 0 {
						size++
					}
				}
				return doSend(c, name, text, size, nil, timeout)
			}
			text := strings.Join(words, " ")
			if enter {
				text += "\r"
			}
			if text == "" {
				return &usageError{errors.New("nothing to send: give TEXT or --enter")}
			}
			return doSend(c, name, strings.NewReader(text), int64(len(text)), []byte(text), timeout)
		},
	}
}

// doSend streams text (size bytes, -1 if not known) to session name, so
// any size arrives; to a server too old for that (protocol 1.0) it sends
// data, the text when it was given on the command line, in one frame when
// it fits.
func doSend(c *cli.Context, name string, text io.Reader, size int64, data []byte, timeout time.Duration) error {
	socket, err := socketPath(c)
	if err != nil {
		return err
	}
	ms := timeout.Milliseconds()
	if timeout > 0 && ms == 0 {
		ms = 1
	}
	conn, err := attach.Dial(socket)
	if errors.Is(err, attach.ErrNoServer) {
		return fail(1, "no session named %s", name)
	}
	if err != nil {
		return err
	}
	_, err = conn.SendStream(wire.SendStream{Name: name, Size: size, TimeoutMS: ms}, text)
	conn.Close()
	if errors.Is(err, attach.ErrOldServer) {
		if p, eerr := wire.Encode(wire.Send{Name: name, Data: data, TimeoutMS: ms}); data == nil || eerr != nil || len(p) > wire.MaxPayload {
			w := conn.Welcome
			return fail(1, "the server is too old for this request (server %s, protocol %d.%d): it takes at most about 780 KB per send, and not from stdin (`wr server stop` ends it and its sessions; this wr then starts a new one)", w.Version, w.Protocol, w.Minor)
		}
		return sessionRequest(c, name, wire.TypeSend, wire.Send{Name: name, Data: data, TimeoutMS: ms}, nil)
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
			name, err := oneName(c)
			if err != nil {
				return err
			}
			socket, err := socketPath(c)
			if err != nil {
				return err
			}
			conn, err := attach.Dial(socket)
			if errors.Is(err, attach.ErrNoServer) {
				return fail(1, "no session named %s", name)
			}
			if err != nil {
				return err
			}
			defer conn.Close()
			// The whole text, then one write: a capture that fails half way
			// prints nothing.
			var text bytes.Buffer
			if err := conn.Capture(wire.Capture{Name: name, ANSI: c.Bool("ansi"), Scrollback: c.Bool("scrollback")}, &text); err != nil {
				return err
			}
			if _, err := os.Stdout.Write(text.Bytes()); err != nil {
				return fail(1, "write: %v", err)
			}
			return nil
		},
	}
}

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait for a session to end and exit with its code",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			name, err := oneName(c)
			if err != nil {
				return err
			}
			var ex wire.Exited
			if err := sessionRequest(c, name, wire.TypeWait, wire.Wait{Name: name}, &ex); err != nil {
				return err
			}
			if ex.Code != 0 {
				return &exitError{code: ex.Code}
			}
			return nil
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
				Flags: []cli.Flag{&cli.BoolFlag{Name: "daemon", Usage: "detach from the terminal and log to SOCKET.log"}},
				Action: func(c *cli.Context) error {
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
					// Benchmarks). While a session is in a burst the
					// server takes a second P, so that another session's
					// echo need not wait for a busy P to poll the network
					// (mux/procs.go). Set here rather than for every
					// command: changing it stops the world, which costs a
					// client that must start fast up to a millisecond.
					runtime.GOMAXPROCS(1)
					opts := mux.Options{Socket: socket}
					if c.Bool("daemon") {
						w, err := mux.Daemonize(socket)
						if err != nil {
							return err
						}
						opts.Log = w
					}
					err = mux.Run(opts)
					if errors.Is(err, mux.ErrRunning) {
						return fail(1, "a server is already running on %s; stop it or pick another --socket", socket)
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
					err = attach.Do(socket, wire.TypeStop, wire.Stop{}, nil)
					if errors.Is(err, attach.ErrNoServer) {
						return fail(1, "no server running on %s", socket)
					}
					return err
				},
			},
			{
				Name:  "status",
				Usage: "print the server's pid, version, uptime, session count, socket and goroutine count",
				Action: func(c *cli.Context) error {
					socket, err := socketPath(c)
					if err != nil {
						return err
					}
					var st wire.ServerStatus
					err = attach.Do(socket, wire.TypeStatus, wire.Status{}, &st)
					if errors.Is(err, attach.ErrNoServer) {
						return fail(1, "no server running on %s", socket)
					}
					if err != nil {
						return err
					}
					fmt.Printf("pid %d\nversion %s\nuptime %s\nsessions %d\nsocket %s\ngoroutines %d\nheap-kib %d\n",
						st.PID, st.Version, (time.Duration(st.Uptime) * time.Second).String(), st.Sessions, st.Socket, st.Goroutines, st.HeapKiB)
					return nil
				},
			},
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print wr's version",
		Action: func(*cli.Context) error {
			fmt.Printf("wr %s (protocol %d.%d)\n", wire.Version, wire.ProtocolMajor, wire.ProtocolMinor)
			return nil
		},
	}
}
