//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/creack/pty"
	rawterm "golang.org/x/term"
)

// The floor holders: two C programs (testdata/floor) that do the least a
// holder of each shape can do, measured beside wr so that a target can be
// read against what the shape allows on this machine, not only against a
// raw PTY. floor-fan is one process that owns every client's terminal
// (tmux's and screen's shape) and writes each PTY read to them in turn;
// floor-relay is a server process and a client process joined by a socket
// (dtach's and wr's shape, where `wr attach` relays frames). Neither keeps
// a screen, queues, or framing. They are built with the system's C
// compiler and skipped where there is none.

// floorPrograms builds fan and relay once per run.
var floorPrograms = sync.OnceValues(func() (string, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(suiteRoot, "floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, prog := range []string{"fan", "relay"} {
		out, err := exec.Command(cc, "-O2", "-o", filepath.Join(dir, prog), filepath.Join("testdata", "floor", prog+".c"), "-lutil").CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("cc %s.c: %v: %s", prog, err, out)
		}
	}
	return dir, nil
})

// floorKinds are the floor holders that can run here, for the benchmarks
// that compare against them.
func floorKinds(tb testing.TB, kinds ...string) []string {
	if _, err := floorPrograms(); err != nil {
		tb.Logf("the floor holders cannot be built (%v): their comparison is skipped", err)
		return nil
	}
	return kinds
}

// floorHolder runs prog with the session's script and the terminals of its
// clients. Clients are terminals the harness opens; the program starts
// once they are all there (attached), since it takes them on its command
// line.
type floorHolder struct {
	prog   string
	dir    string
	script string
	ttys   []string
}

func (h *floorHolder) name() string { return "floor-" + h.prog }
func (h *floorHolder) create(tb testing.TB, script string) {
	h.script = script
	h.dir = benchDir(tb)
	tb.Cleanup(func() { killProcesses(h.dir) })
}
func (h *floorHolder) client() ([]string, []string) { return nil, nil }
func (h *floorHolder) pids(tb testing.TB) []int     { return nil }

func (h *floorHolder) attach(tb testing.TB, cols, rows int, marker string) (*sink, <-chan struct{}) {
	tb.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { master.Close(); tty.Close() })
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		tb.Fatal(err)
	}
	// Raw before the program starts, so nothing typed first is held by a
	// line discipline the program has not yet switched off.
	if _, err := rawterm.MakeRaw(int(tty.Fd())); err != nil {
		tb.Fatal(err)
	}
	h.ttys = append(h.ttys, tty.Name())
	s := &sink{pty: master, read: make(chan struct{}, 1)}
	var hit <-chan struct{}
	if marker != "" {
		hit = s.watch(marker)
	}
	go s.loop()
	return s, hit
}

func (h *floorHolder) attached(tb testing.TB, n int) {
	tb.Helper()
	dir, err := floorPrograms()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, h.prog), append([]string{h.script}, h.ttys...)...)
	cmd.Env = baseVars(h.dir)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
}
