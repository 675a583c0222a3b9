package attach

import (
	"errors"
	"path/filepath"
	"sync"
	"time"

	"wr/wire"
)

// An attach loop can pass through several servers: session A on one
// socket shown inside B on another, then a client inside B attaching to
// A. Neither server sees the whole loop, so the client follows it before
// it attaches, and the target's server refuses what would close one
// (mux/loop.go).

// shownAsks bounds the servers one attach asks, and shownFound the
// sessions it sends (Attach.Outside must fit in a frame). shownWithin
// bounds the whole walk: a stopped or wedged server on the way delays an
// attach from inside a session by at most that, and then that branch
// goes unchecked.
const (
	shownAsks   = 16
	shownFound  = 1024
	shownWithin = time.Second
)

// errNotAServer: a socket that no wr server's lock stands beside (another
// program's, named by a WR_SOCKET or a server's answer) is not asked.
var errNotAServer = errors.New("attach: not a wr server's socket")

// outsideOf returns the sessions, of any server on this machine, that show
// the session whose WR_SESSION_ID is id (held by the server on socket)
// through attached clients, however indirectly. The servers named in one
// answer are asked together. A server that cannot be asked (gone, older
// than protocol 1.6, stopped, too slow) ends that branch, and the attach
// then goes ahead unchecked there, as it did before.
func outsideOf(id, socket string) []string {
	deadline := time.Now().Add(shownWithin)
	found := map[string]bool{id: true}
	asked := map[string]bool{socket + "\x00" + id: true} // each session is asked about once
	var out []string
	ask := map[string][]string{socket: {id}}
	for n := 0; len(ask) > 0 && n < shownAsks && time.Now().Before(deadline); {
		var mu sync.Mutex
		var wg sync.WaitGroup
		next := map[string][]string{}
		for sock, ids := range ask {
			if n == shownAsks {
				break
			}
			n++
			wg.Add(1)
			go func() {
				defer wg.Done()
				in, err := askShown(sock, ids, deadline)
				if err != nil {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				add := func(x string) {
					if !found[x] && len(out) < shownFound {
						found[x] = true
						out = append(out, x)
					}
				}
				for _, x := range in.IDs {
					add(x)
				}
				for _, at := range in.Elsewhere {
					add(at.ID)
					// The same session may come first without its socket
					// (a client that did not say) and then with it.
					if at.Socket != "" && !asked[at.Socket+"\x00"+at.ID] {
						asked[at.Socket+"\x00"+at.ID] = true
						next[at.Socket] = append(next[at.Socket], at.ID)
					}
				}
			}()
		}
		wg.Wait()
		ask = next
	}
	return out
}

// askShown asks the server on socket which sessions show ids, giving up
// at deadline. It never starts a server, nor ssh, and asks only a socket
// whose server holds the lock beside it.
func askShown(socket string, ids []string, deadline time.Time) (wire.ShownIn, error) {
	var in wire.ShownIn
	if _, remote := RemoteHost(socket); remote || !filepath.IsAbs(socket) {
		return in, errNotAServer
	}
	if held, _ := lockHolder(socket); !held {
		return in, errNotAServer
	}
	c, err := dialLocal(socket, false)
	if err != nil {
		return in, err
	}
	defer c.Close()
	t := time.AfterFunc(time.Until(deadline), func() { c.Close() })
	defer t.Stop()
	err = c.Request(wire.TypeShown, wire.Shown{IDs: ids}, &in)
	return in, err
}
