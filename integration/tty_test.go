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

// openPTY returns an 80x24 PTY pair, closed when the test ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// attachProc is a `wr attach` started on chosen descriptors.
type attachProc struct {
	exited chan struct{} // closed when it has exited; err is then set
	err    error
}

// startAttach runs `wr attach name` with stdin, stdout and stderr; with
// ctty, in a new session whose controlling terminal is stdin. It is killed
// when the test ends.
func startAttach(t *testing.T, e *env, name string, stdin, stdout, stderr *os.File, ctty bool) *attachProc {
	t.Helper()
	cmd := exec.Command(wrBin, "attach", name)
	cmd.Env = e.vars
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if ctty {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &attachProc{exited: make(chan struct{})}
	go func() { a.err = cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-a.exited
	})
	return a
}

// waitExit fails the test unless the client exits within the timeout.
func (a *attachProc) waitExit(t *testing.T, what string) {
	t.Helper()
	select {
	case <-a.exited:
	case <-time.After(timeout):
		t.Fatalf("wr attach did not exit %s", what)
	}
}

// reader collects everything read from a file until the read fails.
type reader struct {
	mu  sync.Mutex
	out []byte
}

func readAll(f *os.File) *reader {
	r := &reader{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			r.mu.Lock()
			r.out = append(r.out, buf[:n]...)
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *reader) contains(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Contains(r.out, []byte(s))
}

// The client reads its terminal through a second, non-blocking open of it
// (attach/tty_linux.go). O_NONBLOCK belongs to an open file description, and
// the one wr inherited is shared with the shell that started it: if it
// turned non-blocking, that shell's next read would fail with EAGAIN. So
// the inherited description must stay blocking while wr runs and after.
func TestTerminalStaysBlocking(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "nb", "--", "sh", "-c", "exec cat")

	master, slave := openPTY(t)
	a := startAttach(t, e, "nb", slave, slave, slave, true)
	out := readAll(master)
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

	e.waitClients("nb", 1)
	// Input reaches the session (through the reopened terminal) and back.
	if _, err := master.Write([]byte("ping-7\r")); err != nil {
		t.Fatal(err)
	}
	e.eventually("the echo of ping-7", func() bool { return out.contains("ping-7") })
	if nonblocking() {
		t.Fatal("the terminal wr inherited is non-blocking while wr is attached")
	}
	if _, err := master.Write([]byte{0x1c}); err != nil { // ctrl-\ detaches
		t.Fatal(err)
	}
	a.waitExit(t, "after the detach key")
	if a.err != nil {
		t.Fatalf("detach: %v", a.err)
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

	master, slave := openPTY(t)
	path := filepath.Join(e.dir, "out.txt")
	if err := os.WriteFile(path, []byte("KEEP-THIS-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	a := startAttach(t, e, "tofile", slave, file, slave, true)
	go func() { _, _ = io.Copy(io.Discard, master) }()

	e.waitClients("tofile", 1)
	if _, err := master.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	a.waitExit(t, "when the session did")
	var ee *exec.ExitError
	if !errors.As(a.err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("wr attach: %v; want exit status 3", a.err)
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

	master, slave := openPTY(t)
	a := startAttach(t, e, "onmaster", master, master, master, false)
	out := readAll(slave)

	e.waitClients("onmaster", 1)
	if _, err := slave.Write([]byte("ping-9\r")); err != nil {
		t.Fatal(err)
	}
	e.eventually("the echo of ping-9", func() bool { return out.contains("ping-9") })
	if _, err := slave.Write([]byte{0x1c}); err != nil { // ctrl-\ detaches
		t.Fatal(err)
	}
	a.waitExit(t, "after the detach key")
}

// A terminal can say it has no size: a serial console before `stty rows`,
// a PTY nobody sized, `script` run from a pipe. It is still a terminal, so
// it is drawn at 80x24, as tmux and screen draw it; taken for a relay (size
// 0x0 on the wire) it showed nothing of the screen and never owned the size.
func TestATerminalOfNoSizeIsDrawnAt80x24(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "nosize", "--", "sh", "-c", "echo MARK-$((6*7)); exec sh")

	// Someone at 100x30 takes the size and leaves, so the screen is not
	// already 80x24 when the terminal of no size comes.
	wide := e.term(100, 30, "attach", "nosize")
	wide.run("stty size")
	if !bytes.Contains(wide.output(), []byte("30 100")) {
		t.Fatalf("the session is not 100x30 for the first client: %q", wide.output())
	}
	wide.send("\x1c")
	if code := wide.wait(); code != 0 {
		t.Fatalf("detach: exit code %d", code)
	}

	tm := e.term(0, 0, "attach", "nosize")
	tm.expect("MARK-42")                        // the restored screen
	tm.send("stty size; echo SIZED-$((6*8))\r") // not DONE-42, which the restore shows
	tm.expect("SIZED-48")
	if !bytes.Contains(tm.output(), []byte("24 80")) {
		t.Fatalf("the program does not see 80x24: %q", tm.output())
	}
	if s, _ := e.session("nosize"); s.Cols != 80 || s.Rows != 24 {
		t.Fatalf("wr ls says %dx%d, want 80x24", s.Cols, s.Rows)
	}
}
