//go:build linux

package integration

import (
	"fmt"
	"testing"
	"time"

	"wr/proc"
)

// BenchmarkKillAll20 measures wr kill --all over 20 sessions that each hold
// a descendant ignoring SIGHUP, so every session needs the SIGKILL after the
// grace period. One shared wait makes this about one grace period (500 ms),
// not twenty; sweep/grace reports the ratio.
func BenchmarkKillAll20(b *testing.B) {
	const n = 20
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := newEnv(b)
		var args []string
		for s := 0; s < n; s++ {
			arg := fmt.Sprint(3000 + s)
			args = append(args, arg)
			e.mustWr("new", "-d", fmt.Sprint("s", s), "--", "sh", "-c",
				fmt.Sprintf(`setsid sh -c 'trap "" HUP; exec sleep %s' & exec sleep 1000`, arg))
		}
		e.eventually("every descendant to start", func() bool { return len(e.sleepers(args...)) == n })
		b.StartTimer()
		start := time.Now()
		e.mustWr("kill", "--all")
		total += time.Since(start)
		b.StopTimer()
		if left := e.sleepers(args...); len(left) != 0 {
			b.Fatalf("%d descendants survived wr kill --all", len(left))
		}
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "sweep-ms")
	b.ReportMetric(float64(per)/float64(proc.Grace), "sweep/grace")
}
