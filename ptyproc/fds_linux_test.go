package ptyproc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// The command gets the terminal as 0, 1 and 2 and nothing else, even when
// this process holds a descriptor without close-on-exec (as a server
// started from a shell's `exec 5>file` would).
func TestStartPassesOnlyTheTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "inherited"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd, err := syscall.Dup(int(f.Fd())) // dup(2): not close-on-exec
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	// The shell says it is ready before its descriptors are looked at:
	// while it starts, the dynamic loader holds ld.so.cache and libc open
	// as descriptor 3, which a loaded machine showed here once.
	c := startProc(t, sh(t, "echo ready; read line"), 80, 24)
	readUntil(t, c.p, "ready")
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", c.p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, n)
	}
	slices.Sort(fds)
	if !slices.Equal(fds, []int{0, 1, 2}) {
		t.Errorf("the command holds descriptors %v (this process's %d among them?), want [0 1 2]", fds, fd)
	}
}
