//go:build linux

package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wr/wire"
)

// Upgrades in place (wr server upgrade): two binaries of different
// versions, built like the suite's own, hand a server over to each other.

var versionBuilds struct {
	sync.Mutex
	bins map[string]string
}

// wrVersion builds wr as TestMain does, with its version set to version at
// link time, once per run, and returns the binary's path.
func wrVersion(t testing.TB, version string) string {
	t.Helper()
	versionBuilds.Lock()
	defer versionBuilds.Unlock()
	if bin, ok := versionBuilds.bins[version]; ok {
		return bin
	}
	bin := filepath.Join(suiteRoot, "wr-"+version)
	args := []string{"build", "-o", bin, "-tags", "urfave_cli_no_docs", "-ldflags", "-X wr/wire.Version=" + version}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "..")...)
	build.Env = os.Environ()
	if !raceEnabled {
		build.Env = append(build.Env, "CGO_ENABLED=0")
	}
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building wr %s: %v\n%s", version, err, out)
	}
	if versionBuilds.bins == nil {
		versionBuilds.bins = map[string]string{}
	}
	versionBuilds.bins[version] = bin
	return bin
}

// runBin runs a wr command with the given binary and waits for it.
func (e *env) runBin(bin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	r, err := runCmd(cmd)
	if err != nil {
		e.t.Fatalf("%s %v: %v", filepath.Base(bin), args, err)
	}
	return r
}

func (e *env) mustBin(bin string, args ...string) string {
	e.t.Helper()
	r := e.runBin(bin, args...)
	if r.code != 0 {
		e.t.Fatalf("%s %v: exit %d, stderr %q", filepath.Base(bin), args, r.code, r.stderr)
	}
	return r.stdout
}

// termBin attaches a client of the given binary on its own PTY.
func (e *env) termBin(bin string, cols, rows int, args ...string) *term {
	e.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = e.vars
	cmd.Dir = e.dir
	return e.startTerm(cmd, cols, rows)
}

// statusOf reads one field of wr server status, as text.
func (e *env) statusOf(bin, field string) string {
	e.t.Helper()
	for _, line := range strings.Split(e.mustBin(bin, "server", "status"), "\n") {
		if v, ok := strings.CutPrefix(line, field+" "); ok {
			return v
		}
	}
	e.t.Fatalf("no %s in wr server status", field)
	return ""
}

// servedBy checks, after what happened (after), that the server answering
// bin runs version and is still process pid, and that no hand-off state is
// left in the socket directory.
func (e *env) servedBy(bin, version, pid, after string) {
	e.t.Helper()
	if got := e.statusOf(bin, "version"); got != version {
		e.t.Errorf("version after %s: %s, want %s", after, got, version)
	}
	if got := e.statusOf(bin, "pid"); got != pid {
		e.t.Errorf("server pid after %s: %s, want %s", after, got, pid)
	}
	if left := e.handoffLeft(); len(left) > 0 {
		e.t.Errorf("hand-off state left in the socket directory after %s: %v", after, left)
	}
}

// handoffLeft lists hand-off state files in the socket directory.
func (e *env) handoffLeft() []string {
	ents, _ := os.ReadDir(filepath.Dir(e.socket))
	var left []string
	for _, de := range ents {
		if strings.Contains(de.Name(), ".handoff") {
			left = append(left, de.Name())
		}
	}
	return left
}

var counterLine = regexp.MustCompile(`n=(\d+)\r\n`)

// counterRun checks the counter lines a client showed after from: each
// one more than the last, no gap, no repeat. It returns how many there
// were and the last.
func counterRun(t *testing.T, out []byte, from int) (int, int) {
	t.Helper()
	out = out[from:]
	// Start at a line's beginning: the first line may be cut.
	if i := strings.IndexByte(string(out), '\n'); i >= 0 {
		out = out[i+1:]
	}
	n, last := 0, -1
	for _, m := range counterLine.FindAllSubmatch(out, -1) {
		v, _ := strconv.Atoi(string(m[1]))
		if last >= 0 && v != last+1 {
			t.Fatalf("counter went from %d to %d: a line lost or doubled", last, v)
		}
		last = v
		n++
	}
	return n, last
}

