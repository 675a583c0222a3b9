package wire

import (
	"errors"
	"slices"
	"testing"
)

func TestAppendKey(t *testing.T) {
	app := KeyModes{CursorKeysApp: true}
	tests := []struct {
		name string
		key  string
		m    KeyModes
		want string
	}{
		{"control letter", "C-c", KeyModes{}, "\x03"},
		{"control letter upper case", "C-A", KeyModes{}, "\x01"},
		{"control z", "C-z", KeyModes{}, "\x1a"},
		{"enter", "Enter", KeyModes{}, "\r"},
		{"escape", "Escape", KeyModes{}, "\x1b"},
		{"tab", "Tab", KeyModes{}, "\t"},
		{"backspace", "BSpace", KeyModes{}, "\x7f"},
		{"up normal", "Up", KeyModes{}, "\x1b[A"},
		{"up application", "Up", app, "\x1bOA"},
		{"left application", "Left", app, "\x1bOD"},
		{"home normal", "Home", KeyModes{}, "\x1b[H"},
		{"end application", "End", app, "\x1bOF"},
		{"page up ignores the mode", "PageUp", app, "\x1b[5~"},
		{"page down", "PageDown", KeyModes{}, "\x1b[6~"},
		{"f1", "F1", KeyModes{}, "\x1bOP"},
		{"f5", "F5", KeyModes{}, "\x1b[15~"},
		{"f12", "F12", app, "\x1b[24~"},
		{"insert", "Insert", KeyModes{}, "\x1b[2~"},
		{"delete", "Delete", app, "\x1b[3~"},
		{"delete as tmux names it", "DC", KeyModes{}, "\x1b[3~"},
		{"page up as tmux names it", "PPage", KeyModes{}, "\x1b[5~"},
		{"back tab", "BTab", KeyModes{}, "\x1b[Z"},
		{"control space", "C-Space", KeyModes{}, "\x00"},
		{"alt letter", "M-x", KeyModes{}, "\x1bx"},
		{"alt shifted letter", "M-X", KeyModes{}, "\x1bX"},
		{"alt character", "M-.", KeyModes{}, "\x1b."},
		{"alt non-ascii character", "M-é", KeyModes{}, "\x1bé"},
		{"alt named key", "M-Enter", KeyModes{}, "\x1b\r"},
		{"alt control letter", "m-C-b", KeyModes{}, "\x1b\x02"},
		{"alt arrow", "M-Up", KeyModes{}, "\x1b[1;3A"},
		{"alt arrow in application mode", "M-Up", app, "\x1b[1;3A"},
		{"alt f1", "M-F1", KeyModes{}, "\x1b[1;3P"},
		{"alt page up", "M-PageUp", KeyModes{}, "\x1b[5;3~"},
		{"alt f12", "M-F12", KeyModes{}, "\x1b[24;3~"},
		{"alt delete", "M-Delete", KeyModes{}, "\x1b[3;3~"},
		{"alt back tab", "M-BTab", KeyModes{}, "\x1b\x1b[Z"},
		{"alt escape", "M-Escape", KeyModes{}, "\x1b\x1b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendKey(nil, tt.key, tt.m)
			if err != nil || string(got) != tt.want {
				t.Errorf("AppendKey(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
			}
		})
	}
}

func TestAppendKeyRefusesUnknownNames(t *testing.T) {
	for _, key := range []string{"", "C-", "C-1", "C-ab", "F13", "Enterr", "ctrl-c", "M-", "M-Enterr", "M-\t"} {
		if _, err := AppendKey(nil, key, KeyModes{}); !errors.Is(err, ErrBadKey) {
			t.Errorf("AppendKey(%q): err %v, want ErrBadKey", key, err)
		}
	}
}

// Every key Keys lists (what completion offers) is one AppendKey takes,
// in both cursor-key modes, and the list has each family's ends.
func TestKeysAreKeys(t *testing.T) {
	keys := Keys()
	for _, k := range keys {
		for _, app := range []bool{false, true} {
			if _, err := AppendKey(nil, k, KeyModes{CursorKeysApp: app}); err != nil {
				t.Errorf("Keys offers %q: %v", k, err)
			}
		}
	}
	for _, want := range []string{"C-a", "C-z", "Enter", "PageDown", "Delete", "BTab", "F1", "F12"} {
		if !slices.Contains(keys, want) {
			t.Errorf("Keys lacks %q", want)
		}
	}
}
