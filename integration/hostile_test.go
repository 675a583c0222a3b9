//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"wr/client"
	"wr/wire"
)

// Hostile output: streams that are cheap to print and dear to draw into a
// screen model. Each is written to a file once per run and cat'ed.

// repStream is REP: one x, then "repeat it 3000 times", 8 bytes for 3000
// cells.
func repStream(size int) []byte {
	return bytes.Repeat([]byte("x\x1b[3000b"), size/8)
}

// truecolourStream is an image of half blocks: 900 lines of 80 cells, each
// with its own foreground and background colour, repeated times times.
func truecolourStream(times int) []byte {
	var b bytes.Buffer
	for r := 0; r < times; r++ {
		for y := 0; y < 900; y++ {
			for x := 0; x < 80; x++ {
				fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm\u2580",
					x*3, y%256, (y/256)*60+r, 255-x*3, (y*7)%256, r*50)
			}
			b.WriteString("\x1b[0m\r\n")
		}
	}
	return b.Bytes()
}

// linkStream is n distinct OSC 8 hyperlinks, one short word each.
func linkStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\x1b]8;;https://example.com/%d\x1b\\w%d\x1b]8;;\x1b\\ ", i, i%10)
		if i%8 == 7 {
			b.WriteString("\r\n")
		}
	}
	return b.Bytes()
}

// clusterStream is n distinct grapheme clusters: a base letter with two
// combining marks, chosen so that no two are alike.
func clusterStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		base := rune('a' + i%26)
		m1 := rune(0x300 + (i/26)%112)
		m2 := rune(0x300 + (i/(26*112))%112)
		b.WriteRune(base)
		b.WriteRune(m1)
		b.WriteRune(m2)
		if i%40 == 39 {
			b.WriteString("\r\n")
		}
	}
	return b.Bytes()
}

