//go:build !linux

package mux

import (
	"errors"
	"net"
)

// errUpgradeLinuxOnly is what wr server upgrade answers elsewhere.
var errUpgradeLinuxOnly = errors.New("upgrade in place is supported on Linux only")

func upgradeSupported() error { return errUpgradeLinuxOnly }

func (s *server) execHandoff(string, string, *upgradeHold, *net.UnixConn) error {
	return errUpgradeLinuxOnly
}