// TestUpgradeKeepsSessions hands a busy server over to a new version:
// sessions keep their processes, screens and codes; attached clients stay
// attached and see every byte once.
func TestUpgradeKeepsSessions(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	// Ten sessions in all: eight shells, a counter and a
	// finished one.
	shells := []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"}
	for _, name := range shells {
		e.mustBin(v1, "new", "-d", name)
	}
	e.mustBin(v1, "new", "-d", "counter", "--", "sh", "-c", `i=0; while :; do i=$((i+1)); echo "n=$i"; sleep 0.002; done`)
	e.mustBin(v1, "new", "-d", "done", "--", "sh", "-c", "echo finished; exit 7")
	e.eventually("session done to be exited", func() bool {
		return strings.Contains(e.mustBin(v1, "ls"), "exited 7")
	})
	pid := e.statusOf(v1, "pid")

	// Three clients on s1, one on the counter.
	var clients []*term
	for range 3 {
		tm := e.termBin(v1, 80, 24, "attach", "s1")
		tm.expect("PROMPT>") // the restore's: trailing blanks are not drawn
		clients = append(clients, tm)
	}
	watcher := e.termBin(v1, 80, 24, "attach", "counter")
	watcher.expect("n=")
	clients[0].run("echo from-before")
	for _, tm := range clients[1:] {
		tm.expect("DONE-42")
	}
	// Each shell writes its $$ down; its pid must not change.
	pids := map[string]string{}
	for _, name := range shells {
		e.mustBin(v1, "send", name, "--enter", `echo $$ > "$HOME/pid-`+name+`"`)
	}
	for _, name := range shells {
		f := filepath.Join(e.dir, "home", "pid-"+name)
		e.eventually("the pid of "+name, func() bool {
			b, err := os.ReadFile(f)
			pids[name] = strings.TrimSpace(string(b))
			return err == nil && strings.HasSuffix(string(b), "\n")
		})
	}
	for _, tm := range clients {
		tm.settled()
	}
	captures := map[string]string{}
	for _, name := range append(shells, "done") {
		captures[name] = e.mustBin(v1, "capture", "--ansi", "--scrollback", name)
	}
	mark := len(watcher.output())
	// A wr wait under way: its connection is handed over too. It is
	// known to be connected once the server holds one more descriptor.
	fds := countFDs(t, pid)
	earlyWait := make(chan result, 1)
	go func() { earlyWait <- e.runBin(v1, "wait", "s3") }()
	e.eventually("wr wait to connect", func() bool { return countFDs(t, pid) > fds })

	r := e.runBin(v2, "server", "upgrade")
	if r.code != 0 {
		t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "upgraded to 9.0.2") {
		t.Errorf("wr server upgrade printed %q", r.stdout)
	}

	e.servedBy(v2, "9.0.2", pid, "the upgrade")
	for name, before := range captures {
		if after := e.mustBin(v2, "capture", "--ansi", "--scrollback", name); after != before {
			t.Errorf("capture of %s changed across the upgrade:\nbefore %q\nafter  %q", name, before, after)
		}
	}
	for _, name := range shells {
		e.mustBin(v2, "send", name, "--enter", `echo $$ > "$HOME/pid-after-`+name+`"`)
		f := filepath.Join(e.dir, "home", "pid-after-"+name)
		var got string
		e.eventually("the pid of "+name+" after", func() bool {
			b, err := os.ReadFile(f)
			got = strings.TrimSpace(string(b))
			return err == nil && strings.HasSuffix(string(b), "\n")
		})
		if got != pids[name] {
			t.Errorf("$$ of %s: %s after the upgrade, %s before", name, got, pids[name])
		}
	}

	// The counter ran on through the hand-off, every line once.
	e.eventually("the counter to run on", func() bool {
		n, _ := counterRun(t, watcher.output(), mark)
		return n > 200
	})

	// Every client still types and sees what the others type.
	for i, tm := range clients {
		tm.send(fmt.Sprintf("echo typed-%d-$((40+2))\r", i))
		for _, other := range clients {
			other.expect(fmt.Sprintf("typed-%d-42", i))
		}
	}

	// The finished session's code is still there to collect.
	if r := e.runBin(v2, "wait", "done"); r.code != 7 {
		t.Errorf("wr wait done: exit %d, want 7 (stderr %q)", r.code, r.stderr)
	}
	e.mustBin(v2, "send", "s3", "--enter", "exit 6")
	if r := <-earlyWait; r.code != 6 {
		t.Errorf("wr wait s3, waiting since before the upgrade: exit %d, want 6 (stderr %q)", r.code, r.stderr)
	}
	// A session ending after the hand-off tells its clients, and wr wait
	// (which, however late it asks, finds the code kept: s2 has no client).
	waited := make(chan result, 1)
	go func() { waited <- e.runBin(v2, "wait", "s2") }()
	e.mustBin(v2, "send", "s2", "--enter", "exit 4")
	clients[0].send("exit 3\r")
	for i, tm := range clients {
		if code := tm.wait(); code != 3 {
			t.Errorf("client %d exited %d, want 3", i, code)
		}
	}
	if r := <-waited; r.code != 4 {
		t.Errorf("wr wait s2: exit %d, want 4 (stderr %q)", r.code, r.stderr)
	}
}

