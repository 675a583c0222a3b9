//go:build !linux

package ptyproc

// WaitExited returns at once where waitid(WNOWAIT) is not available: the
// caller's Wait then both waits and reaps.
func (p *Process) WaitExited() {}

// Buffered is how many bytes of output are waiting to be read; 0 here, where
// it is not asked.
func (p *Process) Buffered() int { return 0 }

// MaxLine is not enforced here (LineEnds is nil).
const MaxLine = 0

// LineEnds is nil here: the length of a line a program reading lines is
// given is not checked.
func (p *Process) LineEnds() []byte { return nil }
