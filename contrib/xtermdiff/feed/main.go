// Command feed writes each file given to a fresh wr screen model of
// COLS x ROWS and prints the screen's text, the screens separated by a
// line holding a NUL: what `wr capture` would show of a session that
// printed the file. diff.py compares it with xterm's.
//
// usage: go run ./contrib/xtermdiff/feed COLS ROWS FILE...
package main

import (
	"fmt"
	"os"
	"strconv"

	"wr/screen"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: feed COLS ROWS FILE...")
		os.Exit(2)
	}
	cols, err1 := strconv.Atoi(os.Args[1])
	rows, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "feed: COLS and ROWS are numbers")
		os.Exit(2)
	}
	for _, name := range os.Args[3:] {
		b, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "feed:", err)
			os.Exit(1)
		}
		s := screen.New(cols, rows, 100)
		_, _ = s.Write(b)
		os.Stdout.Write(s.AppendText(nil, screen.TextOptions{}))
		fmt.Println("\x00")
	}
}
