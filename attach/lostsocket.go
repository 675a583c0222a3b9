package attach

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"wr/wire"
)

// ErrSocketLost is returned by Dial when no socket is at the path but a
// server holds its lock there: the socket was removed from outside and the
// server has not bound it again (a server on Linux does so at once; see
// relisten in mux). Starting another server would not help: the lock
// keeps it from serving.
var ErrSocketLost = errors.New("attach: the server's socket is gone")

// socketLostError says what to do, for a person: it prints msg alone
// and matches ErrSocketLost.
type socketLostError struct{ msg string }

func (e *socketLostError) Error() string        { return e.msg }
func (e *socketLostError) Is(target error) bool { return target == ErrSocketLost }

// socketLostWait is how long Dial waits for a socket whose server holds
// the lock to appear: one that is starting binds it within milliseconds,
// and one whose socket was removed binds it again as fast.
const socketLostWait = time.Second

// lockHolder reports whether a server holds socket's lock, with its pid as
// its lock file says (0 if it wrote none: an older server, or one still
// starting). The lock itself is tried, not the pid: the lock file of a
// server that was SIGKILLed still names it, and its pid may be another
// process's by now. The test takes a shared lock for an instant; a server
// starting in that instant steps aside, as it does for a live one, and its
// client tries again (dialOrStart).
func lockHolder(socket string) (held bool, pid int) {
	f, err := wire.OpenLockFile(socket)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		return false, 0 // no server, or a lock file that cannot be locked
	}
	_, pid = wire.ReadLockFile(f)
	return true, pid
}

// awaitSocket is Dial's answer when no socket is at the path: nil when no
// server holds the lock (there is no server), else it waits up to
// socketLostWait for the server to bind it and then returns ErrSocketLost.
// dial is Dial's connect.
func awaitSocket(socket string, dial func() (*Conn, error)) (*Conn, error) {
	deadline := time.Now().Add(socketLostWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		held, pid := lockHolder(socket)
		if !held {
			return nil, nil
		}
		if time.Now().After(deadline) {
			// Its watch should have put the socket back by now; ask it
			// on its beacon, where there is one.
			if askBeacon(socket) {
				if c, err := dial(); err == nil || !errors.Is(err, ErrNoServer) {
					return c, err
				}
			}
			msg := fmt.Sprintf("a server holds %s.lock, but its socket %s is gone; see %s.log", socket, socket, socket)
			if pid > 0 {
				msg = fmt.Sprintf("the server on %s (pid %d) is running, but its socket was removed and it has not bound it again; %s (see %s.log)", socket, pid, lostSocketAdvice(pid), socket)
			}
			return nil, &socketLostError{msg}
		}
		time.Sleep(delay)
		if c, err := dial(); err == nil || !errors.Is(err, ErrNoServer) {
			return c, err
		}
	}
}
