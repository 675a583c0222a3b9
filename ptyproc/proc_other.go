//go:build !linux

package ptyproc

// WaitExited returns at once where waitid(WNOWAIT) is not available: the
// caller's Wait then both waits and reaps.
func (p *Process) WaitExited() {}

// Buffered is how many bytes of output are waiting to be read; 0 here, where
// it is not asked.
func (p *Process) Buffered() int { return 0 }
