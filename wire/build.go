package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Build names this binary apart from every other build of the same
// Version: the last part of the Go build ID (a hash of the binary's own
// content, so two builds of the same source share it), cut to 12
// characters; where the build ID cannot be read (not ELF), the commit the
// go command stamped (vcs.revision, "-modified" for a tree with changes);
// else "". `wr version` and `wr server status` show it, so a person who
// installed a new build of the same version can see whether the server
// still runs the old one (wr server upgrade hands it over).
var Build = sync.OnceValue(func() string {
	if id := goBuildID(); id != "" {
		id = id[strings.LastIndexByte(id, '/')+1:]
		return id[:min(len(id), 12)]
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	rev = rev[:min(len(rev), 12)]
	if rev != "" && modified {
		rev += "-modified"
	}
	return rev
})

// goBuildID reads the Go build ID from the running binary's ELF note
// (.note.go.buildid, which the linker puts in the first pages: name "Go",
// type 4), or returns "".
//
// It opens /proc/self/exe, not the path: a server whose binary was
// replaced by a new install runs the old one, and must say so.
func goBuildID() string {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("\x7fELF")) {
		return ""
	}
	// namesz 4, descsz, type 4, "Go\0\0", then the ID (little-endian: the
	// only byte order wr is built for on Linux).
	tag := []byte("\x04\x00\x00\x00Go\x00\x00")
	i := bytes.Index(head, tag)
	if i < 8 || !bytes.Equal(head[i-8:i-4], []byte{4, 0, 0, 0}) {
		return ""
	}
	size := int(binary.LittleEndian.Uint32(head[i-4 : i]))
	start := i + len(tag)
	if size <= 0 || start+size > len(head) {
		return ""
	}
	return string(head[start : start+size])
}
