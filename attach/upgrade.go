package attach

import (
	"errors"
	"fmt"
	"os"
	"time"

	"wr/wire"
)

// upgradeWait bounds the wait for an upgrade's answer: the server holds
// its sessions, runs the new binary's check (up to 5 s) and execs it.
const upgradeWait = 15 * time.Second

// GreetForUpgrade sends a Hello that a server of any protocol major
// answers (ForUpgrade) and returns the server's Welcome. The connection
// then takes one request: Upgrade, or nothing (Close).
func (c *Conn) GreetForUpgrade() (wire.Welcome, error) {
	hello, _ := wire.Encode(wire.Hello{Protocol: wire.ProtocolMajor, Minor: wire.ProtocolMinor, Version: wire.Version, ForUpgrade: true})
	out, _ := wire.AppendFrame(nil, wire.TypeHello, hello)
	if _, err := c.greetWith(out, true); err != nil {
		return wire.Welcome{}, err
	}
	return c.Welcome, nil
}

// Upgrade asks the server, greeted with GreetForUpgrade, to hand itself
// over to binary, and returns the new server's answer. An Error reply is a
// *wire.Error (the old server serves on); a connection closed without a
// reply means the new binary died after the exec.
func (c *Conn) Upgrade(binary string) (wire.Upgraded, error) {
	var up wire.Upgraded
	p, _ := wire.Encode(wire.Upgrade{Binary: binary})
	out, err := wire.AppendFrame(nil, wire.TypeUpgrade, p)
	if err != nil {
		return up, err
	}
	_ = c.c.SetDeadline(time.Now().Add(upgradeWait))
	if _, err := c.c.Write(out); err != nil {
		return up, fmt.Errorf("send %s: %w", wire.TypeUpgrade, err)
	}
	f, err := wire.ReadFrame(c.c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return up, fmt.Errorf("%w: %w", ErrUpgradeTimeout, err)
	}
	if err != nil {
		return up, fmt.Errorf("%w: %w", ErrUpgradeLost, err)
	}
	return up, decodeReply(f, &up)
}

// ErrUpgradeLost is returned by Upgrade when the connection closed
// without an answer: the server exec'd the new binary, which did not take
// over.
var ErrUpgradeLost = errors.New("attach: the server closed the connection during the upgrade")

// ErrUpgradeTimeout is returned by Upgrade when no answer came within
// upgradeWait: the connection is still open, so nothing says the server
// or its sessions are lost; the upgrade may yet finish, or have failed.
var ErrUpgradeTimeout = fmt.Errorf("attach: the server did not answer the upgrade within %v", upgradeWait)
