package mux

import (
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"wr/ptyproc"
	"wr/screen"
	"wr/wire"
)

// exitedServer is a bare server (no socket) with a watcher, holding a
// placeholder session so that removing the others never stops it.
func exitedServer(t *testing.T) *server {
	t.Helper()
	w, err := ptyproc.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s := &server{
		log: log.New(io.Discard, "", 0), socket: filepath.Join(t.TempDir(), "s.sock"),
		sessions: map[string]*session{"placeholder": namedSession("placeholder")}, watcher: w,
	}
	// Run last (after the sessions' own cleanups): an armed expiry timer
	// would keep the whole server live for the rest of the test binary.
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ss := range s.sessions {
			if ss.expiry != nil {
				ss.expiry.Stop()
			}
		}
	})
	return s
}

// startScript starts script as session name of s, running and detached.
func startScript(t *testing.T, s *server, name, script string, exclusive bool) (*session, bool) {
	t.Helper()
	ss, created, werr := s.getOrCreate(name, true, exclusive, wire.SessionConfig{
		Command: []string{"/bin/sh", "-c", script},
		Env:     []string{"PATH=" + os.Getenv("PATH")},
		Cwd:     t.TempDir(),
	})
	if werr != nil {
		t.Fatalf("getOrCreate %s: %v", name, werr)
	}
	if created {
		ss.run()
		t.Cleanup(func() {
			_ = ss.proc.Signal(os.Kill)
			<-ss.done
		})
	}
	return ss, created
}

func waitDone(t *testing.T, ss *session) {
	t.Helper()
	select {
	case <-ss.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("session %s never ended", ss.name())
	}
}

// A session that ends with nobody attached is kept, exited, with its code
// and its screen; attach finds it to show it, an exclusive create does not
// find it, send is refused with how to see it, and collect removes it once.
func TestExitedSessionIsKept(t *testing.T) {
	s := exitedServer(t)
	ss, _ := startScript(t, s, "t", "echo boom; exit 2", true)
	waitDone(t, ss)

	if !ss.exited.Load() || ss.code != 2 {
		t.Fatalf("exited %v, code %d; want a kept session with code 2", ss.exited.Load(), ss.code)
	}
	if s.sessions["t"] != ss {
		t.Fatal("the exited session left the registry")
	}
	s.mu.Lock()
	armed := ss.expiry != nil
	s.mu.Unlock()
	if !armed {
		t.Error("no expiry timer for the kept session")
	}
	if txt := ss.capture(screen.TextOptions{}); !bytes.Contains(txt, []byte("boom")) {
		t.Errorf("capture of the exited session: %q, want boom", txt)
	}
	in := ss.info()
	if in.State != wire.StateExited || in.ExitCode == nil || *in.ExitCode != 2 || in.Ended == "" {
		t.Errorf("info: state %q, code %v, ended %q", in.State, in.ExitCode, in.Ended)
	}
	// Found by attach (create or not), not by wr new's exclusive create.
	for _, create := range []bool{false, true} {
		if got, created, werr := s.getOrCreate("t", create, false, wire.SessionConfig{}); werr != nil || got != ss || created {
			t.Errorf("getOrCreate(create %v): %p %v %v; want the exited session", create, got, created, werr)
		}
	}

	// send is refused, saying how to see it.
	a, b := socketPair(t)
	if s.lookupRunning(a, "t") != nil {
		t.Error("lookupRunning found the exited session")
	}
	f, err := wire.ReadFrame(b)
	var werr wire.Error
	if err != nil || wire.Decode(f, &werr) != nil || !strings.Contains(werr.Message, "has exited (code 2)") || !strings.Contains(werr.Message, "wr attach t") {
		t.Errorf("the refused send's reply: %v %+v", err, werr)
	}

	// attach shows it: Attached{Exited}, the screen, Exited{2}.
	a, b = socketPair(t)
	c := newClient(1, a, true, 80, 24)
	go c.writeLoop(func() {}, func() {})
	if res := ss.attach(c, wire.Attached{Name: "t", ClientID: 1}, true); res != attachExited {
		t.Fatalf("attach to the exited session: %v, want attachExited", res)
	}
	var acc wire.Attached
	if f, err := wire.ReadFrame(b); err != nil || f.Type != wire.TypeAttached || wire.Decode(f, &acc) != nil || !acc.Exited {
		t.Fatalf("first frame: %v %v %+v, want Attached{Exited}", f.Type, err, acc)
	}
	var out []byte
	for {
		f, err := wire.ReadFrame(b)
		if err != nil {
			t.Fatalf("no Exited after the screen: %v", err)
		}
		if f.Type == wire.TypeOutput {
			out = append(out, f.Payload...)
			continue
		}
		var ex wire.Exited
		if f.Type != wire.TypeExited || wire.Decode(f, &ex) != nil || ex.Code != 2 {
			t.Fatalf("frame %v after the screen, want Exited{2}", f.Type)
		}
		break
	}
	if !bytes.Contains(out, []byte("boom")) {
		t.Errorf("the restore of the exited session: %q, want boom", out)
	}
	<-c.done

	if !s.collect(ss, "test") || s.sessions["t"] != nil {
		t.Fatal("collect did not remove the exited session")
	}
	if s.collect(ss, "test") {
		t.Error("a session was collected twice")
	}
}

