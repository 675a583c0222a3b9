//go:build linux

package wire

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// fdPath is the directory's descriptor as a path: Linux resolves
// /proc/self/fd/N to the open directory itself, wherever it has been
// renamed to and whatever its old path names now.
func (d *Dir) fdPath() string { return "/proc/self/fd/" + strconv.Itoa(d.fd) }

// reachable checks that the descriptor's path leads to the directory that
// was checked: without /proc, addresses from Addr would not resolve.
func (d *Dir) reachable() error {
	var st unix.Stat_t
	if err := unix.Stat(d.fdPath(), &st); err != nil || st.Dev != d.dev || st.Ino != d.ino {
		return &pathError{msg: fmt.Sprintf("cannot reach the socket directory %s through %s; wr needs /proc mounted", d.path, d.fdPath()), kind: errNoProc, err: err}
	}
	return nil
}

// addr is /proc/self/fd/N/NAME: bind and connect resolve it through the
// descriptor, so they reach the directory that was checked even if its path
// has been swapped for a symlink since.
func (d *Dir) addr(name string) (string, error) {
	a := d.fdPath() + "/" + name
	if len(a) > 107 {
		return "", fmt.Errorf("socket name %s is too long to address through %s; pick a shorter --socket", name, d.fdPath())
	}
	return a, nil
}
