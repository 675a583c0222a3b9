package attach

import (
	"errors"
	"path/filepath"
	"time"

	"wr/wire"
)

// An attach loop can pass through several servers: session A on one
// socket shown inside B on another, then a client inside B attaching to
// A. Neither server sees the whole loop, so the client follows it before
// it attaches, and the target's server refuses what would close one
// (mux/loop.go).

// shownAsks bounds the servers one attach asks; shownWithin bounds each
// answer, so that a stopped server delays an attach by at most that.
const (
	shownAsks   = 16
	shownWithin = time.Second
)

// errNotLocal: a socket that is not a path on this machine is not asked.
var errNotLocal = errors.New("attach: not a local socket")

// outsideOf returns the sessions, of any server on this machine, that show
// the session whose WR_SESSION_ID is id (held by the server on socket)
// through attached clients, however indirectly. A server that cannot be
// asked (gone, older than protocol 1.6, too slow) ends that branch, and
// the attach then goes ahead unchecked there, as it did before.
func outsideOf(id, socket string) []string {
	seen := map[string]bool{id: true}
	var found []string
	ask := map[string][]string{socket: {id}}
	for asked := 0; len(ask) > 0 && asked < shownAsks; {
		next := map[string][]string{}
		for sock, ids := range ask {
			if asked == shownAsks {
				break
			}
			asked++
			in, err := askShown(sock, ids)
			if err != nil {
				continue
			}
			for _, x := range in.IDs {
				if !seen[x] {
					seen[x] = true
					found = append(found, x)
				}
			}
			for _, at := range in.Elsewhere {
				if seen[at.ID] {
					continue
				}
				seen[at.ID] = true
				found = append(found, at.ID)
				if at.Socket != "" {
					next[at.Socket] = append(next[at.Socket], at.ID)
				}
			}
		}
		ask = next
	}
	return found
}

// askShown asks the server on socket which sessions show ids. It never
// starts a server, nor ssh.
func askShown(socket string, ids []string) (wire.ShownIn, error) {
	var in wire.ShownIn
	if _, remote := RemoteHost(socket); remote || !filepath.IsAbs(socket) {
		return in, errNotLocal
	}
	c, err := dialLocal(socket)
	if err != nil {
		return in, err
	}
	defer c.Close()
	t := time.AfterFunc(shownWithin, func() { c.Close() })
	defer t.Stop()
	err = c.Request(wire.TypeShown, wire.Shown{IDs: ids}, &in)
	return in, err
}
