package attach

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"wr/wire"
)

// BridgeOptions describes one wr bridge: the remote half of a client on
// another machine, run there by ssh.
type BridgeOptions struct {
	Socket string // this machine's server
	Exe    string // the wr binary, to start the server (Start)
	// Start starts the server when none runs: the client's verb may
	// create a session.
	Start bool
	// KeepAlive, when above 0, writes a KeepAlive to an attached client
	// that was sent nothing for that long.
	KeepAlive time.Duration
	In        io.Reader // the ssh channel: the client's frames
	Out       io.Writer // the ssh channel: the server's frames, and the preamble
	// Say words an error for the client's person.
	Say func(error) string
}

// bridgeLinger bounds how long the bridge waits for the server to finish
// once the client's side has ended: a client that went away mid-request
// must not leave a bridge behind.
const bridgeLinger = 10 * time.Second

// Bridge writes the preamble (wire.BridgeMagic and a BridgeHello) and
// carries frames between In/Out and the server until either side ends. It
// returns an error only when the preamble could not say it.
//
// The bytes from the client are copied as they come. The bytes from the
// server are copied too, but counted off frame by frame (frameEdge), so a
// KeepAlive is only ever written between two frames.
func Bridge(o BridgeOptions) error {
	hello := wire.BridgeHello{
		Version: wire.Version, Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor,
		State: wire.BridgeReady, Env: bridgeEnv(), Cwd: bridgeCwd(),
	}
	var conn *Conn
	var err error
	if o.Start {
		conn, err = dialOrStart(o.Socket, o.Exe)
	} else {
		conn, err = Dial(o.Socket)
	}
	switch {
	case errors.Is(err, ErrNoServer):
		hello.State = wire.BridgeNoServer
	case err != nil:
		hello.State, hello.Error = wire.BridgeFailed, o.Say(err)
	}
	line, _ := json.Marshal(hello)
	if _, werr := io.WriteString(o.Out, wire.BridgeMagic+string(line)+"\n"); werr != nil || conn == nil {
		if conn != nil {
			conn.Close()
		}
		return werr
	}
	defer conn.Close()

	// Frames from the client, as they come; its end is the server's end
	// of input.
	inDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(conn.c, o.In)
		_ = conn.c.CloseWrite()
		close(inDone)
	}()
	var mu sync.Mutex // one writer of Out at a time: frames and KeepAlives
	var edge frameEdge
	last := time.Now()
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		buf := make([]byte, 64<<10)
		for {
			n, err := conn.c.Read(buf)
			if n > 0 {
				mu.Lock()
				_, werr := o.Out.Write(buf[:n])
				edge.feed(buf[:n])
				last = time.Now()
				mu.Unlock()
				if werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	var tick <-chan time.Time
	if o.KeepAlive > 0 {
		t := time.NewTicker(max(o.KeepAlive/4, 10*time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	keepAlive, _ := wire.AppendFrame(nil, wire.TypeKeepAlive, nil)
	var linger <-chan time.Time
	for {
		select {
		case <-outDone:
			return nil
		case <-inDone:
			inDone = nil
			linger = time.After(bridgeLinger)
		case <-linger:
			return nil
		case <-tick:
			mu.Lock()
			if edge.attached && edge.between() && time.Since(last) >= o.KeepAlive {
				_, _ = o.Out.Write(keepAlive)
				last = time.Now()
			}
			mu.Unlock()
		}
	}
}

// frameEdge follows the frames in a byte stream: where each ends, and
// whether the stream is an attached client's (it carried Attached), the
// only kind a KeepAlive is written to (a request's reply must be the next
// frame its client reads).
type frameEdge struct {
	header   [wire.HeaderLen]byte
	have     int // bytes of header read
	left     int // bytes of the current payload still to come
	attached bool
}

// between reports whether the bytes so far end at a frame's end.
func (e *frameEdge) between() bool { return e.have == 0 && e.left == 0 }

func (e *frameEdge) feed(p []byte) {
	for len(p) > 0 {
		if e.left > 0 {
			n := min(e.left, len(p))
			e.left -= n
			p = p[n:]
			continue
		}
		n := copy(e.header[e.have:], p)
		e.have += n
		p = p[n:]
		if e.have == wire.HeaderLen {
			e.have = 0
			e.left = int(binary.BigEndian.Uint32(e.header[1:]))
			if wire.Type(e.header[0]) == wire.TypeAttached {
				e.attached = true
			}
		}
	}
}

// bridgeEnv is the environment a session created through the bridge runs
// with: the ssh login's, less what ties it to a session or a socket.
func bridgeEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "WR_SESSION=") || strings.HasPrefix(kv, "WR_SESSION_ID=") || strings.HasPrefix(kv, "WR_SOCKET=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// bridgeCwd is where a session created through the bridge starts: where
// ssh started it, the user's home.
func bridgeCwd() string {
	d, _ := os.Getwd()
	return d
}
