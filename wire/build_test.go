package wire

import (
	"encoding/binary"
	"testing"
)

func TestElfGoBuildID(t *testing.T) {
	note := func(order binary.ByteOrder, id string) []byte {
		b := make([]byte, 12)
		order.PutUint32(b[0:], 4)
		order.PutUint32(b[4:], uint32(len(id)))
		order.PutUint32(b[8:], 4)
		return append(append(b, "Go\x00\x00"...), id...)
	}
	elf := func(data byte, rest ...[]byte) []byte {
		b := append([]byte("\x7fELF\x02"), data)
		b = append(b, make([]byte, 58)...)
		for _, r := range rest {
			b = append(b, r...)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"little-endian", elf(1, note(binary.LittleEndian, "a/b/c/d")), "a/b/c/d"},
		{"big-endian", elf(2, note(binary.BigEndian, "a/b/c/d")), "a/b/c/d"},
		{"the other byte order's note", elf(1, note(binary.BigEndian, "a/b/c/d")), ""},
		{"not ELF", append([]byte("#!/bin/sh\n"), note(binary.LittleEndian, "x")...), ""},
		{"cut short", elf(1, note(binary.LittleEndian, "a/b/c/d"))[:80], ""},
		{"no note", elf(1, []byte("Go\x00\x00")), ""},
		{"empty", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := elfGoBuildID(tc.head); got != tc.want {
				t.Errorf("elfGoBuildID = %q, want %q", got, tc.want)
			}
		})
	}
}
