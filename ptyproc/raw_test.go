package ptyproc

import (
	"syscall"
	"testing"
)

// BenchmarkRawWriteRead times the master's raw calls (a keystroke in, its
// echo out) on a non-blocking pipe; they must stay allocation-free.
func BenchmarkRawWriteRead(b *testing.B) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	for _, fd := range p {
		if err := syscall.SetNonblock(fd, true); err != nil {
			b.Fatal(err)
		}
	}
	msg := []byte("a")
	buf := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		if _, e := rawWrite(uintptr(p[1]), msg); e != 0 {
			b.Fatal(e)
		}
		if !readable(uintptr(p[0])) {
			b.Fatal("nothing to read")
		}
		if _, e := rawRead(uintptr(p[0]), buf); e != 0 {
			b.Fatal(e)
		}
	}
}
