//go:build linux

package integration

import (
	"fmt"
	"strings"
	"syscall"
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
	e.waitClients("big", 1)
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

// A client that falls behind holds the output it has yet to write, and a
// release made while it does (the burst is over, the model has drawn it)
// leaves those pages with the runtime once the client catches up: the
// queue it drains becomes garbage in an idle server that may never
// collect again. So a release made with a client behind is made again once
// that client has caught up. Here 6 MiB pass while the client keeps up,
// then 3 MiB while it is stopped: its queue holds them (below the 4 MiB
// past which it would be dropped) through the release that follows the
// burst, and it is continued after.
func TestMemoryGoesBackAfterASlowClient(t *testing.T) {
	e := newEnv(t)
	script := fmt.Sprintf("stty -echo; read x; head -c 6291456 %[1]s; echo; echo PART-$((1+1)); read y; head -c 3145728 %[1]s; echo; echo %[2]s; exec sleep 1000",
		bigFile(), strings.Replace(doneMarker, "42", "$((6*7))", 1))
	e.mustWr("new", "-d", "big", "--", "sh", "-c", script)
	a := startSink(t, e.vars, 80, 24, wrBin, "attach", "big")
	e.waitClients("big", 1)
	heap, releases := e.status("heap-kib"), e.status("memory-releases")
	first := a.watch("PART-2")
	a.send(t, "\r")
	waitFor(t, first, "the client to show the first part")
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.cmd.Process.Signal(syscall.SIGCONT) })
	done := a.watch(doneMarker)
	e.mustWr("send", "big", "--enter", "")
	e.eventually("a release after the burst, with the client still stopped", func() bool {
		return e.status("memory-releases") > releases
	})
	held := e.status("heap-kib")
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, done, "the client to show the last line")
	const limit = 2 << 10 // KiB
	t.Cleanup(func() {
		t.Logf("server heap %d KiB before, %d at the release with the client stopped, %d after", heap, held, e.status("heap-kib"))
	})
	e.eventually("the server to give the slow client's share back", func() bool { return e.status("heap-kib")-heap <= limit })
}
