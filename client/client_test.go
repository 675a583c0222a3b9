package client

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"wr/attach"
	"wr/wire"
)

// With no server, a question about a session has its answer and starts
// nothing: no sessions, none named, no such session to act on.
func TestNoServer(t *testing.T) {
	c := New(filepath.Join(t.TempDir(), "s.sock"))
	if all, err := c.List(); err != nil || len(all) != 0 {
		t.Errorf("List = %v, %v; want none", all, err)
	}
	if ok, err := c.Has("x"); ok || err != nil {
		t.Errorf("Has = %v, %v; want false", ok, err)
	}
	if names, err := c.KillAll(); err != nil || names != nil {
		t.Errorf("KillAll = %v, %v; want nothing to do", names, err)
	}
	for name, call := range map[string]func() error{
		"Wait":     func() error { _, err := c.Wait("x", time.Second); return err },
		"Kill":     func() error { _, err := c.Kill("x"); return err },
		"Send":     func() error { _, err := c.Send("x", []byte("hi"), time.Second); return err },
		"SendKeys": func() error { return c.SendKeys("x", []string{"Enter"}, time.Second) },
		"Detach":   func() error { return c.Detach("x") },
		"Rename":   func() error { return c.Rename("x", "y") },
		"Capture":  func() error { return c.Capture("x", wire.Capture{}, nil) },
	} {
		if err := call(); !wire.IsCode(err, wire.CodeNoSession) {
			t.Errorf("%s: %v; want no session named x", name, err)
		}
	}
	if err := c.Stop(); !errors.Is(err, attach.ErrNoServer) {
		t.Errorf("Stop: %v; want ErrNoServer", err)
	}
	if err := c.SendKeys("x", []string{"Enterr"}, 0); !errors.Is(err, wire.ErrBadKey) {
		t.Errorf("SendKeys of a bad key: %v; want ErrBadKey before anything is sent", err)
	}
}

// An older server's "unsupported request" is a server too old for it.
func TestOldServerErrorIsErrOldServer(t *testing.T) {
	err := error(&OldServerError{Server: wire.Welcome{Protocol: 1, Minor: 2, Version: "0.0.9"}, Need: 3})
	if !errors.Is(err, attach.ErrOldServer) {
		t.Error("OldServerError does not wrap attach.ErrOldServer")
	}
}
