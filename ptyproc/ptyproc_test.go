package ptyproc_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wr/ptyproc"
)

// timeout bounds every wait in these tests; it is generous because the race
// detector slows everything down, and only a broken build ever reaches it.
const timeout = 30 * time.Second

// child is a process started on a PTY, reaped and killed (with its whole
// process group) when the test ends.
type child struct {
	p *ptyproc.Process

	waitOnce sync.Once
	waited   chan struct{}
	code     int
	waitErr  error

	// Filled only when a collector reads the master (see start).
	mu       sync.Mutex
	out      []byte
	changed  chan struct{} // a token after every read
	readDone chan struct{} // closed when the reader has stopped
}

// sh is /bin/sh running script, with a small fixed environment.
func sh(t *testing.T, script string, args ...string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", script}, args...)...)
	cmd.Env = testEnv(t)
	return cmd
}

func testEnv(t *testing.T) []string {
	return []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "TERM=dumb", "PS1=$ ", "LC_ALL=C"}
}

// startProc starts cmd on a PTY of cols x rows without reading the master.
// Cleanup kills the child's process group (Start puts the child in its own
// session, so the group is the child's pid), reaps it and closes the master.
func startProc(t *testing.T, cmd *exec.Cmd, cols, rows int) *child {
	t.Helper()
	p, err := ptyproc.Start(cmd, cols, rows)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c := &child{p: p, waited: make(chan struct{})}
	t.Cleanup(func() {
		// The group outlives its leader while a member is left, so its id
		// cannot have been reused even if the leader was already reaped.
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		if _, err := c.wait(t); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		_ = p.Close()
		if c.readDone != nil {
			select {
			case <-c.readDone:
			case <-time.After(timeout):
				t.Errorf("cleanup: reader still blocked after the child was killed and the master closed")
			}
		}
	})
	return c
}

// start is startProc plus a goroutine that reads the master until it fails
// and keeps everything read, so the child never blocks on a full terminal.
func start(t *testing.T, cmd *exec.Cmd, cols, rows int) *child {
	t.Helper()
	c := startProc(t, cmd, cols, rows)
	c.changed = make(chan struct{}, 1)
	c.readDone = make(chan struct{})
	go func() {
		defer close(c.readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := c.p.Read(buf)
			if n > 0 {
				c.mu.Lock()
				c.out = append(c.out, buf[:n]...)
				c.mu.Unlock()
				select {
				case c.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// wait reaps the child once; later calls return the same result.
func (c *child) wait(t *testing.T) (int, error) {
	t.Helper()
	c.waitOnce.Do(func() {
		go func() {
			c.code, c.waitErr = c.p.Wait()
			close(c.waited)
		}()
	})
	select {
	case <-c.waited:
		return c.code, c.waitErr
	case <-time.After(timeout):
		return 0, errors.New("child did not exit")
	}
}

// mark is how much output has been collected so far.
func (c *child) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.out)
}

// waitFor waits until text appears in the output collected after from and
// returns the offset just past it.
func (c *child) waitFor(t *testing.T, text string, from int) int {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		i := bytes.Index(c.out[from:], []byte(text))
		out := string(c.out[from:])
		c.mu.Unlock()
		if i >= 0 {
			return from + i + len(text)
		}
		select {
		case <-c.changed:
		case <-c.readDone:
			c.mu.Lock()
			found := bytes.Contains(c.out[from:], []byte(text))
			c.mu.Unlock()
			if !found {
				t.Fatalf("output ended without %q; got %q", text, out)
			}
		case <-deadline.C:
			t.Fatalf("no %q in output after %v; got %q", text, timeout, out)
		}
	}
}

// readUntil reads the master directly (no collector) until text has been
// seen, giving up after timeout.
func readUntil(t *testing.T, p *ptyproc.Process, text string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		var got []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(got, []byte(text)) {
			n, err := p.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reading for %q: %v", text, err)
		}
	case <-time.After(timeout):
		t.Fatalf("no %q after %v", text, timeout)
	}
}

// An interactive shell sees the size the PTY was started with and every
// Resize after it.
func TestResize(t *testing.T) {
	cmd := exec.Command("/bin/sh")
	cmd.Env = testEnv(t)
	c := start(t, cmd, 100, 30)
	steps := []struct {
		name       string
		cols, rows int
		want       string
	}{
		{"size at start", 0, 0, "30 100"},
		{"grow", 120, 40, "40 120"},
		{"shrink", 60, 20, "20 60"},
		{"zero cols is ignored", 0, 50, "20 60"},
		{"zero rows is ignored", 70, 0, "20 60"},
		{"negative is ignored", -1, -1, "20 60"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			from := c.mark()
			if err := c.p.Resize(st.cols, st.rows); err != nil {
				t.Fatalf("Resize(%d, %d): %v", st.cols, st.rows, err)
			}
			if err := c.p.WriteAll([]byte("stty size\n")); err != nil {
				t.Fatalf("WriteAll: %v", err)
			}
			c.waitFor(t, st.want+"\r\n", from)
		})
	}
}

