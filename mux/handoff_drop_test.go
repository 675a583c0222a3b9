//go:build linux

package mux

import (
	"io"
	"log"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A session the new server cannot adopt is let go, not leaked: its PTY
// master and its clients' connections are closed, so the program is hung
// up on and each client sees the end of its connection.
func TestAdoptDropsSessionItCannotTake(t *testing.T) {
	// A blocking pipe is no PTY master Adopt takes.
	masterR, masterW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer masterR.Close()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	peerFile := os.NewFile(uintptr(fds[0]), "peer")
	peer, err := net.FileConn(peerFile)
	peerFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	masterFD, err := syscall.Dup(int(masterW.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	masterW.Close()

	s := &server{log: log.New(io.Discard, "", 0), sessions: map[string]*session{}, began: time.Now()}
	st := &handoffState{RequestFD: -1, Sessions: []handoffSession{{
		Name: "s1", PID: os.Getpid(), MasterFD: masterFD, Cols: 80, Rows: 24,
		Clients: []handoffClient{{ID: 1, FD: fds[1], Cols: 80, Rows: 24}},
	}}}
	var conns sync.WaitGroup
	s.adopt(st, &conns)
	conns.Wait()
	if len(s.sessions) != 0 {
		t.Fatalf("adopted %d sessions, want none", len(s.sessions))
	}
	_ = peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the client's connection: %v, want EOF (closed)", err)
	}
	_ = masterR.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := masterR.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the PTY master: %v, want EOF (closed)", err)
	}
}