// TestUpgradeRefusesBrokenBinary: a binary that fails the check is never
// exec'd; the old server serves on, its clients attached.
func TestUpgradeRefusesBrokenBinary(t *testing.T) {
	e := newEnv(t)
	v1 := wrVersion(t, "9.0.1")
	e.mustBin(v1, "new", "-d", "s1")
	tm := e.termBin(v1, 80, 24, "attach", "s1")
	tm.expect("PROMPT>")
	pid := e.statusOf(v1, "pid")
	broken := filepath.Join(e.dir, "broken-wr")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho not a wr >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, binary, says string
	}{
		{"fails its check", broken, "failed its check"},
		{"not a wr", "/bin/true", "failed its check"},
		{"missing", filepath.Join(e.dir, "no-such-wr"), "cannot run the new binary"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.runBin(v1, "server", "upgrade", "--binary", tt.binary)
			if r.code != 1 || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("upgrade to %s: exit %d, stderr %q; want 1 and %q", tt.binary, r.code, r.stderr, tt.says)
			}
			e.servedBy(v1, "9.0.1", pid, "a refused upgrade ("+tt.name+")")
			tm.run("echo still-here")
		})
	}
}

// TestUpgradeAutomatic: a newer wr meeting an older server upgrades it
// first, says so once on stderr, then does what it was asked; an older wr
// is served by the newer server without upgrading anything.
func TestUpgradeAutomatic(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	// With no server there is nothing to upgrade, and nothing is started.
	if r := e.runBin(v2, "server", "upgrade"); r.code != 1 || !strings.Contains(r.stderr, "no server running") {
		t.Errorf("wr server upgrade with no server: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.runBin(v2, "ls"); r.code != 0 || r.stderr != "" {
		t.Errorf("wr ls with no server: exit %d, stderr %q", r.code, r.stderr)
	}
	e.mustBin(v1, "new", "-d", "s1")
	tm := e.termBin(v1, 80, 24, "attach", "s1")
	tm.expect("PROMPT>")
	pid := e.statusOf(v1, "pid")

	r := e.runBin(v2, "ls")
	if r.code != 0 || !strings.Contains(r.stdout, "s1") {
		t.Fatalf("wr ls (newer): exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "upgraded the server") || !strings.Contains(lines[0], "9.0.2") {
		t.Errorf("wr ls (newer) should say in one line that it upgraded the server; stderr %q", r.stderr)
	}
	if got := e.statusOf(v2, "version"); got != "9.0.2" {
		t.Errorf("version after wr ls: %s, want 9.0.2", got)
	}
	if got := e.statusOf(v2, "pid"); got != pid {
		t.Errorf("pid after wr ls: %s, want %s", got, pid)
	}
	for _, bin := range []string{v2, v1} {
		r := e.runBin(bin, "ls")
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "s1") {
			t.Errorf("%s ls against 9.0.2: exit %d, stdout %q, stderr %q", filepath.Base(bin), r.code, r.stdout, r.stderr)
		}
	}
	if got := e.statusOf(v1, "version"); got != "9.0.2" {
		t.Errorf("an older wr changed the server: version %s", got)
	}
	tm.run("echo still-attached")
}

// countFDs counts the descriptors process pid holds.
func countFDs(t *testing.T, pid string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestUpgradeClientBehind: a client that stopped reading while output
// flooded is part way through a frame at the hand-off; the new server
// finishes that frame, then resynchronises the client as any that fell
// behind, and the stream it reads stays whole to the session's end.
func TestUpgradeClientBehind(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	e.mustBin(v1, "new", "-d", "flood", "--", "sh", "-c", `i=0; while :; do i=$((i+1)); echo "n=$i"; done`)
	tm := e.termBin(v1, 80, 24, "attach", "flood")
	tm.expect("n=")
	if err := tm.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tm.cmd.Process.Signal(syscall.SIGCONT) }()
	// Far enough that the client's socket is full and its queue over its
	// budget: the writer waits, part way through a frame.
	latest := func() int {
		m := counterLine.FindAllStringSubmatch(strings.ReplaceAll(e.mustBin(v1, "capture", "flood"), "\n", "\r\n"), -1)
		if len(m) == 0 {
			return 0
		}
		n, _ := strconv.Atoi(m[len(m)-1][1])
		return n
	}
	start := latest()
	e.eventually("the flood to outrun the stopped client", func() bool { return latest() > start+200000 })

	if r := e.runBin(v2, "server", "upgrade"); r.code != 0 {
		t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := tm.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	e.mustBin(v2, "kill", "flood")
	if code := tm.wait(); code != 129 {
		log, _ := os.ReadFile(e.socket + ".log")
		t.Fatalf("the client behind exited %d, want 129 (killed): its stream broke\nserver log:\n%s", code, log)
	}
}

// TestUpgradeKeepsShownScrollback: how far a terminal has been shown the
// scrollback crosses the hand-off, so a reattach after it draws only what
// scrolled off since, as it would without the upgrade.
func TestUpgradeKeepsShownScrollback(t *testing.T) {
	e := newEnv(t)
	v2 := wrVersion(t, "9.0.2")
	e.mustWr("new", "-d", "s")
	e.stableCapture("s", strings.TrimSpace(prompt))
	batch := func(from, to int, tag string) { t.Helper(); e.printBatch("s", from, to, tag) }
	batch(1, 100, "A")
	tab := e.shellTerm(80, 24, `"$WR" attach s; read x; "$WR" attach s`)
	tab.expect(prompt)
	tab.settled()
	tab.send("\x1c")
	tab.expect("[detached from s]")
	if r := e.runBin(v2, "server", "upgrade"); r.code != 0 {
		t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
	}
	batch(101, 200, "B")
	tab.send("\r")
	tab.expect(prompt)
	tab.settled()
	tab.send("\x1c")
	tab.expect("[detached from s]")
	if code := tab.wait(); code != 0 {
		t.Fatalf("the tab's shell exited %d", code)
	}
	seen := numbersShown(80, 24, tab.output())
	for i := 1; i <= 200; i++ {
		if n := seen[fmt.Sprint(i)]; n != 1 {
			t.Errorf("line %d shown %d times, want once", i, n)
			break
		}
	}
}

// TestUpgradeProtocolMajors: a client of another protocol major is refused
// with the advice that fits (an older one: the server's binary; a newer
// one: wr server upgrade), and a Hello for an upgrade is answered by a
// server of any major, but only an Upgrade follows it.
func TestUpgradeProtocolMajors(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "a")
	for _, tt := range []struct {
		name  string
		major int
		says  string
	}{
		{"older client", wire.ProtocolMajor - 1, "use the server's wr (" + wrBin + ")"},
		{"newer client", wire.ProtocolMajor + 1, "wr server upgrade"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, f := handshake(t, e.socket, tt.major)
			var r wire.Refused
			if f.Type != wire.TypeRefused || wire.Decode(f, &r) != nil || !strings.Contains(r.Message, tt.says) {
				t.Fatalf("got %s %q, want Refused saying %q", f.Type, r.Message, tt.says)
			}
		})
	}
	c, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	p, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor + 1, Version: "test", ForUpgrade: true})
	_ = wire.WriteFrame(c, wire.TypeHello, p)
	if f, err := wire.ReadFrame(c); err != nil || f.Type != wire.TypeWelcome {
		t.Fatalf("a Hello for an upgrade from another major: %v %v, want Welcome", f.Type, err)
	}
	p, _ = wire.Encode(wire.List{})
	_ = wire.WriteFrame(c, wire.TypeList, p)
	if f, err := wire.ReadFrame(c); err != nil || f.Type != wire.TypeRefused {
		t.Fatalf("a List after a Hello for an upgrade from another major: %v %v, want Refused", f.Type, err)
	}
}

