//go:build linux

package attach

import (
	"fmt"
	"net"
	"os"
	"time"

	"wr/wire"
)

// beaconWait bounds the wait for a server's answer on its beacon: it
// makes a directory, a lock and a socket.
const beaconWait = 2 * time.Second

// askBeacon asks the server of socket, on its beacon (wire.BeaconName),
// to put its socket back, and reports whether one of this user's servers
// said it has: then the socket is in place, unless another server serves
// the path now. Nothing listening costs one failed connect; a server that
// cannot (its runtime directory is not back) says no at once.
func askBeacon(socket string) bool {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: wire.BeaconName(socket), Net: "unix"})
	if err != nil {
		return false
	}
	defer c.Close()
	if uid, err := wire.PeerUID(c); err != nil || uid != os.Getuid() {
		return false // a name someone else bound: not ours to trust
	}
	_ = c.SetDeadline(time.Now().Add(beaconWait))
	var b [1]byte
	n, _ := c.Read(b[:])
	return n == 1 && b[0] == 1
}

// lostSocketAdvice is what to do about a server that holds its lock and
// has not put its removed socket back: on Linux its watch and its beacon
// would have, so it is most likely stopped; a server whose watch could not
// be made takes SIGUSR1 as tmux's does.
func lostSocketAdvice(pid int) string {
	return fmt.Sprintf("is it stopped (`kill -CONT %d`)? if not, `kill -USR1 %d` asks it to bind its socket again", pid, pid)
}
