package wire

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxSocketPath is the longest path a Unix socket address holds (sun_path is
// 108 bytes on Linux, 104 on macOS, including the terminating NUL).
const maxSocketPath = 103

// maxSocketName is the longest file name a socket may have: on Linux it is
// reached as /proc/self/fd/N/NAME (see Dir.Addr), and that must fit in
// sun_path (107 bytes and the NUL) whatever the descriptor's number.
const maxSocketName = 107 - len("/proc/self/fd/2147483647/")

// errNotSocket is matched by the error of Dir.CheckSocket when something
// other than a socket is at the socket path (a mistyped --socket naming a
// file). Nothing in wr ever removes it.
var errNotSocket = errors.New("wire: not a socket")

// errNoProc is matched by the error of Dir.Addr (Linux) when the socket
// directory cannot be reached through /proc/self/fd.
var errNoProc = errors.New("wire: /proc is not mounted")

// pathError is an error about a socket path, worded for a person: it prints
// msg alone (no package prefix) and matches kind and err with errors.Is.
type pathError struct {
	msg  string
	kind error // a sentinel, or nil
	err  error // the cause, or nil
}

func (e *pathError) Error() string { return e.msg }

func (e *pathError) Unwrap() []error {
	var out []error
	for _, x := range []error{e.kind, e.err} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// SocketPath resolves the server's socket: the flag, else $WR_SOCKET, else
// $XDG_RUNTIME_DIR/wr/default.sock, else logind's /run/user/UID/wr/default.sock
// when that directory is there (userRuntimeDir), else
// /tmp/wr-$UID/default.sock.
func SocketPath(flag string) (string, error) {
	p := flag
	if p == "" {
		p = os.Getenv("WR_SOCKET")
	}
	if p == "" {
		// A relative one is ignored, as the XDG spec says: the socket
		// would move with the working directory.
		if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
			p = filepath.Join(d, "wr", "default.sock")
		} else if d := userRuntimeDir(); d != "" {
			p = filepath.Join(d, "wr", "default.sock")
		} else {
			// /tmp itself, not $TMPDIR: a client and a server with different
			// TMPDIRs (sudo, pam_tmpdir) must still find each other.
			p = filepath.Join("/tmp", "wr-"+strconv.Itoa(os.Getuid()), "default.sock")
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("socket path %s: %w", p, err)
	}
	if len(abs) > maxSocketPath {
		return "", fmt.Errorf("socket path %s is %d bytes, longer than a Unix socket allows (%d); pick a shorter --socket", abs, len(abs), maxSocketPath)
	}
	if n := len(filepath.Base(abs)); n > maxSocketName {
		return "", fmt.Errorf("socket name %s is %d bytes, longer than wr allows (%d); pick a shorter --socket", filepath.Base(abs), n, maxSocketName)
	}
	return abs, nil
}

// userRuntimeDir is the runtime directory systemd's logind makes for this
// user, /run/user/UID, when it is there, a directory of this user's that
// no one else may enter; else "". A cron job, or anything else started
// without $XDG_RUNTIME_DIR while the user is logged in, then finds the
// server of the user's logins, not one of its own under /tmp (GnuPG looks
// for its sockets the same way).
func userRuntimeDir() string {
	d := "/run/user/" + strconv.Itoa(os.Getuid())
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return ""
	}
	return d
}

// Dir is a socket directory opened once and checked through its own
// descriptor. Everything wr does in it (connect, bind, the lock and log
// files, removing a stale socket) goes through that descriptor, so what was
// checked is what is used: a directory renamed away and replaced by a
// symlink after the check is never reached.
type Dir struct {
	fd   int
	path string
	dev  uint64
	ino  uint64
}

// PrepareDir creates the socket's directory 0700 if it is missing and opens
// it as OpenDir does.
func PrepareDir(socket string) (*Dir, error) {
	dir := filepath.Dir(socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &pathError{msg: fmt.Sprintf("cannot create the socket directory %s: %v", dir, err), err: err}
	}
	return OpenDir(dir)
}

// OpenDir opens an existing socket directory without following a symlink
// and refuses one that another user owns or that group or others may write
// (ErrUnsafeDir): a directory someone else controls lets them plant a
// socket that reads every keystroke (the /tmp hijack tmux guards against).
// A missing directory is an error that matches fs.ErrNotExist.
func OpenDir(dir string) (*Dir, error) {
	fd, err := openDir(dir)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, &pathError{msg: fmt.Sprintf("socket directory %s does not exist", dir), kind: fs.ErrNotExist, err: err}
		case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
			// Linux says ENOTDIR for a symlink opened O_NOFOLLOW|O_DIRECTORY;
			// look again only to word the message.
			fi, lerr := os.Lstat(dir)
			switch {
			case lerr == nil && fi.Mode()&fs.ModeSymlink != 0:
				return nil, &pathError{msg: fmt.Sprintf("socket directory %s is a symbolic link, which wr does not follow; use the directory it points to or pick another --socket", dir), kind: ErrUnsafeDir, err: err}
			case lerr == nil && !fi.IsDir():
				return nil, &pathError{msg: fmt.Sprintf("socket directory %s is not a directory; pick another --socket", dir), kind: ErrUnsafeDir, err: err}
			default:
				// A directory (or nothing) by now: someone swapped it.
				return nil, &pathError{msg: fmt.Sprintf("socket directory %s was replaced while wr opened it; check who may write %s, or pick another --socket", dir, filepath.Dir(dir)), kind: ErrUnsafeDir, err: err}
			}
		default:
			return nil, &pathError{msg: fmt.Sprintf("cannot open the socket directory %s: %v", dir, err), err: err}
		}
	}
	d := &Dir{fd: fd, path: dir}
	if err := d.check(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return d, nil
}

