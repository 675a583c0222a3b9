package mux

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"wr/wire"
)

// ErrActivation is wrapped by Run's error when systemd passed a listening
// socket that wr must not serve on.
var ErrActivation = errors.New("the socket systemd passed cannot be served")

// listenFDsStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFDsStart = 3

// activatedListener returns the listening socket systemd passed under
// socket activation (LISTEN_PID is this process, LISTEN_FDS at least 1:
// see sd_listen_fds(3)), or nil when there is none. The socket must be
// the one the server would have bound: a listening Unix stream socket at
// the socket path, in the directory Run has already checked, owned by us
// and 0600, because whoever can connect to it reads every keystroke.
//
// The variables are removed either way, so no session inherits them.
func activatedListener(dir *wire.Dir, socket string) (*net.UnixListener, error) {
	pid, fds := os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS")
	for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		os.Unsetenv(v)
	}
	if pid == "" || pid != strconv.Itoa(os.Getpid()) {
		return nil, nil
	}
	if n, err := strconv.Atoi(fds); err != nil || n != 1 {
		return nil, fmt.Errorf("%w: LISTEN_FDS=%q, want exactly one socket (ListenStream= once in wr.socket)", ErrActivation, fds)
	}
	fd := listenFDsStart
	unix.CloseOnExec(fd) // the sessions must not hold the listener
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_STREAM {
		return nil, fmt.Errorf("%w: descriptor %d is not a stream socket", ErrActivation, fd)
	}
	if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || on == 0 {
		return nil, fmt.Errorf("%w: descriptor %d is not listening", ErrActivation, fd)
	}
	sa, err := unix.Getsockname(fd)
	ua, ok := sa.(*unix.SockaddrUnix)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: descriptor %d is not a Unix socket", ErrActivation, fd)
	}
	if filepath.Clean(ua.Name) != filepath.Clean(socket) {
		return nil, fmt.Errorf("%w: it listens on %s, not on %s; make ListenStream= in wr.socket and --socket name the same path", ErrActivation, ua.Name, socket)
	}
	if err := dir.CheckPrivateSocket(filepath.Base(socket)); err != nil {
		return nil, fmt.Errorf("%w: %w (SocketMode=0600 in wr.socket)", ErrActivation, err)
	}
	f := os.NewFile(uintptr(fd), socket)
	ln, err := net.FileListener(f)
	f.Close() // FileListener holds its own copy
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrActivation, err)
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		return nil, fmt.Errorf("%w: descriptor %d is not a Unix socket", ErrActivation, fd)
	}
	return ul, nil
}
