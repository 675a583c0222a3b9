package wire

import (
	"encoding/hex"
	"hash/fnv"
	"os"
	"strconv"
)

// BeaconName is the Linux abstract socket a server for socket listens on
// beside its socket (the name begins with @, which Go's net package makes
// the abstract namespace's NUL). It lives in no directory: a client that
// finds the socket's directory gone or new (a logout removed it; the next
// login made a fresh one) can still reach the server that has sessions
// there and ask it to make its directory again, before the client would
// start a second server. Anyone may bind an abstract name, so both ends
// check the other's uid.
func BeaconName(socket string) string {
	// FNV, not SHA-256: crypto's package init would run before every
	// attach (imports_test.go); the name need only tell a user's socket
	// paths apart, and both ends check the uid.
	h := fnv.New128a()
	h.Write([]byte(socket))
	return "@wr." + strconv.Itoa(os.Getuid()) + "." + hex.EncodeToString(h.Sum(nil))
}
