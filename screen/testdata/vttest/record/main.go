// Command rec runs vttest at 80x24 under a PTY and records what it writes
// for each screen of the given menus.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"

	"wr/screen"
)

type rec struct {
	scr  *screen.Screen
	mu   sync.Mutex
	out  []byte
	mark int
	f    *os.File
}

func (r *rec) read() {
	buf := make([]byte, 65536)
	for {
		n, err := r.f.Read(buf)
		r.mu.Lock()
		r.out = append(r.out, buf[:n]...)
		r.scr.Write(buf[:n])
		r.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// settle waits for output to stop for quiet and returns what came since
// the last call.
func (r *rec) settle(quiet time.Duration) []byte {
	last := -1
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(quiet)
		r.mu.Lock()
		n := len(r.out)
		r.mu.Unlock()
		if n == last && n > r.mark {
			break
		}
		last = n
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	chunk := append([]byte(nil), r.out[r.mark:]...)
	r.mark = len(r.out)
	return chunk
}

func main() {
	dir := os.Args[1]
	menus := os.Args[2:]
	os.MkdirAll(dir, 0o755)
	cmd := exec.Command("vttest", "24x80.80")
	cmd.Env = append(os.Environ(), "TERM=xterm")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		panic(err)
	}
	r := &rec{f: f, scr: screen.New(80, 24, 100)}
	r.scr.SetReply(func(p []byte) { f.Write(append([]byte(nil), p...)) })
	go r.read()
	quiet := 700 * time.Millisecond
	menu := r.settle(quiet)
	os.WriteFile(filepath.Join(dir, "00-menu.bin"), menu, 0o644)
	seq := 1
	for _, m := range menus {
		// m is like "1" or "3:..." keys separated by commas for submenus
		keys := strings.Split(m, ",")
		name := strings.ReplaceAll(m, ",", "-")
		f.Write([]byte(keys[0] + "\r"))
		k := 1
		for screen := 1; screen < 60; screen++ {
			chunk := r.settle(quiet)
			file := fmt.Sprintf("%02d-menu%s-%02d.bin", seq, name, screen)
			seq++
			os.WriteFile(filepath.Join(dir, file), chunk, 0o644)
			fmt.Printf("%s: %d bytes %q\n", file, len(chunk), tail(chunk))
			if bytes.Contains(chunk, []byte("Enter choice number")) {
				if k < len(keys) {
					f.Write([]byte(keys[k] + "\r"))
					k++
					continue
				}
				break
			}
			f.Write([]byte("\r"))
		}
	}
	f.Write([]byte("0\r"))
	r.settle(quiet)
	cmd.Process.Kill()
	cmd.Wait()
}

func tail(b []byte) string {
	s := string(b)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 {
			return '.'
		}
		return r
	}, s)
	if len(s) > 120 {
		s = s[len(s)-120:]
	}
	return s
}
