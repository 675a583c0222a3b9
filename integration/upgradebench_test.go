//go:build linux

package integration

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var pausedRE = regexp.MustCompile(`output paused ([0-9.]+) ms`)

// BenchmarkUpgradePause hands a server of 10 sessions, each with a full
// default scrollback (2,000 lines), and 3 clients attached to one of them,
// over to another wr, back and forth. It reports how long output stood
// still (pause-ms: the server's own count, from holding the PTY readers
// to starting them again in the new binary, the new binary's check
// included) and how long the whole wr server upgrade took (upgrade-ms).
// Issue 21 asks for a pause of at most 200 ms.
func BenchmarkUpgradePause(b *testing.B) {
	e := newEnv(b)
	bins := []string{wrVersion(b, "9.0.1"), wrVersion(b, "9.0.2")}
	fill := `i=0; while [ $i -lt 2100 ]; do i=$((i+1)); echo "line $i of the scrollback, long enough to be a real line of output, with some words"; done; echo FILLED; exec sh`
	for i := range 10 {
		e.mustBin(bins[0], "new", "-d", fmt.Sprintf("s%d", i), "--", "sh", "-c", fill)
	}
	for i := range 10 {
		name := fmt.Sprintf("s%d", i)
		e.eventually(name+" to fill its scrollback", func() bool {
			return strings.Contains(e.mustBin(bins[0], "capture", name), "FILLED")
		})
	}
	for range 3 {
		tm := e.termBin(bins[0], 80, 24, "attach", "s0")
		tm.expect("FILLED")
	}
	b.ResetTimer()
	var pauses, walls []float64
	for i := 0; i < b.N; i++ {
		to := bins[(i+1)%2]
		start := time.Now()
		out := e.mustBin(bins[i%2], "server", "upgrade", "--binary", to)
		walls = append(walls, float64(time.Since(start).Microseconds())/1000)
		m := pausedRE.FindStringSubmatch(out)
		if m == nil {
			b.Fatalf("wr server upgrade printed %q", out)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		pauses = append(pauses, v)
	}
	b.StopTimer()
	b.ReportMetric(mean(pauses), "pause-ms")
	b.ReportMetric(maxOf(pauses), "max-pause-ms")
	b.ReportMetric(mean(walls), "upgrade-ms")
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(max(len(v), 1))
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
