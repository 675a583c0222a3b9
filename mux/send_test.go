package mux

import (
	"bytes"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"wr/wire"
)

// sendSession starts script on a PTY as session "t" of a bare server (no
// socket, no watcher: the handlers under test need neither), draining its
// output, and returns once the script has printed READY.
func sendSession(t *testing.T, script string) (*server, *session) {
	t.Helper()
	s := &server{log: log.New(io.Discard, "", 0), socket: filepath.Join(t.TempDir(), "s.sock"), sessions: map[string]*session{}}
	ss, err := s.startSession("t", wire.SessionConfig{
		Command: []string{"/bin/sh", "-c", script},
		Env:     []string{"PATH=" + os.Getenv("PATH")},
		Cwd:     t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s.sessions["t"] = ss
	t.Cleanup(func() {
		_ = ss.proc.Signal(os.Kill)
		_ = ss.proc.Close()
		_, _ = ss.proc.Wait()
	})
	ready := make(chan struct{})
	go func() {
		var seen []byte
		found := false
		buf := make([]byte, 4096)
		for {
			n, err := ss.proc.Read(buf)
			if !found {
				seen = append(seen, buf[:n]...)
				if found = bytes.Contains(seen, []byte("READY")); found {
					close(ready)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the script never printed READY")
	}
	return s, ss
}

// socketPair returns the two ends of a connected Unix stream socket.
func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*net.UnixConn)
		t.Cleanup(func() { conns[i].Close() })
	}
	return conns[0], conns[1]
}

// streamSend runs a streamed send of data in frames of chunk bytes
// through handleSendStream and returns its reply.
func streamSend(t *testing.T, s *server, data []byte, chunk int, timeout time.Duration) <-chan wire.Frame {
	srv, cli := socketPair(t)
	req := wire.SendStream{Name: "t", Size: int64(len(data)), TimeoutMS: timeout.Milliseconds()}
	go func() {
		s.handleSendStream(srv, req)
		srv.Close()
	}()
	go func() { _ = wire.WriteData(cli, data, chunk) }() // fails once the server gives up
	reply := make(chan wire.Frame, 1)
	go func() {
		f, err := wire.ReadFrame(cli)
		if err != nil {
			f = wire.Frame{Type: wire.TypeError, Payload: []byte(`{"message":"` + err.Error() + `"}`)}
		}
		reply <- f
	}()
	return reply
}

func decodeErr(t *testing.T, f wire.Frame) wire.Error {
	t.Helper()
	var e wire.Error
	if f.Type != wire.TypeError || wire.Decode(f, &e) != nil {
		t.Fatalf("reply %s %q, want an Error", f.Type, f.Payload)
	}
	return e
}

// Two streamed sends and typed input at once: each send reaches the
// program as one run, and typed input lands only between two of a send's
// Data frames, never inside one.
func TestSendsStayWhole(t *testing.T) {
	const size, chunk, typed, typings = 600 << 10, 64 << 10, 100, 50
	total := 2*size + typed*typings
	file := filepath.Join(t.TempDir(), "got")
	s, ss := sendSession(t, `stty raw -echo; echo READY; exec head -c `+strconv.Itoa(total)+` > `+file)

	a := streamSend(t, s, bytes.Repeat([]byte("a"), size), chunk, 0)
	b := streamSend(t, s, bytes.Repeat([]byte("b"), size), chunk, 0)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range typings {
			if err := ss.writePTY(bytes.Repeat([]byte("T"), typed)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for _, r := range []<-chan wire.Frame{a, b} {
		if f := <-r; f.Type != wire.TypeOK {
			t.Fatalf("send: %s %s", f.Type, f.Payload)
		}
	}
	wg.Wait()
	var got []byte
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < total {
		if time.Now().After(deadline) {
			t.Fatalf("the program got %d of %d bytes", len(got), total)
		}
		time.Sleep(10 * time.Millisecond)
		got, _ = os.ReadFile(file)
	}
	// Without the typing: one run of a's and one of b's.
	if sends := strings.ReplaceAll(string(got), "T", ""); sends != strings.Repeat("a", size)+strings.Repeat("b", size) && sends != strings.Repeat("b", size)+strings.Repeat("a", size) {
		t.Fatalf("the two sends interleaved")
	}
	// Each run of typing is whole typings, at a frame boundary of a send.
	run, sent := 0, 0
	for i, c := range got {
		if c == 'T' {
			run++
			continue
		}
		if run > 0 {
			if run%typed != 0 {
				t.Fatalf("a typing of %d bytes was split: a run of %d at byte %d", typed, run, i)
			}
			if sent%size%chunk != 0 {
				t.Fatalf("typing landed inside a Data frame, %d bytes into a send", sent%size)
			}
		}
		run = 0
		sent++
	}
}

// A send the program does not take gives up at its timeout with the count,
// and one waiting behind it gives up by its own; the one-frame Send of an
// older client honours its timeout too.
func TestSendTimesOut(t *testing.T) {
	s, ss := sendSession(t, `stty raw -echo; echo READY; exec sleep 100`)
	first := streamSend(t, s, make([]byte, 1<<20), 0, 2*time.Second)
	// Wait until the first holds the send turn.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !ss.sendTurn().lockBy(time.Now()) {
			break
		}
		ss.sendTurn().unlock()
		if time.Now().After(deadline) {
			t.Fatal("the first send never took the turn")
		}
		time.Sleep(time.Millisecond)
	}
	queued := streamSend(t, s, []byte("queued"), 0, 100*time.Millisecond)
	e := decodeErr(t, <-queued)
	if e.Code != wire.CodeTimeout || e.Written != 0 || !strings.Contains(e.Message, "0 of 6 bytes written; an earlier send") {
		t.Fatalf("queued send: %+v", e)
	}
	e = decodeErr(t, <-first)
	if e.Code != wire.CodeTimeout || e.Written <= 0 || e.Written >= 1<<20 ||
		e.Message != "send to t timed out after 2s: "+strconv.FormatInt(e.Written, 10)+" of 1048576 bytes written; the program is not reading its input" {
		t.Fatalf("first send: %+v", e)
	}

	// The one-frame Send.
	srv, cli := socketPair(t)
	go s.handleSend(srv, wire.Send{Name: "t", Data: make([]byte, 200<<10), TimeoutMS: 100})
	f, err := wire.ReadFrame(cli)
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeErr(t, f); e.Code != wire.CodeTimeout || !strings.Contains(e.Message, "timed out after 100ms") {
		t.Fatalf("one-frame send: %+v", e)
	}
}
