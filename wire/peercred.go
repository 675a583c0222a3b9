//go:build linux || darwin

package wire

import "net"

// PeerUID is the uid of the process on the other end of conn, as the
// kernel recorded it at connect (peerUID: SO_PEERCRED on Linux,
// LOCAL_PEERCRED on macOS).
func PeerUID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, credErr
}