// base64Lines is random data as base64 lines short enough for a canonical
// mode line buffer and free of every control character a TTY interprets.
func base64Lines(t *testing.T, size int) []byte {
	raw := make([]byte, size*3/4)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	var b bytes.Buffer
	for len(enc) > 0 {
		n := min(64, len(enc))
		b.WriteString(enc[:n])
		b.WriteByte('\n')
		enc = enc[n:]
	}
	return b.Bytes()
}

func randomBytes(t *testing.T, size int) []byte {
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// A large paste arrives whole and in order, even though the application
// reads far slower than WriteAll writes and the PTY buffers only a few KiB.
func TestWriteAll(t *testing.T) {
	tests := []struct {
		name string
		stty string
		data func(t *testing.T) []byte
	}{
		{"canonical mode base64 lines", "-echo", func(t *testing.T) []byte { return base64Lines(t, 1<<20) }},
		{"raw mode every byte value", "raw -echo", func(t *testing.T) []byte { return randomBytes(t, 1<<20) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			file := filepath.Join(t.TempDir(), "got")
			c := start(t, sh(t, `stty `+tt.stty+` && echo READY && exec head -c "$0" > "$1"`, strconv.Itoa(len(data)), file), 80, 24)
			c.waitFor(t, "READY", 0)
			if err := c.p.WriteAll(data); err != nil {
				t.Fatalf("WriteAll: %v", err)
			}
			code, err := c.wait(t)
			if err != nil || code != 0 {
				got, _ := os.ReadFile(file)
				t.Fatalf("child: code %d, err %v; file has %d of %d bytes", code, err, len(got), len(data))
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				i := 0
				for i < len(got) && i < len(data) && got[i] == data[i] {
					i++
				}
				t.Fatalf("file differs from what was written: %d bytes vs %d, first difference at %d", len(got), len(data), i)
			}
		})
	}
}

func TestWriteAllAfterClose(t *testing.T) {
	c := startProc(t, sh(t, "exec sleep 100"), 80, 24)
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	err := c.p.WriteAll([]byte("x"))
	if err == nil {
		t.Fatal("WriteAll after Close = nil")
	}
	if !errors.Is(err, ptyproc.ErrClosed) {
		t.Fatalf("WriteAll after Close = %v, want ptyproc.ErrClosed", err)
	}
}

// Closing the master hangs up the terminal: the session leader gets SIGHUP.
func TestCloseHangsUp(t *testing.T) {
	c := startProc(t, sh(t, "echo READY; exec sleep 100"), 80, 24)
	readUntil(t, c.p, "READY")
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	code, err := c.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if code != 129 {
		t.Errorf("after Close the child exited %d, want 129 (SIGHUP)", code)
	}
}

func TestForegroundPgrp(t *testing.T) {
	c := start(t, sh(t, "echo READY; exec sleep 100"), 80, 24)
	c.waitFor(t, "READY", 0)
	if got := c.p.ForegroundPgrp(); got != c.p.Pid() {
		t.Errorf("ForegroundPgrp = %d, want the child's own group %d", got, c.p.Pid())
	}
	if err := c.p.Close(); err != nil {
		t.Fatal(err)
	}
	if got := c.p.ForegroundPgrp(); got != 0 {
		t.Errorf("ForegroundPgrp after Close = %d, want 0", got)
	}
}

// blockingBug names the regression these tests guard: creack/pty's Open
// puts the master in blocking mode (its ioctls call (*os.File).Fd), and a
// pending Read or Write then sits in the kernel where neither
// SetReadDeadline nor Close can reach it.
const blockingBug = "the PTY master is in blocking mode"

// After the child exits a background process may still hold the terminal;
// the server drains with a read deadline, which must fire.
func TestReadDeadline(t *testing.T) {
	// The sleep ignores the SIGHUP the kernel sends the foreground group
	// when the shell, the session leader, exits, and keeps the terminal.
	before := ptmxFDs()
	c := startProc(t, sh(t, `trap "" HUP; sleep 100 & echo READY`), 80, 24)
	requireNonBlockingMaster(t, before)
	readUntil(t, c.p, "READY")
	if code, err := c.wait(t); err != nil || code != 0 {
		t.Fatalf("child: code %d, err %v", code, err)
	}
	if err := c.p.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatalf("SetReadDeadline: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := c.p.Read(buf); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Read after the deadline = %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		// Cleanup kills the background sleep, which ends the Read with EIO.
		t.Fatal(blockingBug + ": Read still blocked 5s past its deadline")
	}
}

// Close must end a Read that is waiting for output.
func TestCloseUnblocksRead(t *testing.T) {
	before := ptmxFDs()
	c := startProc(t, sh(t, "exec sleep 100"), 80, 24)
	requireNonBlockingMaster(t, before)
	done := make(chan error, 1)
	go func() {
		_, err := c.p.Read(make([]byte, 4096))
		done <- err
	}()
	waitBlockedIn(t, "ptyproc.(*Process).Read(")
	if err := c.p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read after Close = nil error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal(blockingBug + ": Read still blocked 5s after Close")
	}
}

