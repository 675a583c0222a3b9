//go:build !linux

package attach

import "fmt"

// askBeacon: abstract sockets are Linux's alone.
func askBeacon(string) bool { return false }

// lostSocketAdvice is what to do about a server that holds its lock and
// has not put its removed socket back: ask it to, as tmux's users do.
func lostSocketAdvice(pid int) string {
	return fmt.Sprintf("`kill -USR1 %d` asks it to", pid)
}
