//go:build linux

package integration

import (
	"testing"
)

// Once a burst is over, the server hands the memory that carried it back to
// the system: a cat of 32 MiB leaves its heap at most 4 MiB larger than
// before (the target of issue 5), not holding the pages of its read
// buffers, the screen model's pending output and the client's queue. The
// heap is the server's own figure (wr server status), which the race
// detector's shadow memory does not blur; without it, resident memory is
// held to the same bound.
func TestBurstMemoryGoesBack(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "big", "--", "sh", "-c", catScript())
	a := startSink(t, e.vars, 80, 24, wrBin, "attach", "big")
	e.eventually("the client to attach", func() bool { s, _ := e.session("big"); return s.Clients == 1 })
	pid := e.serverPID()
	heap, rss := e.status("heap-kib"), rssKiB(pid)
	done := a.watch(doneMarker)
	a.send(t, "\r")
	waitFor(t, done, "the client to show the last line")
	peakHeap, peakRSS := e.status("heap-kib"), rssKiB(pid)
	const limit = 4 << 10 // KiB
	e.eventually("the server to give the burst's heap back", func() bool { return e.status("heap-kib")-heap <= limit })
	if !raceEnabled {
		e.eventually("the server to give the burst's resident memory back", func() bool { return rssKiB(pid)-rss <= limit })
	}
	t.Logf("server heap %d KiB before, %d as the last line showed, %d after; resident %d, %d, %d",
		heap, peakHeap, e.status("heap-kib"), rss, peakRSS, rssKiB(pid))
}
