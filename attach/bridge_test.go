package attach

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"

	"wr/wire"
)

// frameEdge finds the ends of frames however the stream is cut, and marks
// a stream attached from its Attached frame on.
func TestFrameEdge(t *testing.T) {
	var stream []byte
	stream, _ = wire.AppendFrame(stream, wire.TypeWelcome, []byte(`{"protocol":1}`))
	welcomeEnd := len(stream)
	stream, _ = wire.AppendFrame(stream, wire.TypeAttached, []byte(`{}`))
	attachedEnd := len(stream)
	stream, _ = wire.AppendFrame(stream, wire.TypeOutput, bytes.Repeat([]byte("x"), 1000))
	for _, step := range []int{1, 3, 7, 64, len(stream)} {
		var e frameEdge
		for i := 0; i < len(stream); i += step {
			end := min(i+step, len(stream))
			e.feed(stream[i:end])
			// Only at a frame's end, whatever was fed.
			atEnd := end == welcomeEnd || end == attachedEnd || end == len(stream)
			if e.between() != atEnd {
				t.Fatalf("step %d: after %d bytes between() = %v, want %v", step, end, e.between(), atEnd)
			}
			if want := end >= welcomeEnd+wire.HeaderLen; e.attached != want {
				t.Fatalf("step %d: after %d bytes attached = %v, want %v", step, end, e.attached, want)
			}
		}
	}
}

// The bridge writes its preamble, then carries frames both ways, and
// writes KeepAlives to an attached client the server is silent to.
func TestBridgeCarriesFramesAndKeepsAlive(t *testing.T) {
	got := make(chan wire.Frame, 4)
	sock := fakeServer(t, wire.ProtocolMinor, func(c net.Conn, req wire.Frame) {
		got <- req
		wire.WriteFrame(c, wire.TypeAttached, []byte(`{"name":"s"}`))
		_, _ = wire.ReadFrame(c) // until the client goes
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Bridge(BridgeOptions{Socket: sock, In: inR, Out: outW, KeepAlive: 5e6, Say: func(err error) string { return err.Error() }})
		outW.Close()
	}()
	br := bufio.NewReader(outR)
	magic := make([]byte, len(wire.BridgeMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != wire.BridgeMagic {
		t.Fatalf("preamble starts %q, %v", magic, err)
	}
	line, _ := br.ReadString('\n')
	var hello wire.BridgeHello
	if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.State != wire.BridgeReady || hello.Protocol != wire.ProtocolMajor {
		t.Fatalf("hello %q: %+v %v", line, hello, err)
	}
	var out []byte
	out, _ = wire.AppendFrame(out, wire.TypeHello, []byte(`{"protocol":1}`))
	out, _ = wire.AppendFrame(out, wire.TypeAttach, []byte(`{"name":"s"}`))
	go inW.Write(out)
	for _, want := range []wire.Type{wire.TypeWelcome, wire.TypeAttached, wire.TypeKeepAlive, wire.TypeKeepAlive} {
		f, err := wire.ReadFrame(br)
		if err != nil || f.Type != want {
			t.Fatalf("read %s, %v; want %s", f.Type, err, want)
		}
	}
	if req := <-got; req.Type != wire.TypeAttach {
		t.Fatalf("the server got %s", req.Type)
	}
	// The client's end of input ends the bridge.
	inW.Close()
	go io.Copy(io.Discard, br)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Without a server, and not asked to start one, the bridge says so in its
// preamble and ends.
func TestBridgeNoServer(t *testing.T) {
	var out bytes.Buffer
	err := Bridge(BridgeOptions{Socket: t.TempDir() + "/none.sock", In: strings.NewReader(""), Out: &out, Say: func(err error) string { return err.Error() }})
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := strings.CutPrefix(out.String(), wire.BridgeMagic)
	var hello wire.BridgeHello
	if !ok || json.Unmarshal([]byte(rest), &hello) != nil || hello.State != wire.BridgeNoServer {
		t.Fatalf("preamble %q", out.String())
	}
}
