//go:build linux

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

var osTable table = procfs{root: "/proc"}

// procfs reads a directory shaped like /proc.
type procfs struct{ root string }

func (f procfs) entries() ([]entry, error) {
	d, err := os.ReadDir(f.root)
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	out := make([]entry, 0, len(d))
	for _, de := range d {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || pid <= 0 {
			continue
		}
		e, err := f.stat(pid)
		if err != nil { // exited between ReadDir and now
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (f procfs) lookup(pid int) (entry, bool) {
	e, err := f.stat(pid)
	if errors.Is(err, os.ErrNotExist) {
		return entry{}, false
	}
	if err != nil {
		// It exists (or we cannot tell): an unreadable start is unknown.
		_, serr := os.Stat(filepath.Join(f.root, strconv.Itoa(pid)))
		return entry{pid: pid}, serr == nil
	}
	return e, true
}

func (f procfs) stat(pid int) (entry, error) {
	b, err := os.ReadFile(filepath.Join(f.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return entry{}, err
	}
	return parseStat(pid, b)
}

// parseStat reads ppid (field 4) and start time (field 22) from a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so fields are counted from the last
// ')'. A missing start time is recorded as 0 (unknown), not an error.
func parseStat(pid int, b []byte) (entry, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return entry{}, fmt.Errorf("proc: stat of %d: no command name", pid)
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state), fields[1] field 4 (ppid), fields[19] field 22.
	if len(fields) < 2 {
		return entry{}, fmt.Errorf("proc: stat of %d: too short", pid)
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return entry{}, fmt.Errorf("proc: stat of %d: ppid: %w", pid, err)
	}
	e := entry{pid: pid, ppid: ppid, zombie: fields[0][0] == 'Z' || fields[0][0] == 'X'}
	if len(fields) > 19 {
		e.start, _ = strconv.ParseUint(string(fields[19]), 10, 64)
	}
	return e, nil
}

func (f procfs) environ(pid int) []byte {
	b, _ := os.ReadFile(filepath.Join(f.root, strconv.Itoa(pid), "environ"))
	return b
}
