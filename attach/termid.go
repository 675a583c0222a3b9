package attach

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// terminalID names the terminal out draws on, for the server to remember
// which of a session's scrollback it has been shown: the terminal's device
// number (st_rdev) and the session id of this process (getsid), which is
// the terminal tab's shell's session. A detach and a reattach from the same
// tab keep both; a new tab has a new PTY and a new shell, so a new name,
// even when it gets a PTY number a closed tab had. "" when out is not a
// terminal: a relay gets the program's bytes, not a drawing.
//
// The descriptor is reached through Control, not (*os.File).Fd, which would
// make it blocking.
func terminalID(out *os.File) string {
	if out == nil {
		return ""
	}
	rc, err := out.SyscallConn()
	if err != nil {
		return ""
	}
	var st unix.Stat_t
	ok := false
	_ = rc.Control(func(fd uintptr) {
		ok = unix.Fstat(int(fd), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR
	})
	if !ok {
		return ""
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x:%d", uint64(st.Rdev), sid)
}