// Close must end a WriteAll stuck on an application that never reads.
func TestCloseUnblocksWriteAll(t *testing.T) {
	before := ptmxFDs()
	c := startProc(t, sh(t, "stty raw -echo; echo READY; exec sleep 100"), 80, 24)
	requireNonBlockingMaster(t, before)
	readUntil(t, c.p, "READY")
	done := make(chan error, 1)
	go func() { done <- c.p.WriteAll(make([]byte, 8<<20)) }()
	waitBlockedIn(t, "ptyproc.(*Process).WriteAll(")
	if err := c.p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("WriteAll of 8 MiB to a reader that never reads returned nil after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal(blockingBug + ": WriteAll still blocked 5s after Close")
	}
}

// waitBlockedIn waits until some goroutine is blocked (waiting on the
// poller or in a system call) with fn on its stack.
func waitBlockedIn(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			header, _, _ := strings.Cut(g, "\n")
			if strings.Contains(g, fn) && (strings.Contains(header, "[IO wait") || strings.Contains(header, "[syscall")) {
				return
			}
		}
	}
	t.Fatalf("no goroutine blocked in %s after %v", fn, timeout)
}

// The master must stay in non-blocking mode, served by the runtime poller:
// that is what lets Close and SetReadDeadline reach a pending Read.
func TestMasterIsNonBlocking(t *testing.T) {
	before := ptmxFDs()
	if before == nil {
		t.Skip("no /proc/self/fd to inspect")
	}
	startProc(t, sh(t, "exec sleep 100"), 80, 24)
	nonBlocking, flags := masterNonBlocking(t, before)
	if !nonBlocking {
		t.Fatalf("%s: the master's flags are %s, without O_NONBLOCK", blockingBug, flags)
	}
}

// requireNonBlockingMaster fails a test at once whose pending Read or Write
// would stay stuck in the kernel because of blockingBug.
// before is ptmxFDs() from just before Start.
func requireNonBlockingMaster(t *testing.T, before []string) {
	t.Helper()
	if before == nil {
		return // cannot tell; let the test find out
	}
	if nonBlocking, flags := masterNonBlocking(t, before); !nonBlocking {
		t.Fatalf("%s (master flags %s)", blockingBug, flags)
	}
}

// masterNonBlocking finds the one /dev/ptmx descriptor opened since before
// and reports whether O_NONBLOCK is set on it, with its octal fdinfo flags.
func masterNonBlocking(t *testing.T, before []string) (bool, string) {
	t.Helper()
	var master []string
	for _, fd := range ptmxFDs() {
		if !slices.Contains(before, fd) {
			master = append(master, fd)
		}
	}
	if len(master) != 1 {
		t.Fatalf("found %d new /dev/ptmx descriptors after Start, want 1", len(master))
	}
	info, err := os.ReadFile("/proc/self/fdinfo/" + master[0])
	if err != nil {
		t.Fatal(err)
	}
	var flags string
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags = strings.TrimSpace(v)
		}
	}
	f, err := strconv.ParseUint(flags, 8, 64)
	if err != nil {
		t.Fatalf("fdinfo flags %q: %v", flags, err)
	}
	return f&syscall.O_NONBLOCK != 0, flags
}

