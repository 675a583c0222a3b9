//go:build !linux

package wire

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// reachable: sockets are addressed by path here (see addr).
func (d *Dir) reachable() error { return nil }

// addr is the socket's path. There is no /proc here (macOS) to address a
// socket through the directory's descriptor, so this is best effort: just
// before the bind or connect it checks that the path still names the
// directory that was opened and checked (the same device and inode, and not
// a symlink). A swap in the instant between that check and the bind or
// connect is not caught. The lock and log files, the stale-socket check and
// its removal do go through the descriptor.
func (d *Dir) addr(name string) (string, error) {
	var st unix.Stat_t
	if err := unix.Lstat(d.path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != d.dev || uint64(st.Ino) != d.ino {
		return "", &pathError{msg: fmt.Sprintf("socket directory %s was replaced while wr was using it; check who can write its parent, or pick another --socket", d.path), kind: ErrUnsafeDir}
	}
	return filepath.Join(d.path, name), nil
}
