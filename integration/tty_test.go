//go:build linux

package integration

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The client reads its terminal through a second, non-blocking open of it
// (attach/tty_linux.go). O_NONBLOCK belongs to an open file description, and
// the one wr inherited is shared with the shell that started it: if it
// turned non-blocking, that shell's next read would fail with EAGAIN. So
// the inherited description must stay blocking while wr runs and after.
func TestTerminalStaysBlocking(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "nb", "--", "sh", "-c", "exec cat")

	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrBin, "attach", "nb")
	cmd.Env = e.vars
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var mu sync.Mutex
	var out []byte
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out = append(out, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// Read the flags through a RawConn: slave.Fd() would itself make the
	// description blocking again.
	raw, err := slave.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	nonblocking := func() bool {
		var fl int
		var ferr error
		if err := raw.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
			t.Fatal(err)
		}
		if ferr != nil {
			t.Fatal(ferr)
		}
		return fl&unix.O_NONBLOCK != 0
	}

	e.eventually("the client to attach", func() bool { s, _ := e.session("nb"); return s.Clients == 1 })
	// Input reaches the session (through the reopened terminal) and back.
	if _, err := master.Write([]byte("ping-7\r")); err != nil {
		t.Fatal(err)
	}
	e.eventually("the echo of ping-7", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(out, []byte("ping-7"))
	})
	if nonblocking() {
		t.Fatal("the terminal wr inherited is non-blocking while wr is attached")
	}
	if _, err := master.Write([]byte{0x1c}); err != nil { // ctrl-\ detaches
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("detach: %v", waitErr)
		}
	case <-time.After(timeout):
		t.Fatal("wr attach did not exit after the detach key")
	}
	if nonblocking() {
		t.Fatal("the terminal wr inherited is left non-blocking after wr exits")
	}
}

// The client also writes its output through a second open of the terminal
// (attach/relay.go writeOutput), but only when stdout is a terminal: a
// second open of a file would write from its start, over what is there.
func TestOutputToAFileAppends(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "tofile", "--", "sh", "-c", "read x; echo OUT-$((6*7)); exit 3")

	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.dir, "out.txt")
	if err := os.WriteFile(path, []byte("KEEP-THIS-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cmd := exec.Command(wrBin, "attach", "tofile")
	cmd.Env = e.vars
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, file, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	go func() { _, _ = io.Copy(io.Discard, master) }()

	e.eventually("the client to attach", func() bool { s, _ := e.session("tofile"); return s.Clients == 1 })
	if _, err := master.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("wr attach: %v; want exit status 3", waitErr)
		}
	case <-time.After(timeout):
		t.Fatal("wr attach did not exit when the session did")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("KEEP-THIS-LINE\n")) || !bytes.Contains(got, []byte("OUT-42")) {
		t.Fatalf("the file holds %q; want what it had, then the session's OUT-42", got)
	}
}

// wr attach run on a PTY master (an emulator that hands its child the
// master side) must read and write that PTY: reopening a master's /proc
// path makes a new PTY, and input would go unread and output nowhere.
func TestAttachOnAPTYMaster(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "onmaster", "--", "sh", "-c", "exec cat")

	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrBin, "attach", "onmaster")
	cmd.Env = e.vars
	cmd.Stdin, cmd.Stdout, cmd.Stderr = master, master, master
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var mu sync.Mutex
	var out []byte
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := slave.Read(buf)
			mu.Lock()
			out = append(out, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	e.eventually("the client to attach", func() bool { s, _ := e.session("onmaster"); return s.Clients == 1 })
	if _, err := slave.Write([]byte("ping-9\r")); err != nil {
		t.Fatal(err)
	}
	e.eventually("the echo of ping-9", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Contains(out, []byte("ping-9"))
	})
	if _, err := slave.Write([]byte{0x1c}); err != nil { // ctrl-\ detaches
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(timeout):
		t.Fatal("wr attach did not exit after the detach key")
	}
}
