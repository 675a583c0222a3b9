//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"wr/wire"
)

// Every build of one version tells itself apart: wr version and wr server
// status name the build by its Go build ID. A server whose binary was
// replaced by a new install still names the build it runs.
func TestVersionNamesTheBuild(t *testing.T) {
	out, err := exec.Command("go", "tool", "buildid", wrBin).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	id := strings.TrimSpace(string(out))
	id = id[strings.LastIndexByte(id, '/')+1:]
	want := "build " + id[:min(len(id), 12)]

	e := newEnv(t)
	if v := e.mustWr("version"); !strings.Contains(v, want) {
		t.Errorf("wr version = %q; want %q", v, want)
	}

	// The server runs from a copy, which is then replaced by a file that
	// is no wr at all.
	bin := filepath.Join(e.dir, "installed-wr")
	b, err := os.ReadFile(wrBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "new", "-d", "x", "--", "sleep", "1000")
	cmd.Env = e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wr new from the copy: %v: %s", err, out)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho not wr\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st := e.mustWr("server", "status"); !strings.Contains(st, "\nversion "+wire.Version+"\n") || !strings.Contains(st, "\n"+want+"\n") {
		t.Errorf("wr server status:\n%s\nwant the build it runs, %q", st, want)
	}
}
