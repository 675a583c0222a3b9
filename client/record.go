package client

import (
	"errors"
	"fmt"
	"io"
	"net"

	"wr/attach"
	"wr/wire"
)

// RecordOptions tunes Record.
type RecordOptions struct {
	// Stop ends the recording when closed (an interrupted wr record).
	Stop <-chan struct{}
	// Create, if set, creates the session from it, with the recorder as
	// its first client, so the recording holds everything from its start
	// (wr new -d --record); Exe starts a server when none runs.
	Create *wire.SessionConfig
	Exe    string
	// Env is what the recording's header says of the environment (TERM,
	// SHELL); nil: Create's.
	Env []string
	// Ready, if set, is called once the recorder is attached.
	Ready func()
}

// Record writes session name's output to w as an asciicast v2 recording
// (attach.Cast): its screen as it is, then everything the program writes,
// timed, and each change of the session's size, until the session ends or
// opt.Stop is closed. A recorder is a client that only watches and never
// owns the size; wr detach leaves it attached.
func (c *Client) Record(name string, w io.Writer, opt RecordOptions) error {
	req := wire.Attach{Name: name, ReadOnly: true, Record: true}
	exe := ""
	env := opt.Env
	if opt.Create != nil {
		req.Create, req.Exclusive, req.Config = true, true, *opt.Create
		exe = opt.Exe
		if env == nil {
			env = opt.Create.Env
		}
	}
	conn, acc, err := attach.Open(c.Socket, exe, req, 3)
	if errors.Is(err, attach.ErrNoServer) {
		return noSession(name)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	cast, err := attach.NewCast(w, acc.Cols, acc.Rows, attach.CastEnv(env), acc.Name)
	if err != nil {
		return fmt.Errorf("cannot start the recording: %w", err)
	}
	defer cast.Close()
	if opt.Ready != nil {
		opt.Ready()
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-opt.Stop:
			conn.Close() // ends ReadFrame below
		case <-stopped:
		}
	}()
	for {
		f, err := conn.ReadFrame()
		if err != nil {
			select {
			case <-opt.Stop:
				return cast.Close()
			default:
			}
			if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
				return fmt.Errorf("lost the server while recording %s: %w", name, err)
			}
			return err
		}
		switch f.Type {
		case wire.TypeOutput:
			err = cast.Output(f.Payload)
		case wire.TypeSize:
			var r wire.Resize
			if err = wire.Decode(f, &r); err == nil {
				err = cast.Resize(r.Cols, r.Rows)
			}
		case wire.TypeExited:
			return cast.Close()
		case wire.TypeError:
			e := new(wire.Error)
			_ = wire.Decode(f, e)
			return e
		}
		if err != nil {
			return fmt.Errorf("write the recording: %w", err)
		}
	}
}