// writeStream writes a stream to a file of the suite and returns its path.
func writeStream(tb testing.TB, name string, p []byte) string {
	tb.Helper()
	path := filepath.Join(suiteRoot, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.WriteFile(path, p, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// rawClient is an attached connection made by the test itself, speaking
// the wire protocol: cheap enough to have hundreds of.
type rawClient struct {
	conn     net.Conn
	attached chan struct{} // closed when Attached arrives
	gone     chan struct{} // closed when the connection ends
}

// rawAttach dials the socket, says Hello and asks to attach to name; the
// frames that come back are read (and dropped) by a goroutine.
func rawAttach(tb testing.TB, socket, name string, cols, rows int) *rawClient {
	tb.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Version: "test"})
	attach, _ := wire.Encode(wire.Attach{Name: name, Cols: cols, Rows: rows})
	buf, _ := wire.AppendFrame(nil, wire.TypeHello, hello)
	buf, _ = wire.AppendFrame(buf, wire.TypeAttach, attach)
	if _, err := c.Write(buf); err != nil {
		tb.Fatal(err)
	}
	rc := &rawClient{conn: c, attached: make(chan struct{}), gone: make(chan struct{})}
	go func() {
		defer close(rc.gone)
		r := wire.NewReader(c)
		seen := false
		for {
			f, err := r.ReadFrame()
			if err != nil {
				return
			}
			if f.Type == wire.TypeAttached && !seen {
				seen = true
				close(rc.attached)
			}
		}
	}()
	return rc
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Issue 14, item 2: a restore that must first draw a long backlog into the
// screen model holds nothing that wr ls, or another session, needs. The
// hostile session prints REP (8 bytes for 2,000 cells) far faster than its
// model can draw it, even with REP filling a row at a time, so a backlog
// of megabytes builds up; a client then asks to attach to it, which draws
// the whole backlog before it can restore. Once the server says it has begun to draw, wr ls must answer
// three times in a row, each before the attach is accepted, and a
// keystroke in another session must come back. Before the fix, an ls made
// during the drawing waited for all of it (half a minute for 6 MB of
// x ESC[3000b), so the attach was accepted first.
func TestLsAnswersWhileAModelCatchesUp(t *testing.T) {
	e := newEnv(t)
	hostile := writeStream(t, "hostile-ls.bin", bytes.Repeat([]byte("x\x1b[2000b"), (1<<20)/8))

	quiet := e.term(80, 24, "attach", "quiet")
	quiet.expect(prompt)

	// The producer says how much it has written: once it has written 12
	// MiB, the PTY reader has taken them (under the model's limit of 16 MiB
	// behind, so it does not wait) and the model is behind by what it has
	// not drawn of them.
	marks := filepath.Join(e.dir, "marks")
	pourUntil(e, "hostile", hostile, marks, 12)

	rc := rawAttach(t, e.socket, "hostile", 80, 24)
	// wr ls, again and again, until the server says it has begun to draw
	// the backlog for the attach, and three times after that. Before the
	// fix, an ls made once the drawing had begun waited for all of it
	// (longer than any wr command may take here).
	began, after := false, 0
	for after < 3 {
		if ss := e.ls(); len(ss) != 2 {
			t.Fatalf("wr ls listed %d sessions, want 2", len(ss))
		}
		if closed(rc.attached) {
			t.Fatalf("the attach was accepted before wr ls had answered 3 times while it drew its backlog (began %v, %d after): "+
				"wr ls waited for the drawing (or the model drew too fast to tell)", began, after)
		}
		if began {
			after++
		} else {
			log, _ := os.ReadFile(e.socket + ".log")
			began = bytes.Contains(log, []byte("session hostile: drawing"))
		}
	}
	quiet.run("echo quiet-session")
	if closed(rc.attached) {
		t.Fatal("the attach was accepted before the quiet session echoed: the model caught up too fast to tell anything")
	}
	t.Logf("wr ls answered 3 times and the quiet session echoed while the hostile attach was still drawing its backlog")
}

// BenchmarkHostile pours each hostile stream into a session B, twice, each
// time on a server of its own:
//
//   - wr ls runs in a loop from the start of the stream until a client
//     attaching to B has been accepted, which is once B's model has drawn
//     all of it (at most hostileWindow; stream-drawn says whether it got
//     there, window-s how long it took): wr ls's p50, p99 and longest.
//   - keystrokes are echoed in a quiet session A, back to back, while the
//     stream is fed: until it is written and B's model has drawn it (at
//     most echoWindow; echo-stream-fed says whether it got there): A's
//     echo p50 and p99 under the stream, its p99 idle just before, and
//     the ratio. A person typing makes the stream give way
//     (mux/typing.go), so this pass draws it more slowly.
//
// The two are apart because each is a load of its own: a wr ls started
// every few milliseconds keeps a core busy with process start-up, which is
// not the hostile stream's doing. Targets (issue 14): ls p99 <= 50 ms,
// echo p99 under the stream <= 2x idle.
//
//	go test -run '^$' -bench Hostile ./integration
func BenchmarkHostile(b *testing.B) {
	streams := []struct {
		name string
		make func() []byte
	}{
		{"truecolour", func() []byte { return truecolourStream(4) }},
		{"osc8-links", func() []byte { return linkStream(200000) }},
		{"graphemes", func() []byte { return clusterStream(200000) }},
		{"rep", func() []byte { return repStream(6 << 20) }},
	}
	for _, st := range streams {
		b.Run(st.name, func(b *testing.B) {
			path := writeStream(b, "hostile-"+st.name+".bin", st.make())
			for i := 0; i < b.N; i++ {
				hostileLs(b, path)
				hostileEcho(b, path)
			}
		})
	}
}

// hostileWindow caps how long the wr ls pass waits for the stream to be
// drawn; echoWindow how long the echo pass measures.
const (
	hostileWindow = 30 * time.Second
	echoWindow    = 10 * time.Second
)

// hostileEnv starts a server of its own and kills it (and so its sessions)
// first at cleanup: its model may be in the middle of drawing a batch that
// takes long, which a stopped server would finish before it exits, and the
// harness waits for it only 3 s.
func hostileEnv(b *testing.B) *env {
	e := newEnv(b)
	pid := 0
	b.Cleanup(func() {
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	e.mustWr("new", "-d", "a", "--", "sh", "-c", "stty raw -echo; dd bs=1 count=1 >/dev/null 2>&1; echo ECHO-READY-$((6*7)); exec cat")
	pid = e.serverPID()
	return e
}

// pour starts session B printing the stream; the returned function
// reports whether a client attaching to B has been accepted, which it
// tries once the stream is all written.
func pour(b *testing.B, e *env, path string) (drawn func() bool) {
	done := filepath.Join(e.dir, "written")
	e.mustWr("new", "-d", "b", "--", "sh", "-c", fmt.Sprintf("cat %s; : > %s; exec sleep 1000", path, done))
	var rc *rawClient
	return func() bool {
		if rc == nil {
			if _, err := os.Stat(done); err != nil {
				return false
			}
			rc = rawAttach(b, e.socket, "b", 80, 24)
		}
		return closed(rc.attached)
	}
}

func percentile(xs []time.Duration, p int) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(len(xs)*p/100, len(xs)-1)]
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func hostileLs(b *testing.B, path string) {
	e := hostileEnv(b)
	start := time.Now()
	drawn := pour(b, e, path)
	var lat []time.Duration
	ok := false
	for time.Since(start) < hostileWindow {
		if ok = drawn(); ok {
			break
		}
		t0 := time.Now()
		cmd := exec.Command(wrBin, "ls")
		cmd.Env = e.vars
		if err := cmd.Run(); err != nil {
			b.Errorf("wr ls: %v", err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(time.Since(start).Seconds(), "window-s")
	b.ReportMetric(map[bool]float64{false: 0, true: 1}[ok], "stream-drawn")
	b.ReportMetric(millis(percentile(lat, 50)), "ls-p50-ms")
	b.ReportMetric(millis(percentile(lat, 99)), "ls-p99-ms")
	b.ReportMetric(millis(percentile(lat, 100)), "ls-max-ms")
	b.ReportMetric(float64(len(lat)), "ls-runs")
}

func hostileEcho(b *testing.B, path string) {
	e := hostileEnv(b)
	a, ready := startSinkWatching(b, "ECHO-READY-42", e.vars, 80, 24, wrBin, "attach", "a")
	a.send(b, "!")
	waitFor(b, ready, "session a")
	echo := func(n int) []time.Duration {
		var lat []time.Duration
		for r := 0; r < n; r++ {
			c := byte('a' + r%26)
			hit := a.watch(string([]byte{c}))
			start := time.Now()
			a.send(b, string([]byte{c}))
			waitFor(b, hit, "echo")
			lat = append(lat, time.Since(start))
		}
		return lat
	}
	echo(20)
	idle := echo(1000)
	// The window: while the stream is fed, that is until it is written
	// and B's model has drawn it (asked in-process, every 10 echoes, so
	// that no wr ls start-up loads the machine), at most echoWindow. An
	// attach or capture of B would draw what is left at full speed: the
	// ls pass measures that.
	start := time.Now()
	written := filepath.Join(e.dir, "written")
	e.mustWr("new", "-d", "b", "--", "sh", "-c", fmt.Sprintf("cat %s; : > %s; exec sleep 1000", path, written))
	fed := func() bool {
		if _, err := os.Stat(written); err != nil {
			return false
		}
		list, err := client.New(e.socket).List()
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range list {
			if s.Name == "b" {
				return s.Behind == 0
			}
		}
		return false
	}
	var load []time.Duration
	done := false
	for time.Since(start) < echoWindow {
		if done = fed(); done {
			break
		}
		load = append(load, echo(10)...)
	}
	b.ReportMetric(time.Since(start).Seconds(), "echo-window-s")
	b.ReportMetric(map[bool]float64{false: 0, true: 1}[done], "echo-stream-fed")
	b.ReportMetric(float64(percentile(idle, 99).Microseconds()), "echo-idle-p99-µs")
	b.ReportMetric(float64(percentile(load, 50).Microseconds()), "echo-load-p50-µs")
	b.ReportMetric(float64(percentile(load, 99).Microseconds()), "echo-load-p99-µs")
	if v := percentile(idle, 99); v > 0 {
		b.ReportMetric(float64(percentile(load, 99))/float64(v), "echo-p99-load/idle")
	}
	b.ReportMetric(float64(len(load)), "echo-samples")
}

// Issue 14, item 2: a killed session's model draws nothing more: the
// session leaves wr ls as soon as its processes are gone, however far
// behind its model was (x ESC[3000b: megabytes that take minutes to draw).
// Before the fix, end() drew the whole backlog first, and the killed
// session sat in wr ls for minutes.
func TestKilledSessionLeavesWithItsBacklog(t *testing.T) {
	e := newEnv(t)
	hostile := writeStream(t, "hostile-kill.bin", repStream(1<<20))
	marks := filepath.Join(e.dir, "marks")
	e.mustWr("new", "-d", "keep", "--", "sleep", "1000")
	pourUntil(e, "hostile", hostile, marks, 12)
	e.mustWr("kill", "hostile")
	e.eventually("the killed session to leave wr ls", func() bool {
		_, ok := e.session("hostile")
		return !ok
	})
	if _, ok := e.session("keep"); !ok {
		t.Fatal("the other session is gone")
	}
}

// wr ls --json says how far a session's model is behind (behind, in
// bytes), and says nothing of a session that is not.
func TestLsSaysHowFarBehind(t *testing.T) {
	e := newEnv(t)
	hostile := writeStream(t, "hostile-behind.bin", repStream(1<<20))
	marks := filepath.Join(e.dir, "marks")
	e.mustWr("new", "-d", "quiet", "--", "sleep", "1000")
	pourUntil(e, "hostile", hostile, marks, 4)
	e.eventually("wr ls to say the hostile session is behind", func() bool {
		s, _ := e.session("hostile")
		return s.Behind > 0
	})
	if s, _ := e.session("quiet"); s.Behind != 0 {
		t.Fatalf("the quiet session is %d bytes behind", s.Behind)
	}
	e.mustWr("kill", "hostile")
}

// pourUntil starts session name printing the 1 MiB stream file again and
// again, each pass counted in marks, and waits until it has printed it
// times times: the PTY reader has then taken that much (under the model's
// limit of 16 MiB behind, so it does not wait).
func pourUntil(e *env, name, stream, marks string, times int) {
	e.t.Helper()
	e.mustWr("new", "-d", name, "--", "sh", "-c",
		fmt.Sprintf("i=0; while :; do cat %s; i=$((i+1)); echo $i > %s; done", stream, marks))
	e.eventually(fmt.Sprintf("the %s session to print %d MiB", name, times), func() bool {
		b, _ := os.ReadFile(marks)
		var n int
		fmt.Sscan(string(b), &n)
		return n >= times
	})
}
