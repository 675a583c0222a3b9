//go:build linux

package integration

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Item 4: wr send --key types named keys, encoded as the program's modes
// expect: the cursor keys in application mode (SS3) once the program
// turned DECCKM on, in normal mode (CSI) otherwise. cat -vT in raw mode
// shows each byte as it came.
func TestSendKeys(t *testing.T) {
	e := newEnv(t)
	e.mustWr("new", "-d", "plain", "--", "sh", "-c", `stty raw -echo; printf 'READY\r\n'; exec cat -vT`)
	e.mustWr("new", "-d", "app", "--", "sh", "-c", `stty raw -echo; printf '\033[?1hREADY\r\n'; exec cat -vT`)
	waitReady(e, "plain")
	waitReady(e, "app")
	keys := []string{"send", "", "--key", "C-c", "Up", "Down", "Right", "Left", "Home", "End", "PageUp", "PageDown", "F1", "F5", "F12", "Tab", "BSpace", "Escape", "C-z", "Enter"}
	for _, tt := range []struct {
		name string
		want string
	}{
		{"plain", `^C^[[A^[[B^[[C^[[D^[[H^[[F^[[5~^[[6~^[OP^[[15~^[[24~^I^?^[^Z^M`},
		{"app", `^C^[OA^[OB^[OC^[OD^[OH^[OF^[[5~^[[6~^[OP^[[15~^[[24~^I^?^[^Z^M`},
	} {
		keys[1] = tt.name
		e.mustWr(keys...)
		e.eventually(tt.name+" shows the keys", func() bool { return strings.Contains(e.mustWr("capture", tt.name), tt.want) })
	}
	// The keys tmux's send-keys has that scripts reach for: Insert,
	// Delete, back tab, Alt (M-: Escape first) and C-Space.
	e.mustWr("send", "plain", "--key", "Insert", "Delete", "DC", "BTab", "M-x", "M-Enter", "M-Up", "M-PageUp", "C-Space", "Enter")
	e.eventually("the extra keys", func() bool {
		// cat's line is wider than the screen by now: join its rows.
		return strings.Contains(strings.ReplaceAll(e.mustWr("capture", "plain"), "\n", ""), `^[[2~^[[3~^[[3~^[[Z^[x^[^M^[[1;3A^[[5;3~^@^M`)
	})
	// --enter after keys, and a flag after NAME, and keys by any case.
	e.mustWr("send", "plain", "--key", "c-a", "--enter")
	e.eventually("C-a then Enter", func() bool { return strings.Contains(e.mustWr("capture", "plain"), `^M^A^M`) })

	r := e.wr("send", "plain", "--key", "C-1")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown key "C-1"`) || !strings.Contains(r.stderr, "PageDown") {
		t.Errorf("an unknown key: exit %d, stderr %q; want 2 with the list of keys", r.code, r.stderr)
	}
	if r := e.wr("send", "nosuch", "--key", "Enter"); r.code != 1 || !strings.Contains(r.stderr, "no session named nosuch") {
		t.Errorf("keys to a missing session: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Item 4: sent input never claims the size: a wr send, of text or keys,
// leaves the size and its owner as they were.
func TestSendNeverClaimsTheSize(t *testing.T) {
	e := newEnv(t)
	owner := e.term(80, 24, "attach", "s")
	owner.expect(prompt)
	other := e.term(100, 30, "attach", "s")
	other.expect(shownPrompt)
	before, _ := e.session("s")
	if before.Owner == nil || before.Cols != 80 || before.Rows != 24 {
		t.Fatalf("before: size %dx%d owner %v; want 80x24 owned by the first client", before.Cols, before.Rows, before.Owner)
	}
	e.mustWr("send", "s", "--enter", "echo SENT")
	e.mustWr("send", "s", "--key", "Up", "Enter")
	e.mustWr("send", "s", "--enter", "echo STDIN")
	owner.expect("SENT")
	after, _ := e.session("s")
	if after.Owner == nil || *after.Owner != *before.Owner || after.Cols != 80 || after.Rows != 24 {
		t.Errorf("after wr send: size %dx%d owner %v; want 80x24 owned by client %d", after.Cols, after.Rows, after.Owner, *before.Owner)
	}
}

// Item 4: wr send NAME - copies stdin byte for byte: 10 MiB of every byte
// value, through a pipe, reach a program reading its raw terminal whole.
func TestSendStdin10MiB(t *testing.T) {
	e := newEnv(t)
	data := make([]byte, 10<<20)
	rng := rand.New(rand.NewPCG(19, 19))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	file := filepath.Join(e.dir, "stdin.out")
	e.mustWr("new", "-d", "sink", "--", "sh", "-c",
		`stty raw -echo; echo READY; exec head -c `+strconv.Itoa(len(data))+` > "$0"`, file)
	waitReady(e, "sink")
	if r := e.wrIn(string(data), e.vars, "send", "sink", "--timeout", "0", "-"); r.code != 0 {
		t.Fatalf("wr send - of 10 MiB: exit %d, stderr %q", r.code, r.stderr)
	}
	waitFile(e, file, len(data))
	compareFile(t, file, data)
}

// A program reading lines (its terminal in canonical mode, as cat and the
// shell's read leave it) is given at most 4095 bytes of a line: the kernel
// drops the rest. A send with a longer line is refused with a clear error
// before any of it is written, or for a stream from the chunk that holds
// it; it used to write it, say it had, and the program got 4096 of 10001
// bytes. Lines up to the limit, and any line to a program reading raw, go
// through whole.
func TestSendRefusesALineLongerThanAReaderIsGiven(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.dir, "lines.out")
	e.mustWr("new", "-d", "lines", "--", "sh", "-c", `stty -echo; echo READY; exec cat > "$0"`, file)
	waitReady(e, "lines")
	long := strings.Repeat("x", 5000)
	if r := e.wr("send", "lines", "--enter", long); r.code != 1 || !strings.Contains(r.stderr, "longer than the 4095 bytes a program reading lines is given") {
		t.Fatalf("wr send of a 5000-byte line: exit %d, stderr %q; want 1 and the line limit", r.code, r.stderr)
	}
	most := strings.Repeat("y", 4095) + "\n"
	e.mustWr("send", "lines", most)
	waitFile(e, file, len(most))
	compareFile(t, file, []byte(most)) // nothing of the refused send
	stream := strings.Repeat(strings.Repeat("z", 4000)+"\n", 40) + long + "\n"
	if r := e.wrIn(stream, e.vars, "send", "lines", "-"); r.code != 1 || !strings.Contains(r.stderr, "longer than the 4095") {
		t.Fatalf("wr send - with a 5000-byte line: exit %d, stderr %q; want 1 and the line limit", r.code, r.stderr)
	}

	raw := filepath.Join(e.dir, "raw.out")
	e.mustWr("new", "-d", "raw", "--", "sh", "-c", `stty raw -echo; echo READY; exec head -c 5001 > "$0"`, raw)
	waitReady(e, "raw")
	e.mustWr("send", "raw", "--enter", long)
	waitFile(e, raw, 5001)
	compareFile(t, raw, []byte(long+"\r"))
}
