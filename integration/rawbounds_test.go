//go:build linux

package integration

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wr/wire"
)

// A client's size is bounded by what the screen model holds (4096x2048):
// a raw client asking for 10^9 columns gave the PTY 65535 while the model
// kept 4096, so the program drew for a width nobody was shown, and wr ls
// listed the size asked.
func TestAClientsSizeIsBoundedByTheModel(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "big", "--", "sh")
	rc := rawAttach(t, e.socket, "big", 1_000_000_000, 1_000_000_000)
	select {
	case <-rc.attached:
	case <-rc.gone:
		t.Fatal("the raw client was refused")
	}
	e.eventually("the raw client to own the size", func() bool {
		s, _ := e.session("big")
		return s.Owner != nil
	})
	s, _ := e.session("big")
	if s.Cols != 4096 || s.Rows != 2048 {
		t.Errorf("wr ls says %dx%d, want 4096x2048 (the model's bound)", s.Cols, s.Rows)
	}
	file := filepath.Join(e.dir, "size")
	e.mustWr("send", "big", "--enter", "stty size > "+file+".tmp && mv "+file+".tmp "+file)
	e.eventually("stty size in the session", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && len(b) > 0
	})
	if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) != "2048 4096" {
		t.Errorf("the program's terminal is %q (rows cols), want 2048 4096", strings.TrimSpace(string(b)))
	}
}

// A keep_ms past what a duration holds keeps the session as long as one
// can, rather than wrapping negative and collecting it at once.
func TestAHugeKeepKeepsTheSession(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "holder", "--", "sleep", "1000") // starts the server
	c, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Version: "test"})
	gate := filepath.Join(e.dir, "gate")
	req, _ := wire.Encode(wire.New{Name: "kept", Config: wire.SessionConfig{
		Command: []string{"/bin/sh", "-c", "while [ ! -e " + gate + " ]; do sleep 0.01; done; exit 3"},
		Cols:    80, Rows: 24, KeepMS: 1 << 62,
	}})
	buf, _ := wire.AppendFrame(nil, wire.TypeHello, hello)
	buf, _ = wire.AppendFrame(buf, wire.TypeNew, req)
	if _, err := c.Write(buf); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(c)
	for _, want := range []wire.Type{wire.TypeWelcome, wire.TypeOK} {
		f, err := r.ReadFrame()
		if err != nil || f.Type != want {
			t.Fatalf("raw New: got %v %s (%v), want %v", f.Type, f.Payload, err, want)
		}
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.eventually("the session to end and be kept", func() bool {
		for _, line := range strings.Split(e.mustWr("ls"), "\n") {
			if strings.HasPrefix(line, "kept ") && strings.Contains(line, "exited") {
				return true
			}
		}
		return false
	})
	if r := e.wr("wait", "kept"); r.code != 3 {
		t.Fatalf("wr wait kept: exit %d (stderr %q), want its code 3", r.code, r.stderr)
	}
}
