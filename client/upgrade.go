package client

import (
	"errors"
	"strconv"
	"strings"

	"wr/attach"
	"wr/wire"
)

// ErrUpgradeUnknown is returned by Upgrade when the server predates
// upgrades in place (protocol minor 4).
var ErrUpgradeUnknown = errors.New("client: the server is too old to be upgraded in place")

// upgradeMinor is the protocol minor that brought Upgrade.
const upgradeMinor = 4

// Upgrade hands the server over to binary (an absolute path) and returns
// the new server's answer. With no server it is attach.ErrNoServer.
func (c *Client) Upgrade(binary string) (wire.Upgraded, error) {
	conn, err := attach.Dial(c.Socket)
	if err != nil {
		return wire.Upgraded{}, err
	}
	defer conn.Close()
	w, err := conn.GreetForUpgrade()
	if err != nil {
		return wire.Upgraded{}, err
	}
	if w.Protocol == wire.ProtocolMajor && w.Minor < upgradeMinor {
		return wire.Upgraded{}, &OldServerError{Server: w, Need: upgradeMinor}
	}
	return conn.Upgrade(binary)
}

// UpgradeIfOlder upgrades the server to binary when it is an older wr
// than this one (Newer), and reports whether it did, with the new
// server's answer. No server, a server of this version or newer, or one
// too old to be upgraded in place is left alone (false, nil).
func (c *Client) UpgradeIfOlder(binary string) (bool, wire.Upgraded, error) {
	if v, ok := lockedVersion(c.Socket); ok && !Newer(wire.Version, v) {
		return false, wire.Upgraded{}, nil
	}
	conn, err := attach.Dial(c.Socket)
	if err != nil {
		return false, wire.Upgraded{}, nil
	}
	defer conn.Close()
	w, err := conn.GreetForUpgrade()
	if err != nil || !Newer(wire.Version, w.Version) || (w.Protocol == wire.ProtocolMajor && w.Minor < upgradeMinor) {
		return false, wire.Upgraded{}, nil
	}
	up, err := conn.Upgrade(binary)
	return err == nil, up, err
}

// lockedVersion is the version a running server wrote into its lock file
// (SOCKET.lock), read without connecting: this check runs before every
// verb, and a connection and greeting only to learn that the server is as
// new as this wr cost an attach about half a millisecond. No version there
// (no server, or one older than this rule) is not ok, and the caller asks
// the server itself. The file is only a hint: it is opened without
// following a link and without blocking (a FIFO put there cannot hang a
// verb), and at worst a wrong one skips an upgrade that the next
// `wr server upgrade` does.
func lockedVersion(socket string) (string, bool) {
	f, err := wire.OpenLockFile(socket)
	if err != nil {
		return "", false
	}
	defer f.Close()
	v, _ := wire.ReadLockFile(f)
	return v, v != ""
}

// Newer reports whether version a is later than b, both dotted numbers
// (1.2.10, an optional v, anything after a - or + ignored). Either one
// unreadable: false, so a build of no version upgrades nothing.
func Newer(a, b string) bool {
	x, ok1 := versionParts(a)
	y, ok2 := versionParts(b)
	if !ok1 || !ok2 {
		return false
	}
	for i := range max(len(x), len(y)) {
		var p, q int
		if i < len(x) {
			p = x[i]
		}
		if i < len(y) {
			q = y[i]
		}
		if p != q {
			return p > q
		}
	}
	return false
}

func versionParts(v string) ([]int, bool) {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}
