package mux

import (
	"runtime"
	"sync"
	"time"
)

// The server runs on one P (see main): a goroutine that wakes another hands
// over on the same thread, which keeps an idle server's memory and an idle
// echo's context switches down. But Go polls the network only when a P has
// nothing else to run (or every 10 ms), and a session in a burst (its
// reader and its client's writer handing over to each other) always has
// something: a keystroke's echo in another session then waited for that
// poll, p99 50 ms under a cat of 32 MiB. So while any PTY reader is in a
// burst, or a feeder draws a backlog of a megabyte or more, the server
// runs on two Ps, and the second one's idle thread sits in the poller; it
// goes back to one once no burst has been seen for busyLinger. Changing the number of Ps stops the world for some
// microseconds, once at each end of a burst.
const busyLinger = 200 * time.Millisecond

// busyProcs counts the PTY readers in a burst and the feeders drawing a
// backlog. It changes GOMAXPROCS only
// in a process that runs on one P when the first burst begins (the server,
// not a test binary).
var busyProcs struct {
	mu      sync.Mutex
	checked bool // base was read
	enabled bool // the process ran on one P: the server
	bursts  int  // readers in a burst now
	raised  bool // running on two Ps
	lower   *time.Timer
}

// burstBegins is called by a PTY reader entering a burst, or a feeder
// starting on a backlog.
func burstBegins() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.checked {
		b.checked, b.enabled = true, runtime.GOMAXPROCS(0) == 1
	}
	if !b.enabled {
		return
	}
	b.bursts++
	if b.lower != nil {
		b.lower.Stop()
	}
	if !b.raised {
		b.raised = true
		runtime.GOMAXPROCS(2)
	}
}

// burstEnds is called by whoever called burstBegins, when its burst ends.
func burstEnds() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.enabled {
		return
	}
	b.bursts--
	if b.bursts > 0 {
		return
	}
	if b.lower == nil {
		b.lower = time.AfterFunc(busyLinger, lowerProcs)
	} else {
		b.lower.Reset(busyLinger)
	}
}

// lowerProcs goes back to one P if no burst began meanwhile.
func lowerProcs() {
	b := &busyProcs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bursts == 0 && b.raised {
		b.raised = false
		runtime.GOMAXPROCS(1)
	}
}
