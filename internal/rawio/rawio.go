// Package rawio is the one home of the system calls wr makes on
// non-blocking descriptors (wire.RawFD's sockets and terminals, ptyproc's
// PTY master) without telling the scheduler.
//
// Why raw: a system call made the usual way may block, so the scheduler
// prepares for it. The first one after the process was idle wakes the
// runtime's monitor thread, and the monitor hands the P of one that takes
// longer than its tick to another thread, which has to be woken: context
// switches the server pays per read. A call on a non-blocking descriptor
// does not wait for data or room, so it can keep its P. wire.RawFD says
// what such a call can still cost. The reason was measured on Linux only:
// elsewhere these are the ordinary calls.
//
// Only for descriptors in non-blocking mode: a raw call that blocked would
// hold its P, and any stop of the world, for as long as it blocked.
//
// Each call is made once: an error comes back as its Errno (0 for none),
// and the caller decides what EINTR and EAGAIN mean to it (retry, or wait
// in the poller). Nothing here allocates on Linux. This package must never
// import anything of wr.
//
// It also keeps inherited descriptors from reaching what wr starts
// (CloseOnExecInherited), for the client and the server alike.
package rawio
