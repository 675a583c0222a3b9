//go:build linux

package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// streamLine is line i of the deterministic text the stream tests use: 77
// columns, so no line wraps on the default 80-column screen.
func streamLine(i int) string {
	return fmt.Sprintf("line %08d the quick brown fox jumps over the lazy dog 0123456789 abcdefgh", i)
}

// streamText is lines 1..n of streamLine, each ending in "\n".
func streamText(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(streamLine(i))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Issue 14 item 8: a capture over 1 MiB used to fail with "reply too large
// to send". A 5 MiB scrollback arrives whole and byte-identical.
func TestCaptureScrollbackOver5MiB(t *testing.T) {
	e := newEnv(t)
	const lines = 70000 // 70000 * 78 bytes: over 5 MiB
	script := `awk 'BEGIN { for (i = 1; i <= ` + strconv.Itoa(lines) + `; i++) printf "line %08d the quick brown fox jumps over the lazy dog 0123456789 abcdefgh\n", i }'; echo ALL-DONE; exec sleep 1000`
	e.mustWr("new", "-d", "--scrollback", "100000", "big", "--", "sh", "-c", script)
	e.eventually("the whole text on the screen", func() bool {
		return strings.Contains(e.mustWr("capture", "big"), "ALL-DONE")
	})

	r := e.wr("capture", "--scrollback", "big")
	if r.code != 0 {
		t.Fatalf("wr capture --scrollback: exit %d, stderr %q", r.code, r.stderr)
	}
	if len(r.stdout) <= 5<<20 {
		t.Fatalf("capture is %d bytes, want over 5 MiB", len(r.stdout))
	}
	got := strings.Split(r.stdout, "\n")
	if len(got) < lines+1 {
		t.Fatalf("capture has %d lines, want at least %d", len(got), lines+1)
	}
	for i := 0; i < lines; i++ {
		if want := streamLine(i + 1); got[i] != want {
			t.Fatalf("capture line %d = %q, want %q", i+1, got[i], want)
		}
	}
	if got[lines] != "ALL-DONE" {
		t.Fatalf("capture line %d = %q, want ALL-DONE", lines+1, got[lines])
	}
	for i, l := range got[lines+1:] {
		if l != "" {
			t.Fatalf("capture line %d = %q after the text, want it blank", lines+2+i, l)
		}
	}
	// The text before the blank rows is exactly what was printed.
	if want := string(streamText(lines)) + "ALL-DONE"; !strings.HasPrefix(r.stdout, want) {
		t.Fatal("capture is not byte-identical to the text printed")
	}
}

// waitReady waits until session name's screen shows READY.
func waitReady(e *env, name string) {
	e.t.Helper()
	e.eventually(name+" ready", func() bool { return strings.Contains(e.mustWr("capture", name), "READY") })
}

// Issue 14 item 9: wr send carried at most about 780 KB. A 5 MiB text
// streamed from stdin, and 1.5 MiB of words on the command line, arrive
// byte-identical, through a PTY in raw mode (the canonical line
// discipline would cap a line at 4095 bytes).
func TestSendLarge(t *testing.T) {
	t.Run("stdin 5 MiB", func(t *testing.T) {
		e := newEnv(t)
		data := streamText(70000)[:5<<20+12345]
		file := filepath.Join(e.dir, "stdin.out")
		e.mustWr("new", "-d", "sink", "--", "sh", "-c",
			`stty raw -echo; echo READY; exec head -c `+strconv.Itoa(len(data))+` > "$0"`, file)
		waitReady(e, "sink")
		if r := e.wrIn(string(data), e.vars, "send", "sink", "-"); r.code != 0 {
			t.Fatalf("wr send - of %d bytes: exit %d, stderr %q", len(data), r.code, r.stderr)
		}
		// head exits once it has read everything.
		waitFile(e, file, len(data))
		compareFile(t, file, data)
	})
	t.Run("arguments 1.5 MiB", func(t *testing.T) {
		e := newEnv(t)
		// Words of 100 KB (the kernel caps one argument at 128 KiB and
		// all of them at 2 MiB), joined by spaces.
		var words []string
		for w := 0; w < 15; w++ {
			words = append(words, strings.Repeat(string(rune('a'+w)), 100_000))
		}
		data := []byte(strings.Join(words, " "))
		file := filepath.Join(e.dir, "args.out")
		e.mustWr("new", "-d", "argsink", "--", "sh", "-c",
			`stty raw -echo; echo READY; exec head -c `+strconv.Itoa(len(data))+` > "$0"`, file)
		waitReady(e, "argsink")
		if r := e.wr(append([]string{"send", "argsink", "--"}, words...)...); r.code != 0 {
			t.Fatalf("wr send of %d bytes: exit %d, stderr %q", len(data), r.code, r.stderr)
		}
		waitFile(e, file, len(data))
		compareFile(t, file, data)
	})
}

// waitFile waits until file holds size bytes: the program has read all
// that was sent.
func waitFile(e *env, file string, size int) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("%d bytes in %s", size, file), func() bool {
		fi, err := os.Stat(file)
		return err == nil && fi.Size() >= int64(size)
	})
}

