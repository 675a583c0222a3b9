package mux

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// knockSet is an epoll set of the server's listener and its connections,
// looked at with a zero timeout by a PTY reader in a burst on one P (see
// procs.go). Go polls the network only when its P runs dry, or every 10 ms,
// and a reader that pours keeps the P: a connection waiting to be accepted
// (wr ls) or a key typed into the pouring session waited for that poll.
// The reader that finds a knock takes the second P for a moment, whose
// idle thread polls (knocked). Writers waiting for room are helped another
// way: the reader writes for them (client.helpWriter).
//
// Edge-triggered: a connection knocks when it has something new to read,
// not while it stays so: input the program does not read knocks once, not
// at every read.
type knockSet struct{ ep int }

// newKnockSet returns a set watching ln, or nil if epoll fails: the server
// then takes two Ps for every burst instead (knockless, procs.go).
func newKnockSet(ln *net.UnixListener) *knockSet {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	k := &knockSet{ep: ep}
	if !k.add(ln, unix.EPOLLIN) {
		unix.Close(ep)
		return nil
	}
	return k
}

// watch adds a connection's input. Closing the connection takes it out of
// the set.
func (k *knockSet) watch(conn net.Conn) {
	if k != nil {
		k.add(conn, unix.EPOLLIN)
	}
}

// watchListener adds a listener bound after the set was made (relisten).
func (k *knockSet) watchListener(ln *net.UnixListener) {
	if k != nil {
		k.add(ln, unix.EPOLLIN)
	}
}

func (k *knockSet) add(c any, events uint32) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	added := false
	_ = rc.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: events | unix.EPOLLET, Fd: int32(fd)}
		err := unix.EpollCtl(k.ep, unix.EPOLL_CTL_ADD, int(fd), &ev)
		added = err == nil || err == unix.EEXIST
	})
	return added
}

// knocking reports whether anything in the set changed since it was last
// asked. It takes up to 64 pending edges at once: an edge left behind
// would knock again at the next read, and take the second P for nothing.
func (k *knockSet) knocking() bool {
	if k == nil {
		return false
	}
	var events [64]unix.EpollEvent
	// A raw call: with a zero timeout it never blocks, so the scheduler
	// need not be told (see wire.RawFD).
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(k.ep),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	return errno == 0 && n > 0
}

func (k *knockSet) close() {
	if k != nil {
		unix.Close(k.ep)
	}
}
