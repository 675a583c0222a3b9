package mux

import (
	"io"
	"log"
	"net"
	"strings"
	"testing"

	"wr/wire"
)

// A reply too large for one frame (a huge session list, a huge capture)
// becomes an error reply: never a panic, never a hang.
func TestReplyTooLargeBecomesError(t *testing.T) {
	s := &server{log: log.New(io.Discard, "", 0)}
	server, client := net.Pipe()
	defer client.Close()
	huge := wire.Sessions{}
	for i := 0; i < 20000; i++ {
		huge.Sessions = append(huge.Sessions, wire.SessionInfo{Name: strings.Repeat("n", 64), Command: []string{strings.Repeat("c", 40)}})
	}
	go func() {
		s.reply(server, wire.TypeSessions, huge)
		server.Close()
	}()
	f, err := wire.ReadFrame(client)
	if err != nil {
		t.Fatal(err)
	}
	var e wire.Error
	if f.Type != wire.TypeError || wire.Decode(f, &e) != nil || e.Code != wire.CodeTooLarge {
		t.Fatalf("got %s %+v, want an Error with code %q", f.Type, e, wire.CodeTooLarge)
	}
}