// TestUpgradeFailedExecServesOn: a failure after everything was held (the
// new binary passed its check, then could not be exec'd) lets everything
// go on where it stopped: clients attached, the counter without a gap or a
// repeat, input, a wr wait under way.
func TestUpgradeFailedExecServesOn(t *testing.T) {
	e := newEnv(t)
	v1 := wrVersion(t, "9.0.1")
	e.mustBin(v1, "new", "-d", "s1")
	e.mustBin(v1, "new", "-d", "w")
	e.mustBin(v1, "new", "-d", "counter", "--", "sh", "-c", `i=0; while :; do i=$((i+1)); echo "n=$i"; sleep 0.002; done`)
	tm := e.termBin(v1, 80, 24, "attach", "s1")
	tm.expect("PROMPT>")
	watcher := e.termBin(v1, 80, 24, "attach", "counter")
	watcher.expect("n=")
	pid := e.statusOf(v1, "pid")
	fds := countFDs(t, pid)
	waited := make(chan result, 1)
	go func() { waited <- e.runBin(v1, "wait", "w") }()
	e.eventually("wr wait to connect", func() bool { return countFDs(t, pid) > fds })

	// Passes its check, then is gone: the exec fails after the hold.
	vanishing := filepath.Join(e.dir, "vanishing-wr")
	script := "#!/bin/sh\nif [ \"$2\" = check-handoff ]; then echo 'wr-handoff-ok 1 3 test'; rm -f -- \"$0\"; exit 0; fi\nexit 1\n"
	if err := os.WriteFile(vanishing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := len(watcher.output())
	r := e.runBin(v1, "server", "upgrade", "--binary", vanishing)
	if r.code != 1 || !strings.Contains(r.stderr, "serves on") || !strings.Contains(r.stderr, "exec") {
		t.Fatalf("upgrade to a binary that vanished: exit %d, stderr %q; want 1 and why", r.code, r.stderr)
	}
	e.servedBy(v1, "9.0.1", pid, "a failed exec")
	e.eventually("the counter to run on", func() bool {
		n, _ := counterRun(t, watcher.output(), mark)
		return n > 200
	})
	tm.run("echo still-here")
	e.mustBin(v1, "send", "w", "--enter", "exit 5")
	if r := <-waited; r.code != 5 {
		t.Errorf("wr wait w across the failed upgrade: exit %d, want 5 (stderr %q)", r.code, r.stderr)
	}
}

// TestUpgradeDuringPaste: input that is arriving while the server hands
// over (a paste, read in frames, perhaps part way through one) reaches the
// program whole and in order, nothing lost or doubled.
func TestUpgradeDuringPaste(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	e.mustBin(v1, "new", "-d", "s1")
	tm := e.termBin(v1, 100, 30, "attach", "s1")
	tm.expect("PROMPT>")
	out := filepath.Join(e.dir, "home", "pasted")
	// The paste is typed ahead: the loop reads what the shell left, a
	// line at a time, slowly enough that the upgrade comes part way.
	tm.send(`stty -echo; while IFS= read -r l; do printf '%s\n' "$l"; done > "$HOME/pasted"; stty echo; echo CAT-$((6*7))` + "\r")
	var want strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&want, "line %05d of the paste, which goes on for a while so that it takes several frames\n", i)
	}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		_, _ = tm.pty.Write([]byte(strings.ReplaceAll(want.String(), "\n", "\r")))
	}()
	if r := e.runBin(v2, "server", "upgrade"); r.code != 0 {
		t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
	}
	select {
	case <-sent:
	case <-time.After(timeout):
		t.Fatal("the paste was not taken")
	}
	tm.send("\x04")
	tm.expect("CAT-42")
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf("the paste arrived as %d bytes, want %d; first difference at %d", len(got), want.Len(), firstDiff(string(got), want.String()))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestUpgradeKeepsDrawnClient: a client whose terminal is not the
// session's size is drawn from the screen model; its view crosses the
// hand-off, so it is not drawn again from scratch, and goes on being sent
// what changes.
func TestUpgradeKeepsDrawnClient(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	e.mustBin(v1, "new", "-d", "s1")
	owner := e.termBin(v1, 80, 24, "attach", "s1")
	owner.expect("PROMPT>")
	owner.run("echo owner-here")
	drawn := e.termBin(v1, 100, 30, "attach", "s1")
	drawn.expect("owner-here")
	owner.run("echo before-$((40+2))")
	drawn.expect("before-42")
	drawn.settled()
	mark := len(drawn.output())
	if r := e.runBin(v2, "server", "upgrade"); r.code != 0 {
		t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
	}
	owner.run("echo after-$((40+2))")
	drawn.expect("after-42")
	drawn.settled()
	if after := drawn.output()[mark:]; strings.Contains(string(after), "\x1b[2J") {
		t.Errorf("the drawn client was drawn again from scratch after the upgrade: %q", after)
	}
}

