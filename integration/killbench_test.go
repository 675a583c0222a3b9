//go:build linux

package integration

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"wr/proc"
)

// BenchmarkKillAll20 measures wr kill --all over 20 sessions that each hold
// a descendant ignoring SIGHUP, so every session needs the SIGKILL after the
// grace period. One shared wait makes this about one grace period (500 ms),
// not twenty; sweep/grace reports the ratio.
func BenchmarkKillAll20(b *testing.B) { benchSweep(b, 20, "kill", "--all") }

// BenchmarkKillAll100, 250 and 500 show how the sweep grows with the number
// of sessions. Issue 14: it grew quadratically (each session read the whole
// process table, environments included); one read of the table for the
// whole sweep makes it grow linearly, about one grace period plus a little
// per process.
func BenchmarkKillAll100(b *testing.B) { benchSweep(b, 100, "kill", "--all") }
func BenchmarkKillAll250(b *testing.B) { benchSweep(b, 250, "kill", "--all") }
func BenchmarkKillAll500(b *testing.B) { benchSweep(b, 500, "kill", "--all") }

// BenchmarkServerStop500 is the same sweep through wr server stop.
func BenchmarkServerStop500(b *testing.B) { benchSweep(b, 500, "server", "stop") }

// benchSweep starts n sessions, each a shell whose setsid'd grandchild
// ignores SIGHUP, and times `wr SWEEP...`; sweep-ms is the time per sweep.
func benchSweep(b *testing.B, n int, sweep ...string) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := newEnv(b)
		var args []string
		for s := 0; s < n; s++ {
			arg := fmt.Sprint(30000 + s)
			args = append(args, arg)
			e.mustWr("new", "-d", fmt.Sprint("s", s), "--", "sh", "-c",
				fmt.Sprintf(`setsid sh -c 'trap "" HUP; exec sleep %s' & exec sleep 1000`, arg))
		}
		e.eventually("every descendant to start", func() bool { return len(e.sleepers(args...)) == n })
		b.StartTimer()
		// Run directly, not through e.wr: before issue 14 a big sweep took
		// longer than the harness's per-command timeout.
		kill := exec.Command(wrBin, sweep...)
		kill.Env = e.vars
		start := time.Now()
		out, err := kill.CombinedOutput()
		total += time.Since(start)
		if err != nil {
			b.Fatalf("wr %v: %v: %s", sweep, err, out)
		}
		b.StopTimer()
		if left := e.sleepers(args...); len(left) != 0 {
			b.Fatalf("%d descendants survived wr %v", len(left), sweep)
		}
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "sweep-ms")
	b.ReportMetric(float64(per)/float64(proc.Grace), "sweep/grace")
}