// A draining or running session is not exited: collect leaves it, and an
// exclusive create is refused. An exited one is replaced by an exclusive
// create, and the old one is not collected in the new one's place.
func TestExitedSessionReplaced(t *testing.T) {
	s := exitedServer(t)
	run, _ := startScript(t, s, "run", "exec sleep 600", true)
	if s.collect(run, "test") || s.sessions["run"] != run {
		t.Fatal("collect removed a running session")
	}
	if _, _, werr := s.getOrCreate("run", true, true, wire.SessionConfig{}); werr == nil || werr.Code != wire.CodeExists {
		t.Fatalf("exclusive create over a running session: %v, want exists", werr)
	}

	old, _ := startScript(t, s, "r", "exit 5", true)
	waitDone(t, old)
	if !old.exited.Load() {
		t.Fatal("the session was not kept")
	}
	nu, created := startScript(t, s, "r", "exec sleep 600", true)
	if !created || nu == old || s.sessions["r"] != nu {
		t.Fatal("wr new over an exited session did not replace it")
	}
	s.mu.Lock()
	stopped := old.expiry == nil
	s.mu.Unlock()
	if !stopped {
		t.Error("the replaced session's expiry timer is still armed")
	}
	if s.collect(old, "test") || s.sessions["r"] != nu {
		t.Error("collecting the replaced session removed the new one")
	}
}

// A session whose keep is negative (--keep 0) is not kept, nor is one
// that ends while killed.
func TestExitedSessionNotKept(t *testing.T) {
	s := exitedServer(t)
	ss, _, werr := s.getOrCreate("n", true, true, wire.SessionConfig{
		Command: []string{"/bin/sh", "-c", "exit 3"}, Cwd: t.TempDir(), KeepMS: -1,
	})
	if werr != nil {
		t.Fatal(werr)
	}
	ss.run()
	waitDone(t, ss)
	if ss.exited.Load() || s.sessions["n"] != nil {
		t.Error("a session with a negative keep was kept")
	}

	k, _ := startScript(t, s, "k", "exec sleep 600", true)
	s.killSessions([]*session{k})
	waitDone(t, k)
	if k.exited.Load() || s.sessions["k"] != nil {
		t.Error("a killed session was kept")
	}
}

// An 80x24 session with its whole default scrollback full holds no more
// once it has exited than it did running: the model is kept as it is, and
// everything else (the PTY, the reader and its arena) goes. Measured as the
// live heap after a collection, with the session idle and running, then
// exited.
func TestExitedSessionHoldsNoMoreThanRunning(t *testing.T) {
	const slack = 4 << 10 // bytes
	s := exitedServer(t)
	// 2,500 lines: more than the 2,000 of the default scrollback.
	ss, _ := startScript(t, s, "full", `i=0; while [ $i -lt 2500 ]; do echo "line $i of a scrollback that is full to the brim, as a build log would be"; i=$((i+1)); done; echo FULL; read x; exit 9`, true)
	deadline := time.Now().Add(20 * time.Second)
	for !bytes.Contains(ss.capture(screen.TextOptions{}), []byte("FULL")) {
		if time.Now().After(deadline) {
			t.Fatal("the scrollback never filled")
		}
		time.Sleep(5 * time.Millisecond) // polling for the output, not timing it
	}
	running := liveHeap()
	if err := ss.writePTY([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	waitDone(t, ss)
	if !ss.exited.Load() {
		t.Fatal("the session was not kept")
	}
	exited := liveHeap()
	t.Logf("live heap %d KiB with the full session running, %d with it exited", running>>10, exited>>10)
	if exited > running+slack {
		t.Errorf("the exited session holds %d bytes more than it did running", exited-running)
	}
	txt := ss.capture(screen.TextOptions{Scrollback: true})
	if !bytes.Contains(txt, []byte("line 2499 of")) || !bytes.Contains(txt, []byte("line 600 of")) {
		t.Errorf("the exited session's scrollback lost lines: %d bytes captured", len(txt))
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// namedSession is a bare session with only a name, for tests of the
// registry.
func namedSession(name string) *session {
	ss := &session{}
	ss.setName(name)
	return ss
}

// A kill that begins as the server makes its last wait for the sweeps (a
// wr server stop arriving as the last session ended by itself) is not
// counted: WaitGroup.Add from zero racing with Wait, which the race
// detector caught in the suite. Run under -race, this fails without
// sweepsClosed.
func TestSweepAfterTheLastWait(t *testing.T) {
	s := exitedServer(t)
	k, _ := startScript(t, s, "k", "exec sleep 600", true)
	waited := make(chan struct{})
	go func() {
		s.waitSweeps()
		close(waited)
	}()
	s.killSessions([]*session{k})
	waitDone(t, k)
	<-waited
}