// The server's version is in its lock file, and a newer wr reads it there
// before each verb instead of connecting once more to learn it (that round
// trip made every attach slower). So a lock file that names the newer
// version keeps the older server as it is (it would be upgraded if the
// check connected), and a server that ends leaves no version behind.
func TestUpgradeCheckReadsTheLockFile(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	e.mustBin(v1, "new", "-d", "s1")
	lock := e.socket + ".lock"
	if b, err := os.ReadFile(lock); err != nil || !strings.HasPrefix(string(b), "9.0.1\n") {
		t.Fatalf("lock file of a 9.0.1 server: %q, %v", b, err)
	}
	if err := os.WriteFile(lock, []byte("9.0.2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.runBin(v2, "ls"); r.code != 0 || r.stderr != "" {
		t.Errorf("wr ls (9.0.2) with the lock file naming 9.0.2: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := e.statusOf(v1, "version"); got != "9.0.1" {
		t.Errorf("the check connected and upgraded the server: version %s", got)
	}
	e.mustBin(v1, "server", "stop")
	e.eventually("the stopped server to empty its lock file", func() bool {
		b, err := os.ReadFile(lock)
		return err == nil && len(b) == 0
	})
}

// TestUpgradeMidSequence: a client part way through an escape sequence or
// a bracketed paste does not stop an upgrade; what its input classifier
// held crosses, so the rest it sends after completes the sequence as one.
// The sender is not the size's owner, so the server holds an unfinished
// sequence back rather than passing it through.
func TestUpgradeMidSequence(t *testing.T) {
	for _, tt := range []struct {
		name         string
		before, seen string // sent before the upgrade, and what the program shows of it
		after, want  string // sent after the upgrade, and what the program shows next
	}{
		{"an unfinished paste", "\x1b[200~hel", "^[[200~hel", "lo\x1b[201~", "lo^[[201~"},
		{"an unfinished key", "key-\x1b[1;5", "key-", "A", "^[[1;5A"},
		// A paste over left its end's match count behind, which the new
		// server took for an impossible state: the held key was lost.
		{"an unfinished key after a paste", "\x1b[200~x\x1b[201~key-\x1b[1;5", "^[[200~x^[[201~key-", "A", "^[[1;5A"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
			e.mustBin(v1, "new", "-d", "s1", "--", "sh", "-c", "stty raw -echo; echo READY; exec cat -v")
			own := e.termBin(v1, 80, 24, "attach", "s1")
			own.expect("READY")
			other := e.termBin(v1, 80, 24, "attach", "s1")
			other.expect("READY")
			own.send("own-")
			own.expect("own-")
			other.send(tt.before)
			own.expect(tt.seen)
			if r := e.runBin(v2, "server", "upgrade"); r.code != 0 {
				t.Fatalf("wr server upgrade: exit %d, stderr %q", r.code, r.stderr)
			}
			other.send(tt.after)
			own.expect(tt.want)
		})
	}
}

// TestUpgradeRefusedDuringStreamingSend: a wr send - still streaming is
// not handed over (its connection would be cut at the exec, and the rest
// of its text lost), so the upgrade is refused, naming it; the old server
// serves on and the send completes whole.
func TestUpgradeRefusedDuringStreamingSend(t *testing.T) {
	e := newEnv(t)
	v1, v2 := wrVersion(t, "9.0.1"), wrVersion(t, "9.0.2")
	got := filepath.Join(e.dir, "home", "got")
	e.mustBin(v1, "new", "-d", "s1", "--", "sh", "-c", `stty -echo; exec cat > "$HOME/got"`)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); pw.Close() })
	send := exec.Command(v1, "send", "--timeout", "0", "s1", "-")
	send.Env, send.Dir, send.Stdin = e.vars, e.dir, pr
	// A file, not a pipe: a process the send leaves (none should) cannot
	// hold Wait up.
	sendErr, err := os.Create(filepath.Join(e.dir, "send.err"))
	if err != nil {
		t.Fatal(err)
	}
	defer sendErr.Close()
	send.Stderr = sendErr
	if err := send.Start(); err != nil {
		t.Fatal(err)
	}
	sent := make(chan struct{})
	var sendWait error
	go func() { sendWait = send.Wait(); close(sent) }()
	t.Cleanup(func() {
		_ = send.Process.Kill()
		<-sent
	})
	pr.Close()
	waitFile := func(want string) {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for {
			b, _ := os.ReadFile(got)
			if string(b) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the session took %q, want %q", b, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := pw.WriteString("line 1\n"); err != nil {
		t.Fatal(err)
	}
	waitFile("line 1\n")
	r := e.runBin(v2, "server", "upgrade")
	if r.code == 0 {
		t.Fatalf("wr server upgrade succeeded while a send was streaming: %q", r.stdout)
	}
	if want := "a wr send is still streaming into session s1"; !strings.Contains(r.stderr, want) {
		t.Errorf("the refusal %q does not say %q", r.stderr, want)
	}
	if v := e.statusOf(v1, "version"); v != "9.0.1" {
		t.Errorf("the server is version %s after a refused upgrade, want 9.0.1", v)
	}
	if _, err := pw.WriteString("line 2\n"); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	select {
	case <-sent:
		if err := sendWait; err != nil {
			b, _ := os.ReadFile(sendErr.Name())
			t.Fatalf("wr send: %v, stderr %q", err, b)
		}
	case <-time.After(timeout):
		t.Fatal("wr send did not finish")
	}
	waitFile("line 1\nline 2\n")
}

