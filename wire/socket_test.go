package wire_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"wr/wire"
)

// maxSocketPath is the longest socket path wr accepts: sun_path holds 104
// bytes on macOS including the NUL, the smaller of the two platforms.
const maxSocketPath = 103

func TestSocketPath(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmpDefault := filepath.Join("/tmp", "wr-"+strconv.Itoa(os.Getuid()), "default.sock")
	tests := []struct {
		name   string
		flag   string
		env    string // WR_SOCKET
		xdg    string // XDG_RUNTIME_DIR
		tmpdir string // TMPDIR
		want   string
	}{
		{"flag beats everything", "/flag/s.sock", "/env/s.sock", "/run/user/1", "", "/flag/s.sock"},
		{"WR_SOCKET beats XDG_RUNTIME_DIR", "", "/env/s.sock", "/run/user/1", "", "/env/s.sock"},
		{"XDG_RUNTIME_DIR beats /tmp", "", "", "/run/user/1", "", "/run/user/1/wr/default.sock"},
		{"/tmp when nothing is set", "", "", "", "", tmpDefault},
		{"relative flag is made absolute", "my.sock", "", "", "", filepath.Join(cwd, "my.sock")},
		{"relative WR_SOCKET is made absolute", "", "dir/my.sock", "", "", filepath.Join(cwd, "dir/my.sock")},
		{"path is cleaned", "/a//b/../c.sock", "", "", "", "/a/c.sock"},
		{"longest allowed path", "/" + strings.Repeat("s", maxSocketPath-1), "", "", "", "/" + strings.Repeat("s", maxSocketPath-1)},
		{"TMPDIR is not /tmp", "", "", "", "/var/tmp/elsewhere", tmpDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("WR_SOCKET", tt.env)
			t.Setenv("XDG_RUNTIME_DIR", tt.xdg)
			t.Setenv("TMPDIR", tt.tmpdir)
			got, err := wire.SocketPath(tt.flag)
			if err != nil {
				t.Fatalf("SocketPath(%q): %v", tt.flag, err)
			}
			if got != tt.want {
				t.Errorf("SocketPath(%q) = %q, want %q", tt.flag, got, tt.want)
			}
		})
	}
}

func TestSocketPathTooLong(t *testing.T) {
	long := "/" + strings.Repeat("s", maxSocketPath)
	tests := []struct {
		name string
		flag string
		env  string
		xdg  string
	}{
		{"flag", long, "", ""},
		{"WR_SOCKET", "", long, ""},
		{"XDG_RUNTIME_DIR", "", "", "/" + strings.Repeat("x", maxSocketPath-len("/wr/default.sock"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("WR_SOCKET", tt.env)
			t.Setenv("XDG_RUNTIME_DIR", tt.xdg)
			got, err := wire.SocketPath(tt.flag)
			if err == nil {
				t.Fatalf("SocketPath = %q (%d bytes), want an error", got, len(got))
			}
			if !strings.Contains(err.Error(), "--socket") {
				t.Errorf("error %q does not say what to do", err)
			}
		})
	}
}

// mkdir makes dir with exactly mode, whatever the umask.
func mkdir(t *testing.T, dir string, mode fs.FileMode) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckDir(t *testing.T) {
	tests := []struct {
		name   string
		mode   fs.FileMode
		unsafe bool
	}{
		{"0700", 0o700, false},
		{"0755 others may read", 0o755, false},
		{"0711", 0o711, false},
		{"0777", 0o777, true},
		{"0770 group writable", 0o770, true},
		{"0702 others writable", 0o702, true},
		{"1777 like /tmp", 0o777 | fs.ModeSticky, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mkdir(t, filepath.Join(t.TempDir(), "wr"), tt.mode)
			err := wire.CheckDir(dir)
			if !tt.unsafe {
				if err != nil {
					t.Fatalf("CheckDir: %v", err)
				}
				return
			}
			if !errors.Is(err, wire.ErrUnsafeDir) {
				t.Fatalf("CheckDir = %v, want ErrUnsafeDir", err)
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name %s", err, dir)
			}
		})
	}
}

func TestCheckDirRefusesNonDirectories(t *testing.T) {
	base := t.TempDir()
	good := mkdir(t, filepath.Join(base, "good"), 0o700)
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
	}{
		{"regular file", file},
		{"symlink to a safe directory", link},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := wire.CheckDir(tt.path)
			if !errors.Is(err, wire.ErrUnsafeDir) {
				t.Fatalf("CheckDir = %v, want ErrUnsafeDir", err)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name %s", err, tt.path)
			}
		})
	}
}

func TestCheckDirMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	err := wire.CheckDir(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("CheckDir = %v, want fs.ErrNotExist", err)
	}
	if errors.Is(err, wire.ErrUnsafeDir) {
		t.Errorf("a missing directory is not an unsafe one: %v", err)
	}
}

func TestCheckDirOtherOwner(t *testing.T) {
	dir := "/" // owned by root
	if os.Getuid() == 0 {
		dir = mkdir(t, filepath.Join(t.TempDir(), "theirs"), 0o700)
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Skipf("cannot give a directory away: %v", err)
		}
	} else if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o022 != 0 {
		t.Skip("/ is not a root-owned, non-writable directory here")
	}
	err := wire.CheckDir(dir)
	if !errors.Is(err, wire.ErrUnsafeDir) {
		t.Fatalf("CheckDir(%s) = %v, want ErrUnsafeDir", dir, err)
	}
	if !strings.Contains(err.Error(), "owned by") {
		t.Errorf("error %q does not say the owner is wrong", err)
	}
}

func TestPrepareDir(t *testing.T) {
	t.Run("creates a missing directory 0700", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run", "wr")
		if err := wire.PrepareDir(filepath.Join(dir, "default.sock")); err != nil {
			t.Fatalf("PrepareDir: %v", err)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("created %v, want a 0700 directory", fi.Mode())
		}
	})
	t.Run("accepts an existing 0700 directory", func(t *testing.T) {
		dir := mkdir(t, filepath.Join(t.TempDir(), "wr"), 0o700)
		if err := wire.PrepareDir(filepath.Join(dir, "default.sock")); err != nil {
			t.Fatalf("PrepareDir: %v", err)
		}
	})
	t.Run("refuses an existing 0777 directory and leaves it", func(t *testing.T) {
		dir := mkdir(t, filepath.Join(t.TempDir(), "wr"), 0o777)
		err := wire.PrepareDir(filepath.Join(dir, "default.sock"))
		if !errors.Is(err, wire.ErrUnsafeDir) {
			t.Fatalf("PrepareDir = %v, want ErrUnsafeDir", err)
		}
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("error %q does not name %s", err, dir)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o777 {
			t.Errorf("mode changed to %v; PrepareDir must refuse, not repair", fi.Mode().Perm())
		}
	})
	t.Run("fails when the parent is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := wire.PrepareDir(filepath.Join(file, "wr", "default.sock")); err == nil {
			t.Fatal("PrepareDir under a regular file succeeded")
		}
	})
}
