package attach

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wr/wire"
)

// fakeServer listens on a socket in a fresh directory and runs serve on
// each connection after answering its Hello with a Welcome of minor.
func fakeServer(t *testing.T, minor int, serve func(c net.Conn, req wire.Frame)) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if f, err := wire.ReadFrame(c); err != nil || f.Type != wire.TypeHello {
					return
				}
				p, _ := wire.Encode(wire.Welcome{Protocol: wire.ProtocolMajor, Minor: minor, Version: "old"})
				wire.WriteFrame(c, wire.TypeWelcome, p)
				f, err := wire.ReadFrame(c)
				if err != nil {
					return
				}
				serve(c, f)
			}()
		}
	}()
	return sock
}

// oldServer answers as a protocol 1.0 server does: a request type it does
// not know is an Error, and the connection closes.
func oldServer(c net.Conn, f wire.Frame) {
	if !f.Type.Known() || f.Type == wire.TypeSendStream {
		p, _ := wire.Encode(wire.Error{Code: wire.CodeBadFrame, Message: "unsupported request " + f.Type.String()})
		wire.WriteFrame(c, wire.TypeError, p)
		return
	}
	if f.Type == wire.TypeCapture {
		p, _ := wire.Encode(wire.Screen{Text: "old screen\n"})
		wire.WriteFrame(c, wire.TypeScreen, p)
	}
}

// A streamed send to a 1.0 server is ErrOldServer at once, before any of
// the text is sent: not a hang, not a misleading success.
func TestSendStreamOldServer(t *testing.T) {
	sock := fakeServer(t, 0, oldServer)
	c, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.SendStream(wire.SendStream{Name: "x", Size: 8 << 20, TimeoutMS: 1000}, bytes.NewReader(make([]byte, 8<<20)))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrOldServer) || !strings.Contains(err.Error(), "1.0") {
			t.Fatalf("SendStream to a 1.0 server = %v, want ErrOldServer naming protocol 1.0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SendStream to a 1.0 server hung")
	}
}

// A capture from a 1.0 server, which ignores Stream and answers with one
// Screen, still arrives.
func TestCaptureOldServer(t *testing.T) {
	sock := fakeServer(t, 0, oldServer)
	c, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out bytes.Buffer
	if err := c.Capture(wire.Capture{Name: "x"}, &out); err != nil || out.String() != "old screen\n" {
		t.Fatalf("Capture = %q, %v", out.String(), err)
	}
}

// A streamed capture arrives whole; an Error instead of the text is a
// *wire.Error; a stream cut short is an error, not a short capture.
func TestCaptureStream(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789abcdef\n"), 200_000) // 3.4 MB
	sock := fakeServer(t, 1, func(c net.Conn, f wire.Frame) {
		var req wire.Capture
		if wire.Decode(f, &req) != nil || !req.Stream {
			return
		}
		switch req.Name {
		case "whole":
			wire.WriteData(c, text, wire.MaxPayload)
		case "cut":
			d := wire.NewDataWriter(c, 0)
			d.Write(text[:100_000]) // no End
		default:
			p, _ := wire.Encode(wire.Error{Code: wire.CodeNoSession, Message: "no session named " + req.Name})
			wire.WriteFrame(c, wire.TypeError, p)
		}
	})
	capture := func(name string) (string, error) {
		c, err := Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var out bytes.Buffer
		err = c.Capture(wire.Capture{Name: name}, &out)
		return out.String(), err
	}
	if got, err := capture("whole"); err != nil || got != string(text) {
		t.Fatalf("whole: %d bytes, %v; want %d bytes", len(got), err, len(text))
	}
	if _, err := capture("none"); !wire.IsCode(err, wire.CodeNoSession) {
		t.Fatalf("none: %v, want a no-session *wire.Error", err)
	}
	if _, err := capture("cut"); err == nil {
		t.Fatal("cut: a stream without End gave no error")
	}
}

// A request too large for a frame is called a request, not a reply.
func TestRequestTooLargeSaysRequest(t *testing.T) {
	sock := fakeServer(t, 1, func(net.Conn, wire.Frame) {})
	c, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Request(wire.TypeSend, wire.Send{Name: "x", Data: make([]byte, 1<<20)}, nil)
	if !errors.Is(err, wire.ErrFrameTooLarge) || !strings.Contains(err.Error(), "Send request too large") || strings.Contains(err.Error(), "reply") {
		t.Fatalf("err = %v, want a request-too-large error that does not call it a reply", err)
	}
}

// An attach that needs a newer server (a recorder, -d) is never sent to an
// older one: a 1.2 server would take it for a plain attach, and a plain
// attach collects an exited session.
func TestOpenNeedingNewerServerSendsNothing(t *testing.T) {
	sent := make(chan wire.Type, 1)
	sock := fakeServer(t, 2, func(c net.Conn, f wire.Frame) { sent <- f.Type })
	_, _, err := Open(sock, "", wire.Attach{Name: "x", Record: true}, 3)
	if !errors.Is(err, ErrOldServer) {
		t.Fatalf("Open = %v, want ErrOldServer", err)
	}
	select {
	case typ := <-sent:
		t.Fatalf("the old server was sent %s", typ)
	case <-time.After(100 * time.Millisecond):
	}
}

// A server that exits as a client connects (its socket removed, then its
// listener closed, before it accepted the client) is no server to that
// client, as it would be a moment later; a server that hangs up with its
// socket still there did not greet it.
func TestServerExitingAsClientConnects(t *testing.T) {
	for _, tc := range []struct {
		name       string
		removeSock bool
		noServer   bool
	}{
		{"socket removed, then listener closed", true, true},
		{"listener closed, socket left", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "s.sock")
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			c, err := Dial(sock) // in the listener's backlog, never accepted
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tc.removeSock {
				if err := os.Remove(sock); err != nil {
					t.Fatal(err)
				}
			}
			ln.Close()
			var reply wire.Sessions
			err = c.Request(wire.TypeList, wire.List{}, &reply)
			if got := errors.Is(err, ErrNoServer); got != tc.noServer {
				t.Fatalf("Request = %v; ErrNoServer %v, want %v", err, got, tc.noServer)
			}
		})
	}
}
