package wire

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A server's lock file (SOCKET.lock) holds its lock for the server's life
// and says two things to clients that read it without connecting: the
// server's version (a newer wr upgrades an older server before a verb),
// and its pid, which a client names when the server holds its lock but
// its socket is gone (and a person may then signal it: the pid is written
// once SIGUSR1 can no longer end the server).
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

// OpenLockFile opens socket's lock file to read, as a client does: never
// following a link, never waiting (a FIFO put there, once a server held it
// open, hung every verb's read), and only if it is a regular file.
func OpenLockFile(socket string) (*os.File, error) {
	f, err := os.OpenFile(socket+".lock", os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: f.Name(), Err: errNotRegular}
	}
	return f, nil
}

// errNotRegular: a lock file that is not a regular file (a FIFO, a
// device) is never read or locked.
var errNotRegular = errors.New("wire: not a regular file")

// ReadLockFile reads and parses a lock file opened with OpenLockFile.
func ReadLockFile(f *os.File) (version string, pid int) {
	var buf [64]byte
	n, _ := f.Read(buf[:])
	return ParseLockFile(string(buf[:n]))
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
