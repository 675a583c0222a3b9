package attach

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ErrBadDetachKey is returned by ParseDetachKey, wrapped with the key and
// what to use instead, for a key it cannot parse or one that a terminal
// sends as Backspace, Tab, Enter or ESC too.
var ErrBadDetachKey = errors.New("attach: bad detach key")

// DetachKeyRule says which keys ParseDetachKey takes, for a person.
const DetachKeyRule = `use ctrl-a..ctrl-z (not ctrl-h, ctrl-i, ctrl-j or ctrl-m: they are also Backspace, Tab and Enter), ctrl-\, ctrl-], ctrl-^, ctrl-_, ctrl-@ or none`

// DetachKey is the key that detaches a client: one control byte, and the
// same key as a kitty keyboard protocol event (CSI code;5u), which a
// terminal sends instead when an application enabled that protocol.
type DetachKey struct {
	b     byte
	kitty []byte // CSI code;5u
	other []byte // xterm modifyOtherKeys: CSI 27;5;code~ (vim 9 turns it on)
}

// NoDetachKey turns detaching off.
var NoDetachKey = DetachKey{}

// ParseDetachKey parses "ctrl-X" (X one of a-z, @ [ \ ] ^ _) or "none".
func ParseDetachKey(s string) (DetachKey, error) {
	if s == "none" {
		return NoDetachKey, nil
	}
	k, ok := strings.CutPrefix(strings.ToLower(s), "ctrl-")
	if !ok || len(k) != 1 {
		return DetachKey{}, fmt.Errorf("%w %q: use ctrl-a..ctrl-z (not h, i, j, m), ctrl-\\, ctrl-], ctrl-^, ctrl-_, ctrl-@ or none", ErrBadDetachKey, s)
	}
	c := k[0]
	switch {
	case c == 'h' || c == 'i' || c == 'j' || c == 'm':
		// Backspace, Tab, Enter: every terminal sends these unasked.
		return DetachKey{}, fmt.Errorf("%w %q: that is also Backspace, Tab or Enter; pick another", ErrBadDetachKey, s)
	case 'a' <= c && c <= 'z', c == '@', c == '\\', c == ']', c == '^', c == '_':
	default:
		// ctrl-[ is ESC, which starts every arrow key and terminal report.
		return DetachKey{}, fmt.Errorf("%w %q: use ctrl-a..ctrl-z (not h, i, j, m), ctrl-\\, ctrl-], ctrl-^, ctrl-_, ctrl-@ or none", ErrBadDetachKey, s)
	}
	return DetachKey{
		b:     c & 0x1f,
		kitty: []byte(fmt.Sprintf("\x1b[%d;5u", c)),
		other: []byte(fmt.Sprintf("\x1b[27;5;%d~", c)),
	}, nil
}

// String names the key as ParseDetachKey takes it.
func (k DetachKey) String() string {
	if !k.Enabled() {
		return "none"
	}
	return "ctrl-" + strings.ToLower(string(rune(k.b|0x40)))
}

// Enabled reports whether the key detaches at all.
func (k DetachKey) Enabled() bool { return k.kitty != nil }

// isQuit reports whether the key is ctrl-\, which a terminal not yet in
// raw mode turns into SIGQUIT.
func (k DetachKey) isQuit() bool { return k.Enabled() && k.b == 0x1c }

// find returns the index of the first detach key in b, or -1. A
// kitty-encoded key split across two reads is not seen: terminals write a
// key event whole, and holding back a partial escape sequence would delay a
// lone Escape keystroke.
func (k DetachKey) find(b []byte) int {
	if !k.Enabled() {
		return -1
	}
	first := -1
	for _, i := range []int{bytes.IndexByte(b, k.b), bytes.Index(b, k.kitty), bytes.Index(b, k.other)} {
		if i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}
