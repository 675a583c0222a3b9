//go:build linux

package integration

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkOtherSize: the throughput benchmark's cat with one extra client
// of another size (100x30 beside the 80x24 owner), which is drawn from the
// model; against one client alone, in the same run. Target: >= 0.8x. The
// drawn client must then show the last screen exactly (the session's
// screen at its top left), and its memory is reported: one screen of cells.
func BenchmarkOtherSize(b *testing.B) {
	for i := 0; i < b.N; i++ {
		one := median(3, func() float64 { return throughput(b, newHolder(b, "wr"), 1, false) })
		two := median(3, func() float64 {
			h := &wrHolder{}
			h.create(b, catScript())
			owner, _ := h.attach(b, 80, 24, "")
			other := h.e.term(100, 30, "attach", "s0")
			h.attached(b, 2)
			hit := owner.watch(doneMarker)
			start := time.Now()
			owner.send(b, "\r")
			waitFor(b, hit, "wr output")
			mibs := float64(32) / time.Since(start).Seconds()
			var last string
			h.e.eventually("the drawn client to show the last screen", func() bool {
				capture := strings.Split(strings.TrimSuffix(h.e.mustWr("capture", "s0"), "\n"), "\n")
				rows := rowsOf(termScreen(other, 100, 30), 30)
				for y, row := range rows {
					want := ""
					if y < len(capture) {
						want = strings.TrimRight(capture[y], " ")
					}
					if row != want {
						last = row + " != " + want
						return false
					}
				}
				return true
			})
			_ = last
			return mibs
		})
		b.ReportMetric(one, "wr1-MiB/s")
		b.ReportMetric(two, "wr1+drawn-MiB/s")
		b.ReportMetric(two/one, "drawn/one")
	}
}
