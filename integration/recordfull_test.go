//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A recording whose reader goes away part way (a FIFO, as a pipe to
// another program would be) fails the attach that asked for it, saying
// so, instead of blocking for ever on a pipe wr itself held open, or
// exiting 0 with a truncated recording.
func TestRecordThatCannotBeWrittenFails(t *testing.T) {
	e := newEnv(t)
	fifo := filepath.Join(e.dir, "cast")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			return
		}
		var b [16]byte
		_, _ = f.Read(b[:])
		f.Close()
	}()
	r := e.wr("attach", "--record", fifo, "x", "--", "sh", "-c", "seq 1 20000")
	if r.code != 1 || !strings.Contains(r.stderr, "recording") {
		t.Fatalf("wr attach --record to a reader that left: exit %d, stderr %q; want 1 and a word about the recording", r.code, r.stderr)
	}
}
