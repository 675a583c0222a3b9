//go:build linux

package integration

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// seeBuildInputs stats every file of the module. go test caches a passing
// run keyed on the files the test process itself opens or stats, and the
// suite's builds (TestMain's `go build` of wr, the floor holders' cc) read
// their sources in other processes, unseen: without this, a change to mux
// or ptyproc alone would replay the cached PASS of a suite that never ran
// against it. It runs from newEnv, inside m.Run, because only the stats
// made while the tests run are recorded.
var seeBuildInputs = sync.OnceFunc(func() {
	_ = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != ".." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		_, _ = os.Stat(path)
		return nil
	})
})
