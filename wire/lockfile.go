package wire

import (
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A server's lock file (SOCKET.lock) holds its lock for the server's life
// and says two things to clients that read it without connecting: the
// server's version (a newer wr upgrades an older server before a verb),
// and its pid, written only once the server handles SIGUSR1 (a person
// told to send it one, because its socket was removed, must not kill it).
// Lines: the version, then the pid. A file of one line is a server from
// before the pid was written.

// LockFileText is what a server of version with pid writes into its lock
// file; pid 0 writes the version alone.
func LockFileText(version string, pid int) string {
	if pid <= 0 {
		return version + "\n"
	}
	return version + "\n" + strconv.Itoa(pid) + "\n"
}

// ParseLockFile reads what LockFileText wrote: the version ("" if none)
// and the pid (0 if none).
func ParseLockFile(text string) (version string, pid int) {
	version, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return "", 0 // a partial write, or not ours
	}
	if p, _, ok := strings.Cut(rest, "\n"); ok {
		if n, err := strconv.Atoi(p); err == nil && n > 0 {
			pid = n
		}
	}
	return version, pid
}

// FileIDOf is the identity of an open file, to compare with Dir.ID: a lock
// file held open is still the one at its path only while they match.
func FileIDOf(f *os.File) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	return FileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}
