package attach

import (
	"errors"
	"testing"
)

func TestParseDetachKey(t *testing.T) {
	cases := []struct {
		spec  string
		b     byte
		kitty string
		err   bool
	}{
		{spec: `ctrl-\`, b: 0x1c, kitty: "\x1b[92;5u"},
		{spec: "ctrl-a", b: 0x01, kitty: "\x1b[97;5u"},
		{spec: "Ctrl-Z", b: 0x1a, kitty: "\x1b[122;5u"},
		{spec: "ctrl-]", b: 0x1d, kitty: "\x1b[93;5u"},
		{spec: "ctrl-^", b: 0x1e, kitty: "\x1b[94;5u"},
		{spec: "ctrl-_", b: 0x1f, kitty: "\x1b[95;5u"},
		{spec: "none"},
		{spec: "meta-x", err: true},
		{spec: "ctrl-", err: true},
		{spec: "ctrl-ab", err: true},
		{spec: "ctrl-1", err: true},
		{spec: "ctrl-[", err: true},
		{spec: "ctrl-i", err: true},
		{spec: "ctrl-m", err: true},
		{spec: "ctrl-h", err: true},
		{spec: "", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			k, err := ParseDetachKey(tc.spec)
			if tc.err {
				if !errors.Is(err, ErrBadDetachKey) {
					t.Fatalf("err = %v, want ErrBadDetachKey", err)
				}
				return
			}
			if err != nil || k.b != tc.b || string(k.kitty) != tc.kitty {
				t.Fatalf("got %#x %q %v", k.b, k.kitty, err)
			}
		})
	}
}

func TestDetachKeyFind(t *testing.T) {
	k, _ := ParseDetachKey(`ctrl-\`)
	cases := []struct {
		in   string
		want int
	}{
		{"abc", -1},
		{"\x1c", 0},
		{"ab\x1c", 2},
		{"a\x1b[92;5u", 1},
		{"\x1b[92;5uz\x1c", 0},
		{"x\x1cy\x1b[92;5u", 1},
		{"\x1b[92;5", -1},
		{"ab\x1b[27;5;92~", 2},
		{"\x1b[A\x1b[B", -1},
	}
	for _, tc := range cases {
		if got := k.find([]byte(tc.in)); got != tc.want {
			t.Errorf("find(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if NoDetachKey.find([]byte("\x1c")) != -1 {
		t.Error("none should never detach")
	}
}