// TestUpgradeToABinaryThatDoesNotTakeOver: a binary that passes its check
// but exits when exec'd loses the sessions, as the README warns; the
// message says why without a "<nil>", and the hand-off state it never
// read (every session's screen) is removed by the next server to start.
func TestUpgradeToABinaryThatDoesNotTakeOver(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "s1")
	quitter := filepath.Join(e.dir, "quitting-wr")
	script := "#!/bin/sh\nif [ \"$2\" = check-handoff ]; then echo 'wr-handoff-ok 1 5 test'; exit 0; fi\nexit 1\n"
	if err := os.WriteFile(quitter, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.wr("server", "upgrade", "--binary", quitter)
	if r.code != 1 || !strings.Contains(r.stderr, "did not take over") || strings.Contains(r.stderr, "<nil>") {
		t.Fatalf("upgrade to a binary that quits: exit %d, stderr %q", r.code, r.stderr)
	}
	state := e.socket + ".handoff"
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("no hand-off state after the failed take-over (%v): the test proves nothing", err)
	}
	e.mustWr("new", "-d", "s2")
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("the hand-off state outlived a new server's start: %v", err)
	}
}

// TestUpgradeWhileAnExitIsUnconfirmed: a client that confirms exit codes
// (one over ssh) shown an exited session holds its ExitSeen, as a stalled
// link would: an upgrade goes ahead all the same, and the session, still
// exited, is the new server's. It used to be refused ("an Attach request
// is still under way") for as long as the link stalled.
func TestUpgradeWhileAnExitIsUnconfirmed(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "x", "--", "sh", "-c", "exit 3")
	e.eventually("x to exit", func() bool { return strings.Contains(e.mustWr("ls"), "exited 3") })
	c, f := handshake(t, e.socket, wire.ProtocolMajor)
	if f.Type != wire.TypeWelcome {
		t.Fatalf("got %s", f.Type)
	}
	req, _ := wire.Encode(wire.Attach{Name: "x", AckExit: true})
	if err := wire.WriteFrame(c, wire.TypeAttach, req); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := wire.ReadFrame(c)
		if err != nil {
			t.Fatalf("before Exited: %v", err)
		}
		if f.Type == wire.TypeExited {
			var ex wire.Exited
			if err := wire.Decode(f, &ex); err != nil || !ex.Ack || ex.Code != 3 {
				t.Fatalf("Exited %+v (%v), want code 3 asking for ExitSeen", ex, err)
			}
			break
		}
	}
	if r := e.wr("server", "upgrade"); r.code != 0 {
		t.Fatalf("upgrade with an exit unconfirmed: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(e.mustWr("ls"), "exited 3") {
		t.Fatal("the exited session did not reach the new server")
	}
}
