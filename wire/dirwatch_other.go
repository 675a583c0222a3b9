//go:build !linux

package wire

import "errors"

// WatchEntries is Linux's alone (inotify); elsewhere a server whose socket
// was removed binds it again on SIGUSR1 only.
func (d *Dir) WatchEntries(changed func(name string)) (stop func(), err error) {
	return nil, errors.ErrUnsupported
}