func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// check verifies the open directory itself, not whatever its path names by
// now.
func (d *Dir) check() error {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return &pathError{msg: fmt.Sprintf("cannot read the owner of the socket directory %s: %v", d.path, err), kind: ErrUnsafeDir, err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return &pathError{msg: fmt.Sprintf("socket directory %s is not a directory; pick another --socket", d.path), kind: ErrUnsafeDir}
	}
	if int(st.Uid) != os.Getuid() {
		return &pathError{msg: fmt.Sprintf("socket directory %s is owned by uid %d, not you (uid %d); run wr as that user (its sessions are there), or pick another --socket", d.path, st.Uid, os.Getuid()), kind: ErrUnsafeDir}
	}
	if perm := uint32(st.Mode) & 0o777; perm&0o022 != 0 {
		return &pathError{msg: fmt.Sprintf("socket directory %s is writable by group or others (mode %04o); chmod 700 it or pick another --socket", d.path, perm), kind: ErrUnsafeDir}
	}
	d.dev, d.ino = uint64(st.Dev), uint64(st.Ino)
	return d.reachable()
}

// Gone reports whether d's path no longer leads to d: the directory was
// removed or renamed, or a mount over its path was detached (a runtime
// directory at logout, made again at the next login).
func (d *Dir) Gone() bool {
	var st unix.Stat_t
	if err := unix.Stat(d.path, &st); err != nil {
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
	}
	return uint64(st.Dev) != d.dev || uint64(st.Ino) != d.ino
}

// Path is the directory's path, for messages.
func (d *Dir) Path() string { return d.path }

// Close closes the directory's descriptor. Addresses from Addr are invalid
// after it.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Addr is the address to bind or connect a socket named name in d. It
// stays valid until Close.
func (d *Dir) Addr(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	return d.addr(name)
}

// OpenFile opens name in d, never following a symlink, close-on-exec.
func (d *Dir) OpenFile(name string, flag int, perm uint32) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	for {
		fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: filepath.Join(d.path, name), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.path, name)), nil
	}
}

// CheckSocket reports whether a socket is at name in d. Nothing there is
// (false, nil); anything but a socket (a file, a directory, a symlink) is
// an errNotSocket error naming the path: wr must never remove it.
func (d *Dir) CheckSocket(name string) (bool, error) {
	if err := checkName(name); err != nil {
		return false, err
	}
	path := filepath.Join(d.path, name)
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		return false, nil
	case err != nil:
		return false, &pathError{msg: fmt.Sprintf("cannot read %s: %v", path, err), err: err}
	case st.Mode&unix.S_IFMT != unix.S_IFSOCK:
		return false, &pathError{msg: fmt.Sprintf("%s exists and is not a socket; pick another --socket", path), kind: errNotSocket}
	}
	return true, nil
}

