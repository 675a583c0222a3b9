package wire

// A bridge (wr bridge, run by ssh on another machine) carries a client's
// frames to the server of that machine and back. Before the first frame it
// writes BridgeMagic and one line of JSON (BridgeHello), so the client can
// tell its stream from whatever the remote shell printed first (a banner
// in .bashrc), and learn what it needs of the remote before it speaks.

// TypeKeepAlive is written by a bridge, at a frame boundary, to an attached
// client it forwarded nothing to for the interval the client asked for
// (wr bridge --keepalive): the client takes a link that stays silent for
// longer as lost. It carries nothing; a client ignores it. The server
// never sends it. Since minor 4.
const TypeKeepAlive Type = 55

func init() { typeNames[TypeKeepAlive] = "KeepAlive" }

// BridgeMagic starts a bridge's preamble. It holds bytes no shell banner
// prints, so nothing before it is mistaken for the stream.
const BridgeMagic = "\x00\x1bwr-bridge\x00"

// Bridge states, in BridgeHello.State.
const (
	BridgeReady    = "ready"     // frames follow
	BridgeNoServer = "no-server" // no server runs there, and none was to be started; the bridge exits
	BridgeFailed   = "failed"    // Error says why; the bridge exits
)

// BridgeHello is the line after BridgeMagic, ended by a newline.
type BridgeHello struct {
	Version  string `json:"version"`
	Protocol int    `json:"protocol"`
	Minor    int    `json:"minor"`
	State    string `json:"state"`
	Error    string `json:"error,omitempty"`
	// Env and Cwd are the remote's environment and working directory (its
	// user's home, under ssh), sent when the bridge was asked to start a
	// server: a session created there runs with them, not with the
	// client's, which name another machine's paths.
	Env []string `json:"env,omitempty"`
	Cwd string   `json:"cwd,omitempty"`
}
