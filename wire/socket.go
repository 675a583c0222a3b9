package wire

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// maxSocketPath is the longest path a Unix socket address holds (sun_path is
// 108 bytes on Linux, 104 on macOS, including the terminating NUL).
const maxSocketPath = 103

// SocketPath resolves the server's socket: the flag, else $WR_SOCKET, else
// $XDG_RUNTIME_DIR/wr/default.sock, else /tmp/wr-$UID/default.sock.
func SocketPath(flag string) (string, error) {
	p := flag
	if p == "" {
		p = os.Getenv("WR_SOCKET")
	}
	if p == "" {
		if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
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
	return abs, nil
}

// PrepareDir creates the socket's directory 0700 if it is missing, and
// refuses one that another user owns or that group or others may write: a
// directory someone else controls lets them plant a socket that reads every
// keystroke (the /tmp hijack tmux guards against).
func PrepareDir(socket string) error {
	dir := filepath.Dir(socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	return CheckDir(dir)
}

// CheckDir verifies an existing socket directory as PrepareDir does.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeDir, dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: cannot read the owner of %s", ErrUnsafeDir, dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not you (uid %d); remove it or pick another --socket", ErrUnsafeDir, dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (mode %04o); chmod 700 it or pick another --socket", ErrUnsafeDir, dir, fi.Mode().Perm())
	}
	return nil
}
