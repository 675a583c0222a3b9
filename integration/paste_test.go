//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Item 7: input is written whole. 4 MiB pasted into `cat > file` arrives
// byte-identical, though the terminal's input queue holds only 4 KiB and
// cat drains it a line at a time.
func TestPasteArrivesWhole(t *testing.T) {
	e := newEnv(t)
	var paste bytes.Buffer
	for i := 0; paste.Len() < 4<<20; i++ {
		fmt.Fprintf(&paste, "%08d the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopqrstuvwxyz\n", i)
	}
	target := filepath.Join(e.dir, "pasted")

	tm := e.term(80, 24, "attach", "p")
	tm.expect(prompt)
	tm.send("stty -echo; cat > " + target + "; stty echo; echo CAT-$((40+2))\r")
	// Type the paste the way a terminal delivers one: a stream of writes,
	// while the other side reads at its own pace.
	errc := make(chan error, 1)
	go func() {
		_, err := tm.pty.Write(paste.Bytes())
		if err == nil {
			_, err = tm.pty.Write([]byte("\x04"))
		}
		errc <- err
	}()
	tm.expect("CAT-42")
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, paste.Bytes()) {
		i := 0
		for i < len(got) && i < paste.Len() && got[i] == paste.Bytes()[i] {
			i++
		}
		t.Fatalf("pasted %d bytes, file has %d; first difference at byte %d", paste.Len(), len(got), i)
	}
	tm.send("exit\r")
	tm.wait()
}
