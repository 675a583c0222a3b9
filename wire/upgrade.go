package wire

// Upgrade asks the server to hand itself over, in its own process, to the
// wr binary at Binary (an absolute path): the new binary is checked first,
// and the reply, Upgraded, comes from the new server once it serves.
type Upgrade struct {
	Binary string `json:"binary"`
}

// Upgraded is the new server's answer to Upgrade: its version and pid
// (the old server's), and the sessions and attached clients it took over.
type Upgraded struct {
	Version  string `json:"version"`
	Protocol int    `json:"protocol"`
	Minor    int    `json:"minor"`
	PID      int    `json:"pid"`
	Sessions int    `json:"sessions"`
	Clients  int    `json:"clients"`
	// PauseMS is how long output stood still: from stopping the PTY
	// readers in the old server to starting them in the new one.
	PauseMS float64 `json:"pause_ms"`
}
