package wire

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// KeyNames is the rule for the names SendKeys carries, as a person reads it.
const KeyNames = "C-a..C-z, C-Space, Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1..F12, and M-KEY (Alt, as xterm sends it; KEY may be one character)"

// ErrBadKey is returned by EncodeKey for a name outside KeyNames.
var ErrBadKey = errors.New("wire: unknown key name")

// KeyModes are the terminal modes that change what a key sends.
type KeyModes struct {
	// CursorKeysApp is DECCKM (CSI ? 1 h): the arrows, Home and End send
	// SS3 sequences instead of CSI ones.
	CursorKeysApp bool
}

// Keys lists every key name (KeyNames spelled out), as completion offers
// them.
func Keys() []string {
	keys := make([]string, 0, 26+30)
	for c := 'a'; c <= 'z'; c++ {
		keys = append(keys, "C-"+string(c))
	}
	keys = append(keys, "C-Space", "Enter", "Escape", "Tab", "BTab", "BSpace", "Space", "Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "Insert", "Delete")
	for i := 1; i <= 12; i++ {
		keys = append(keys, fmt.Sprintf("F%d", i))
	}
	return keys
}

// cursorKeys are the keys whose encoding DECCKM changes: their final byte.
var cursorKeys = map[string]byte{
	"up": 'A', "down": 'B', "right": 'C', "left": 'D', "home": 'H', "end": 'F',
}

// fixedKeys are the keys that send the same bytes in every mode (xterm's).
// tmux's names for some (DC, IC, PPage, NPage) are taken too: its users'
// scripts spell them so.
var fixedKeys = map[string]string{
	"enter": "\r", "escape": "\x1b", "esc": "\x1b", "tab": "\t", "btab": "\x1b[Z", "bspace": "\x7f", "space": " ",
	"c-space": "\x00",
	"pageup":  "\x1b[5~", "pagedown": "\x1b[6~", "ppage": "\x1b[5~", "npage": "\x1b[6~",
	"insert": "\x1b[2~", "ic": "\x1b[2~", "delete": "\x1b[3~", "dc": "\x1b[3~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// AppendKey appends the bytes key sends in a terminal with modes m, as
// xterm encodes it. Names are case-insensitive; C-x is control and a
// letter. A name outside KeyNames is ErrBadKey.
func AppendKey(dst []byte, key string, m KeyModes) ([]byte, error) {
	// Alt, as xterm and tmux's send-keys M- encode it: a key that sends
	// a CSI or SS3 sequence carries the modifier in it (M-Up is CSI 1;3A,
	// M-PageUp CSI 5;3~); any other key, and a single character, is sent
	// after an Escape (xterm's metaSendsEscape), so M-x and M-X differ as
	// Alt+x and Alt+Shift+x do.
	if len(key) > 2 && (key[:2] == "M-" || key[:2] == "m-") {
		rest := key[2:]
		if utf8.RuneCountInString(rest) == 1 && rest[0] >= ' ' && rest != "\x7f" {
			return append(append(dst, 0x1b), rest...), nil
		}
		seq, err := AppendKey(nil, rest, m)
		if err != nil {
			return dst, fmt.Errorf("%w %q", ErrBadKey, key)
		}
		return appendWithAlt(dst, seq), nil
	}
	k := strings.ToLower(key)
	if rest, ok := strings.CutPrefix(k, "c-"); ok && len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
		return append(dst, rest[0]-'a'+1), nil
	}
	if s, ok := fixedKeys[k]; ok {
		return append(dst, s...), nil
	}
	if final, ok := cursorKeys[k]; ok {
		if m.CursorKeysApp {
			return append(dst, 0x1b, 'O', final), nil
		}
		return append(dst, 0x1b, '[', final), nil
	}
	return dst, fmt.Errorf("%w %q", ErrBadKey, key)
}

// appendWithAlt appends seq, one key's bytes, with Alt: xterm's modifier
// parameter 3 in a CSI or SS3 sequence (ESC [ A and ESC O A both become
// ESC [ 1;3A; ESC [ 5~ becomes ESC [ 5;3~), otherwise Escape first
// (back tab too: it has Shift in it already).
func appendWithAlt(dst, seq []byte) []byte {
	const alt = ";3"
	n := len(seq)
	switch {
	case n == 3 && seq[0] == 0x1b && (seq[1] == '[' || seq[1] == 'O') && strings.IndexByte("ABCDHFPQRS", seq[2]) >= 0:
		return append(append(append(dst, 0x1b, '[', '1'), alt...), seq[2])
	case n > 3 && seq[0] == 0x1b && seq[1] == '[' && seq[n-1] == '~':
		return append(append(append(dst, seq[:n-1]...), alt...), '~')
	}
	return append(append(dst, 0x1b), seq...)
}
