package ptyproc

import (
	"syscall"

	"wr/internal/rawio"
)

// The master is non-blocking, so its reads, writes and readiness checks are
// made as raw system calls, which the scheduler is not told about: a call
// made the usual way wakes the runtime's monitor thread after an idle spell
// and has its P handed to another thread when it takes longer than the
// monitor's tick, and both are context switches the server pays per read.
// The calls are rawio's, shared with wire.RawFD (which says what such a
// read can still cost); these names are the ones ptyproc's callers use.

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) { return rawio.Read(fd, b) }

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) { return rawio.Write(fd, b) }

// readable reports whether fd has something to read (or has hung up), or
// true when it cannot tell.
func readable(fd uintptr) bool { return rawio.Readable(fd) }
