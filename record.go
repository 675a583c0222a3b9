package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"wr/attach"
	"wr/client"
	"wr/internal/rawio"
)

// createRecording opens path for a recording, write-only: os.Create's
// read-write open would make wr a reader of a FIFO it is given, so once
// the real reader left every write would block for ever instead of
// failing. It is opened before anything is asked of the server, so a file
// that cannot be written is said at once, and emptied only by the
// recording's first write: a command that fails (no such session, a name
// taken, no server) leaves the file as it was, and makes none.
func createRecording(path string) (*recording, error) {
	if path == "-" {
		return nil, &usageError{errors.New("--record - would write the recording where nobody reads it (the terminal, or nowhere for wr new -d); `wr record NAME -` writes one to stdout")}
	}
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fail(1, "cannot create the recording: %v", err)
	}
	return &recording{f: f, path: path, made: errors.Is(statErr, fs.ErrNotExist)}, nil
}

// recording is the file a recording goes to (createRecording).
type recording struct {
	f       *os.File
	path    string
	made    bool // createRecording made it
	written bool
}

func (r *recording) Write(p []byte) (int, error) {
	if !r.written {
		r.written = true
		if fi, err := r.f.Stat(); err == nil && fi.Mode().IsRegular() {
			if err := r.f.Truncate(0); err != nil {
				return 0, err
			}
		}
	}
	return r.f.Write(p)
}

// Close closes the file, and removes it if createRecording made it and
// nothing was recorded.
func (r *recording) Close() error {
	err := r.f.Close()
	if r.made && !r.written {
		_ = os.Remove(r.path)
	}
	return err
}

// recorderReady is what a background recorder (wr new -d --record) says
// on its stderr once it holds the session it created.
const recorderReady = "wr-recorder-ready"

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "write a session's output to FILE as an asciicast v2 recording, until it ends or wr is interrupted",
		ArgsUsage: "NAME FILE",
		Flags: []cli.Flag{
			// The background recorder of wr new -d --record: it creates
			// the session, so the recording holds it from its start.
			&cli.BoolFlag{Name: "create", Hidden: true},
			&cli.IntFlag{Name: "scrollback", Hidden: true, Value: scrollbackFlag.Value, Action: notNegative[int]("scrollback")},
			&cli.DurationFlag{Name: "keep", Hidden: true, Value: keepFlag.Value, Action: notNegative[time.Duration]("keep")},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			var command []string
			if i := slices.Index(args, "--"); i >= 0 {
				args, command = args[:i], args[i+1:]
			}
			if len(args) != 2 {
				return &usageError{errors.New("record takes the session's NAME and the FILE to write")}
			}
			name, path := args[0], args[1]
			if err := checkName(name); err != nil {
				return err
			}
			if command != nil && !c.Bool("create") {
				return &usageError{errors.New("record takes no command; wr new -d --record FILE NAME -- CMD records a new session from its start")}
			}
			host, name := splitHost(name)
			cl, err := clientAt(c, host)
			if err != nil {
				return err
			}
			// "-" is stdout, as for asciinema's cat and most tools: wr
			// record NAME - | gzip.
			var f *recording
			var w io.Writer = stdout
			if path != "-" || c.Bool("create") {
				if f, err = createRecording(path); err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			stop := make(chan struct{})
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer signal.Stop(sigs)
			go func() {
				if _, ok := <-sigs; ok {
					close(stop)
				}
			}()
			opt := client.RecordOptions{Stop: stop, Env: os.Environ()}
			if c.Bool("create") {
				cfg := sessionConfig(c, command)
				opt.Create = &cfg
				if opt.Exe, err = executable(); err != nil {
					return fail(1, "cannot find my own binary to start the server: %v", err)
				}
				opt.Ready = func() {
					// The starter reads this and exits; from here on there
					// is nobody to read stderr.
					fmt.Fprintln(os.Stderr, recorderReady)
					if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
						_ = unix.Dup2(int(null.Fd()), 2)
						null.Close()
					}
				}
			}
			if err := cl.Record(name, w, opt); err != nil {
				return err
			}
			if f != nil {
				if err := f.Close(); err != nil {
					return fail(1, "write the recording: %v", err)
				}
			}
			return nil
		},
	}
}

// startRecorder is wr new -d --record: a recorder in the background creates
// the session, and this returns once it has (or says why it could not),
// so the recording holds everything from the session's start and the
// session exists when wr new returns, as with any wr new -d.
func startRecorder(c *cli.Context, exe, name, path string, command []string) error {
	socket, err := socketPath(c)
	if err != nil {
		return err
	}
	args := []string{"--socket", socket, "record", "--create", "--scrollback", fmt.Sprint(c.Int("scrollback"))}
	if c.IsSet("keep") {
		args = append(args, "--keep", c.Duration("keep").String())
	}
	args = append(args, name, path)
	if len(command) > 0 {
		args = append(append(args, "--"), command...)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The recorder is not part of the session this runs in: a wr kill of
	// that session must not sweep it. Nor does it hold, for the session's
	// life, what this process inherited without close-on-exec (make's
	// jobserver pipes, a shell's exec 5>file).
	cmd.Env = attach.WithoutSessionVars(os.Environ())
	rawio.CloseOnExecInherited()
	if err := cmd.Start(); err != nil {
		w.Close()
		return fail(1, "cannot start the recorder: %v", err)
	}
	w.Close()
	br := bufio.NewReader(r)
	line, _ := br.ReadString('\n')
	if strings.TrimSpace(line) == recorderReady {
		_ = cmd.Process.Release()
		return nil
	}
	// It failed before the session was made: its words are the error.
	rest, _ := io.ReadAll(br)
	werr := cmd.Wait()
	os.Stderr.WriteString(line + string(rest))
	code := 1
	var ee *exec.ExitError
	if errors.As(werr, &ee) && ee.ExitCode() > 0 {
		code = ee.ExitCode()
	}
	return &exitError{code: code}
}
