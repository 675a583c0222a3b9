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
	return elfGoBuildID(head[:n])
}

// elfGoBuildID finds the Go build ID note in head, the start of an ELF
// file, or returns "".
func elfGoBuildID(head []byte) string {
	if len(head) < 6 || !bytes.HasPrefix(head, []byte("\x7fELF")) {
		return ""
	}
	// The note: namesz 4, descsz, type 4, "Go\0\0", then the ID, its
	// words in the file's byte order (e_ident[EI_DATA]).
	var order binary.ByteOrder = binary.LittleEndian
	if head[5] == 2 {
		order = binary.BigEndian
	}
	four := make([]byte, 4)
	order.PutUint32(four, 4)
	tag := append(append([]byte(nil), four...), "Go\x00\x00"...)
	i := bytes.Index(head, tag)
	if i < 8 || !bytes.Equal(head[i-8:i-4], four) {
		return ""
	}
	size := int(order.Uint32(head[i-4 : i]))
	start := i + len(tag)
	if size <= 0 || start+size > len(head) {
		return ""
	}
	return string(head[start : start+size])
}
