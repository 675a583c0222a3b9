package attach

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"wr/wire"
)

// A client that would start a server (wr attach creating, wr new), whose
// server exits as it connects, starts the next one, as it would have a
// moment later, rather than failing with no server.
func TestRequestStartsAServerAfterOneExits(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	started := filepath.Join(dir, "started")
	exe := filepath.Join(dir, "fake-wr")
	// The "server" binary only says it was run; the test serves for it.
	if err := os.WriteFile(exe, []byte("#!/bin/sh\ntouch '"+started+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	// The server that exits: it takes the connection, removes its socket
	// and closes everything, the greeting unread.
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	go func() {
		c, err := old.Accept()
		if err != nil {
			return
		}
		_ = os.Remove(sock)
		old.Close()
		c.Close()
	}()
	t.Cleanup(func() { old.Close() })

	// The next server, once the client has run exe to start it.
	served := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				served <- os.ErrDeadlineExceeded
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		ln, err := net.Listen("unix", sock)
		if err != nil {
			served <- err
			return
		}
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		if f, err := wire.ReadFrame(c); err != nil || f.Type != wire.TypeHello {
			served <- err
			return
		}
		p, _ := wire.Encode(wire.Welcome{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: "next"})
		wire.WriteFrame(c, wire.TypeWelcome, p)
		if _, err := wire.ReadFrame(c); err != nil {
			served <- err
			return
		}
		p, _ = wire.Encode(wire.Sessions{Sessions: []wire.SessionInfo{{Name: "next"}}})
		served <- wire.WriteFrame(c, wire.TypeSessions, p)
	}()

	var reply wire.Sessions
	conn, err := request(sock, exe, wire.TypeList, wire.List{}, &reply, 0)
	if err != nil {
		t.Fatalf("request after the server exited: %v", err)
	}
	conn.Close()
	if err := <-served; err != nil {
		t.Fatalf("the next server: %v", err)
	}
	if len(reply.Sessions) != 1 || reply.Sessions[0].Name != "next" {
		t.Fatalf("reply %+v, want the next server's", reply)
	}
}