func compareFile(t *testing.T, file string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("sent %d bytes, the program got %d; first difference at byte %d", len(want), len(got), i)
	}
}

// bgWr runs a wr command in the background; its result arrives on the
// channel. (e.run may not be called off the test's goroutine.)
func bgWr(e *env, stdin []byte, args ...string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, wrBin, args...)
		cmd.Env = e.vars
		cmd.Dir = e.dir
		cmd.Stdin = bytes.NewReader(stdin)
		r, err := runCmd(cmd)
		switch {
		case ctx.Err() != nil:
			r.code, r.stderr = -1, fmt.Sprintf("did not finish within %v; stderr %q", timeout, r.stderr)
		case err != nil:
			r.code, r.stderr = -1, err.Error()
		}
		ch <- r
	}()
	return ch
}

// inputQueued is how many bytes wait in the input queue of the terminal of
// process pid (its stdin).
func inputQueued(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/0", pid), os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var timedOut = regexp.MustCompile(`^wr: send to (\w+) timed out after (\w+): (\d+) of (\d+) bytes written; (.*)\n$`)

// checkTimedOut checks r is a timed-out send of total bytes to name after
// after, and returns how many bytes it wrote and why it says it stopped.
func checkTimedOut(t *testing.T, what string, r result, name, after string, total int) (int, string) {
	t.Helper()
	m := timedOut.FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil || m[1] != name || m[2] != after || m[4] != strconv.Itoa(total) {
		t.Fatalf("%s: exit %d, stderr %q; want exit 1 and \"wr: send to %s timed out after %s: N of %d bytes written; ...\"", what, r.code, r.stderr, name, after, total)
	}
	n, _ := strconv.Atoi(m[3])
	return n, m[5]
}

// Issue 14 item 9: a send to a program that does not read used to block
// forever, and every later send to that session behind it. It gives up
// at --timeout, exits 1 and says how much was written; meanwhile a send to
// another session goes through, a send queued behind it gives up by its
// own deadline, and so does a later one.
func TestSendTimeout(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "stuck", "--", "sh", "-c", `stty raw -echo; echo READY; exec sleep 1000`)
	file := filepath.Join(e.dir, "ok.out")
	e.mustWr("new", "-d", "ok", "--", "sh", "-c", `stty raw -echo; echo READY; exec head -c 6 > "$0"`, file)
	waitReady(e, "stuck")
	waitReady(e, "ok")
	stuck, _ := e.session("stuck")

	// A raw-mode terminal queues a few KiB: 1.1 MB fills it. (On the
	// command line, so wr knows the total it reports.)
	var words []string
	for range 11 {
		words = append(words, strings.Repeat("x", 100_000))
	}
	big := strings.Join(words, " ")
	first := bgWr(e, nil, append([]string{"send", "--timeout", "5s", "stuck", "--"}, words...)...)
	e.eventually("the first send to fill the terminal's input queue", func() bool { return inputQueued(t, stuck.PID) > 0 })

	// Queued behind the first: it gives up by its own deadline.
	queued := bgWr(e, nil, "send", "stuck", "--timeout", "1s", "queued")

	// Another session is not held up: this send finishes while the first
	// is still stuck.
	if r := e.wr("send", "ok", "hello!"); r.code != 0 {
		t.Fatalf("wr send ok: exit %d, stderr %q", r.code, r.stderr)
	}
	select {
	case r := <-first:
		t.Fatalf("the send to ok finished only after the stuck send returned (exit %d, %q)", r.code, r.stderr)
	default:
	}
	waitFile(e, file, len("hello!"))
	compareFile(t, file, []byte("hello!"))

	r := <-queued
	if n, why := checkTimedOut(t, "the queued send", r, "stuck", "1s", len("queued")); n != 0 || !strings.Contains(why, "earlier send") {
		t.Errorf("the queued send wrote %d bytes and says %q; want 0 and that an earlier send holds the input", n, why)
	}
	r = <-first
	n, why := checkTimedOut(t, "the first send", r, "stuck", "5s", len(big))
	if n <= 0 || n >= len(big) || why != "the program is not reading its input" {
		t.Errorf("the first send wrote %d of %d bytes and says %q", n, len(big), why)
	}
	// The PTY took n: what the terminal's input queue holds, and what
	// waits in the kernel to go into it.
	if q := inputQueued(t, stuck.PID); q > n {
		t.Errorf("the first send says it wrote %d bytes; the terminal holds %d", n, q)
	}

	// A later send does not hang either.
	later := strings.Repeat("y", 100_000)
	r = e.wr("send", "--timeout", "1s", "stuck", later)
	if n, why := checkTimedOut(t, "a later send", r, "stuck", "1s", len(later)); n >= len(later) || why != "the program is not reading its input" {
		t.Errorf("a later send wrote %d bytes and says %q", n, why)
	}
}
