//go:build linux

package wire

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The watch sees removals and renames away, by name, and nothing once
// stopped.
func TestWatchEntries(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []string{"gone", "moved", "kept"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names := make(chan string, 8)
	stop, err := d.WatchEntries(func(name string) { names <- name })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "moved"), filepath.Join(t.TempDir(), "moved")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gone", "moved"} {
		select {
		case got := <-names:
			if got != want {
				t.Fatalf("removed %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event for %s", want)
		}
	}
	stop()
	if err := os.Remove(filepath.Join(dir, "kept")); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-names:
		t.Fatalf("an event after stop: %q", got)
	case <-time.After(50 * time.Millisecond):
	}
}
