package mux

import (
	"net"
	"path/filepath"
	"testing"
)

// A knockSet knocks once for each new thing to read: a connection to
// accept, then a request on a watched connection; not while nothing new
// comes.
func TestKnockSet(t *testing.T) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	k := newKnockSet(ln)
	if k == nil {
		t.Fatal("no knockSet on Linux")
	}
	defer k.close()
	if k.knocking() {
		t.Fatal("knocking with nothing to accept")
	}
	peer, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	if !k.knocking() {
		t.Fatal("a connection waiting to be accepted did not knock")
	}
	if k.knocking() {
		t.Fatal("the same connection knocked twice")
	}
	conn, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	k.watch(conn)
	k.watch(conn) // watching twice is harmless
	k.knocking()  // adding may count as an edge
	if k.knocking() {
		t.Fatal("a quiet connection knocked")
	}
	if _, err := peer.Write([]byte("ls")); err != nil {
		t.Fatal(err)
	}
	if !k.knocking() {
		t.Fatal("a request on a watched connection did not knock")
	}
	if k.knocking() {
		t.Fatal("unread input knocked again with nothing new")
	}
}

// Servers built without Run (unit tests) have no knockSet: asking is
// harmless and never knocks.
func TestNoKnockSet(t *testing.T) {
	var k *knockSet
	k.watch(nil)
	if k.knocking() {
		t.Fatal("a nil knockSet knocked")
	}
	k.close()
}
