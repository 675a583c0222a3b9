//go:build !linux

package mux

import "net"

// knockSet is Linux's (knock_linux.go). Elsewhere there is none: a burst
// keeps two Ps (procs.go).
type knockSet struct{}

func newKnockSet(*net.UnixListener) *knockSet       { return nil }
func (k *knockSet) watch(net.Conn)                  {}
func (k *knockSet) watchListener(*net.UnixListener) {}
func (k *knockSet) knocking() bool                  { return false }
func (k *knockSet) close()                          {}
