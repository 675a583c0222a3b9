package attach

import "wr/wire"

// Open makes an Attach request and returns the connection, attached, with
// the server's acceptance: for a client of its own making, such as a
// recorder, which reads the session's frames with ReadFrame. With exe set
// a server is started (from that binary) when none answers.
func Open(socket, exe string, req wire.Attach, need int) (*Conn, wire.Attached, error) {
	var acc wire.Attached
	conn, err := request(socket, exe, wire.TypeAttach, req, &acc, need)
	return conn, acc, err
}

// ReadFrame reads the next frame the server sends.
func (c *Conn) ReadFrame() (wire.Frame, error) { return wire.ReadFrame(c.c) }
