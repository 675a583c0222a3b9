//go:build linux

package wire

import (
	"bytes"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WatchEntries calls changed, from a goroutine of its own, with the name
// of each entry removed from d, renamed away or renamed onto, with ""
// when the kernel dropped events (its queue overflowed), and with "."
// when d itself was removed, renamed or unmounted (the watch ends then),
// until stop is called. On Linux it is inotify on the directory's descriptor: it
// watches the directory that was checked, wherever it has been renamed to.
func (d *Dir) WatchEntries(changed func(name string)) (stop func(), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	if _, err := unix.InotifyAddWatch(fd, d.fdPath(), unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("inotify_add_watch", err)
	}
	// Non-blocking, so the runtime's poller waits for it and Close ends
	// the read below.
	f := os.NewFile(uintptr(fd), "inotify")
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				off += unix.SizeofInotifyEvent
				end := min(off+int(ev.Len), n)
				name := buf[off:end]
				off = end
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				switch {
				case ev.Mask&unix.IN_Q_OVERFLOW != 0:
					changed("")
				case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
					changed(".")
				case len(name) > 0:
					changed(string(name))
				}
			}
		}
	}()
	return func() { f.Close() }, nil
}