// CheckPrivateSocket returns an error unless name in d is a socket owned
// by this user that no one else may connect to (mode 0600 or tighter):
// for a socket wr did not bind itself (one systemd passed), whoever can
// connect to it reads every keystroke.
func (d *Dir) CheckPrivateSocket(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	path := filepath.Join(d.path, name)
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &pathError{msg: fmt.Sprintf("cannot read %s: %v", path, err), err: err}
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFSOCK:
		return &pathError{msg: fmt.Sprintf("%s is not a socket", path), kind: errNotSocket}
	case int(st.Uid) != os.Getuid():
		return &pathError{msg: fmt.Sprintf("socket %s is owned by uid %d, not you (uid %d)", path, st.Uid, os.Getuid()), kind: ErrUnsafeDir}
	case st.Mode&0o077 != 0:
		return &pathError{msg: fmt.Sprintf("socket %s may be used by group or others (mode %04o)", path, st.Mode&0o777), kind: ErrUnsafeDir}
	}
	return nil
}

// Remove removes name from d (unlinkat: through the descriptor, never a
// path that may have been swapped).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// FileID is what identifies a file: its device and inode.
type FileID struct{ dev, ino uint64 }

// ID is the identity of name in d (not followed if a symbolic link).
func (d *Dir) ID(name string) (FileID, error) {
	if err := checkName(name); err != nil {
		return FileID{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: filepath.Join(d.path, name), Err: err}
	}
	return FileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// RemoveIf removes name from d only while it is still the file id: a
// server's socket that was removed from outside (a /tmp cleaner) and bound
// again by another server is that server's to remove. It reports whether
// it removed it; a zero id removes whatever is there.
func (d *Dir) RemoveIf(name string, id FileID) (bool, error) {
	if id != (FileID{}) {
		now, err := d.ID(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			return false, err
		}
		if now != id {
			return false, nil
		}
	}
	if err := d.Remove(name); err != nil {
		return false, err
	}
	return true, nil
}

// Rename renames old to new within d (renameat: through the descriptor).
func (d *Dir) Rename(old, new string) error {
	if err := checkName(old); err != nil {
		return err
	}
	if err := checkName(new); err != nil {
		return err
	}
	if err := unix.Renameat(d.fd, old, d.fd, new); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(d.path, old), New: filepath.Join(d.path, new), Err: err}
	}
	return nil
}

// Symlink points the symbolic link name in d at target, replacing what
// was there in one step (a new link, renamed over the old): a program that
// follows the link at any moment finds the old target or the new one.
func (d *Dir) Symlink(target, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	tmp := name + ".new"
	_ = unix.Unlinkat(d.fd, tmp, 0)
	if err := unix.Symlinkat(target, d.fd, tmp); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: filepath.Join(d.path, name), Err: err}
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		_ = unix.Unlinkat(d.fd, tmp, 0)
		return &os.LinkError{Op: "rename", Old: filepath.Join(d.path, tmp), New: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// Readlink returns the target of the symbolic link name in d.
func (d *Dir) Readlink(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(d.fd, name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: filepath.Join(d.path, name), Err: err}
	}
	return string(buf[:n]), nil
}

// Names lists the names in d.
func (d *Dir) Names() ([]string, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// Lock takes an exclusive lock on the directory itself, waiting for it,
// until unlock. Clients that find no server hold it while they start one,
// so two of them end up with one server. It is the directory's own lock,
// not a file beside the socket: a lock file would outlive every server
// (one per socket name ever used), and removing it safely is a race of its
// own. The lock is on this open descriptor; the kernel drops it if the
// process dies.
//
// It waits at most wait: a client stopped (ctrl-Z) while it held the lock
// must not hang every start in the directory.
func (d *Dir) Lock(wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err = unix.Flock(d.fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == unix.EINTR {
			continue
		}
		if err != unix.EWOULDBLOCK || time.Now().After(deadline) {
			break
		}
		time.Sleep(delay)
	}
	if err == unix.EWOULDBLOCK {
		return nil, fmt.Errorf("the socket directory %s stayed locked for %v by another wr starting a server (is one stopped?)", d.path, wait)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the socket directory %s: %w", d.path, err)
	}
	return func() { _ = unix.Flock(d.fd, unix.LOCK_UN) }, nil
}

// checkName refuses a name that is not a single path element: everything
// addressed through a Dir must be in it.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return fmt.Errorf("%q is not a file name", name)
	}
	return nil
}

// ErrnoOf is the system error under err, or err itself: what a message
// should show of a failed connect or bind, whose address (see Dir.Addr) is
// not the path the user knows.
func ErrnoOf(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