// ptmxFDs lists this process's descriptors open on the PTY multiplexer, or
// nil where /proc cannot say.
func ptmxFDs() []string {
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	out := []string{}
	for _, e := range d {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && (target == "/dev/ptmx" || target == "/dev/pts/ptmx") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestStartFailure(t *testing.T) {
	cmd := exec.Command(filepath.Join(t.TempDir(), "no-such-command"))
	before := openFDs(t)
	p, err := ptyproc.Start(cmd, 80, 24)
	if err == nil {
		_ = p.Close()
		t.Fatal("Start of a missing command succeeded")
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want one wrapping os.ErrNotExist", err)
	}
	if after := openFDs(t); before >= 0 && after != before {
		t.Errorf("%d descriptors open before a failed Start, %d after: the PTY leaked", before, after)
	}
}

// openFDs counts this process's open descriptors, or -1 where it cannot.
func openFDs(t *testing.T) int {
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(d)
}

// WriteAllBy gives up at its deadline on an application that never reads,
// says how much the PTY took, and leaves no deadline behind.
func TestWriteAllByDeadline(t *testing.T) {
	c := startProc(t, sh(t, "stty raw -echo; echo READY; exec sleep 100"), 80, 24)
	readUntil(t, c.p, "READY")
	n, err := c.p.WriteAllBy(make([]byte, 8<<20), time.Now().Add(200*time.Millisecond))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("WriteAllBy = %d, %v; want os.ErrDeadlineExceeded", n, err)
	}
	if n <= 0 || n >= 8<<20 {
		t.Fatalf("WriteAllBy wrote %d bytes; want some, not all", n)
	}
	// The deadline is gone: a write with none still waits (ended by Close).
	done := make(chan error, 1)
	go func() { done <- c.p.WriteAll(make([]byte, 1<<20)) }()
	waitBlockedIn(t, "ptyproc.(*Process).WriteAll(")
	c.p.Close()
	if err := <-done; !errors.Is(err, ptyproc.ErrClosed) {
		t.Fatalf("WriteAll after the deadline = %v, want ErrClosed", err)
	}
}

// ReadNow never waits: with nothing to read it returns 0 and no error, and
// it returns what the program printed once it is there; once the master is
// closed it fails with ErrClosed.
func TestReadNow(t *testing.T) {
	c := startProc(t, sh(t, `stty -echo; read x; printf READNOW-$((6*7)); exec sleep 100`), 80, 24)
	buf := make([]byte, 1024)
	deadline := time.Now().Add(timeout)
	for { // the shell's stty, then its wait for a line: nothing to read
		n, err := c.p.ReadNow(buf)
		if err != nil {
			t.Fatalf("ReadNow before any output: %v", err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ReadNow kept returning output")
		}
	}
	if err := c.p.WriteAll([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for !bytes.Contains(got, []byte("READNOW-42")) {
		if time.Now().After(deadline) {
			t.Fatalf("ReadNow gave %q, never READNOW-42", got)
		}
		n, err := c.p.ReadNow(buf)
		if err != nil {
			t.Fatalf("ReadNow: %v", err)
		}
		got = append(got, buf[:n]...)
		if n == 0 {
			runtime.Gosched()
		}
	}
	_ = c.p.Close()
	if _, err := c.p.ReadNow(buf); !errors.Is(err, ptyproc.ErrClosed) {
		t.Fatalf("ReadNow after Close = %v, want ErrClosed", err)
	}
}

// A keystroke (WriteAllBy with no deadline, as a client's input is
// written) and its echo (ReadReady) allocate nothing: a closure made per
// call escaped to the heap, two allocations for every key.
func TestEchoDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	c := startProc(t, sh(t, `stty raw -echo; printf R; exec cat`), 80, 24)
	buf := make([]byte, 64)
	if n, err := c.p.ReadReady(buf, nil); err != nil || n == 0 {
		t.Fatalf("the shell's first output: %d bytes, %v", n, err)
	}
	key := []byte("k")
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := c.p.WriteAllBy(key, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for got := 0; got < len(key); {
			n, err := c.p.ReadReady(buf, nil)
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	})
	if allocs != 0 {
		t.Fatalf("a key and its echo allocated %.1f times", allocs)
	}
}

// The empty Process an exited session is adopted with refuses writes as
// closed, with or without a deadline.
func TestEmptyProcessWriteIsClosed(t *testing.T) {
	for _, deadline := range []time.Time{{}, time.Now().Add(time.Minute)} {
		if _, err := (&ptyproc.Process{}).WriteAllBy([]byte("k"), deadline); err == nil {
			t.Fatalf("WriteAllBy on the empty Process (deadline %v) succeeded", deadline)
		}
	}
}
