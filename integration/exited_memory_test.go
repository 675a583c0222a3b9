//go:build linux

package integration

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Issue 16, item 5: an exited session holds its screen model and nothing
// else (no PTY, no goroutine, no read arena), so a thousand exited
// prompt-sized sessions cost the server at most 10 MiB.

// exitedScript is a prompt-sized session that ends at once.
const exitedScript = "echo hi; exit 1"

// exitedHeapGrowth creates n sessions that end at once while nobody is
// attached, waits until wr ls lists every one of them as exited, and
// returns the server's heap (wr server status) before and after. The
// server is warmed up first with warm such sessions, removed again, so that
// what the first sessions pay once (the server's own heap, Go's spans) is
// not counted; a long-lived session keeps the server up throughout.
func exitedHeapGrowth(e *env, warm, n int) (before, after int) {
	e.t.Helper()
	e.mustWr("new", "-d", "keep", "--", "sh", "-c", "exec sleep 600")
	create := func(prefix string, n int) {
		for i := 0; i < n; i++ {
			e.mustWr("new", "-d", fmt.Sprintf("%s%d", prefix, i), "--", "sh", "-c", exitedScript)
		}
		e.eventually(fmt.Sprintf("%d sessions to be listed as exited", n), func() bool {
			return e.countExited() == n
		})
	}
	create("w", warm)
	e.mustWr("kill", "--exited")
	before = e.status("heap-kib")
	create("x", n)
	return before, e.status("heap-kib")
}

// countExited is how many sessions wr ls --json lists as exited.
func (e *env) countExited() int {
	e.t.Helper()
	var all []exitedInfo
	if err := json.Unmarshal([]byte(e.mustWr("ls", "--json")), &all); err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, s := range all {
		if s.State == "exited" {
			n++
		}
	}
	return n
}

// 200 exited sessions: the server's heap grows by less than 10 KiB for
// each (measured after they have all ended: what they hold, not what
// starting them cost on the way; the heap is given back meanwhile, hence
// eventually).
func TestExitedSessionsAreSmall(t *testing.T) {
	const n, limit = 200, 10 // limit: KiB per session
	e := newEnv(t)
	before, after := exitedHeapGrowth(e, 20, n)
	var now int
	e.eventually(fmt.Sprintf("the heap to hold under %d KiB per exited session", limit), func() bool {
		now = e.status("heap-kib")
		return now-before <= n*limit
	})
	t.Logf("server heap %d KiB before %d exited sessions, %d once they had all ended, %d after: %.1f KiB per session",
		before, n, after, now, float64(now-before)/n)
}

// BenchmarkExitedMemory: the server's heap growth per exited session, over
// 1,000 prompt-sized sessions that ended while detached (after 20 to warm
// the server up). Target: at most 10 KiB a session (10 MiB for 1,000).
func BenchmarkExitedMemory(b *testing.B) {
	const n = 1000
	for i := 0; i < b.N; i++ {
		e := newEnv(b)
		before, after := exitedHeapGrowth(e, 20, n)
		b.ReportMetric(float64(after-before)/n, "heap-KiB/session")
		b.ReportMetric(float64(after-before)/1024, "heap-MiB/1000")
	}
}
