package wire_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
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
	// The name is at most 82 bytes: on Linux it is addressed as
	// /proc/self/fd/N/NAME, which must fit sun_path whatever N is.
	longest := "/" + strings.Repeat("d", maxSocketPath-2-82) + "/" + strings.Repeat("s", 82)
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
		{"longest allowed path", longest, "", "", "", longest},
		{"TMPDIR is not /tmp", "", "", "", "/var/tmp/elsewhere", tmpDefault},
		{"a relative XDG_RUNTIME_DIR is ignored", "", "", "run/user/1", "", tmpDefault},
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
		{"name", "/d/" + strings.Repeat("s", 83), "", ""},
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

// checkDir opens and closes dir as a socket directory.
func checkDir(dir string) error {
	d, err := wire.OpenDir(dir)
	if err == nil {
		d.Close()
	}
	return err
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
			err := checkDir(dir)
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
			err := checkDir(tt.path)
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
	err := checkDir(dir)
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
	err := checkDir(dir)
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
		if _, err := wire.PrepareDir(filepath.Join(dir, "default.sock")); err != nil {
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
		if _, err := wire.PrepareDir(filepath.Join(dir, "default.sock")); err != nil {
			t.Fatalf("PrepareDir: %v", err)
		}
	})
	t.Run("refuses an existing 0777 directory and leaves it", func(t *testing.T) {
		dir := mkdir(t, filepath.Join(t.TempDir(), "wr"), 0o777)
		_, err := wire.PrepareDir(filepath.Join(dir, "default.sock"))
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
		if _, err := wire.PrepareDir(filepath.Join(file, "wr", "default.sock")); err == nil {
			t.Fatal("PrepareDir under a regular file succeeded")
		}
	})
}

// A directory swapped for a symlink after it was opened is still the one
// reached: Addr, OpenFile and CheckSocket go through the descriptor.
func TestDirSurvivesSwap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("addressing through the descriptor needs /proc")
	}
	base := t.TempDir()
	real := mkdir(t, filepath.Join(base, "wr"), 0o700)
	other := mkdir(t, filepath.Join(base, "other"), 0o700)
	d, err := wire.OpenDir(real)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Rename(real, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, real); err != nil {
		t.Fatal(err)
	}
	addr, err := d.Addr("s.sock")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := os.Lstat(filepath.Join(base, "moved", "s.sock")); err != nil {
		t.Errorf("the socket is not in the directory that was opened: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(other, "s.sock")); err == nil {
		t.Errorf("the socket followed the symlink")
	}
	if ok, err := d.CheckSocket("s.sock"); !ok || err != nil {
		t.Errorf("CheckSocket = %v, %v; want the socket found through the descriptor", ok, err)
	}
	f, err := d.OpenFile("s.sock.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Lstat(filepath.Join(base, "moved", "s.sock.lock")); err != nil {
		t.Errorf("the lock file is not in the directory that was opened: %v", err)
	}
	if err := d.Remove("s.sock"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(base, "moved", "s.sock")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove left the socket: %v", err)
	}
}

// Only a socket counts as one; anything else is named and left alone.
func TestCheckSocket(t *testing.T) {
	dir := mkdir(t, filepath.Join(t.TempDir(), "wr"), 0o700)
	d, err := wire.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sock"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	addr, err := d.Addr("sock")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ok, err := d.CheckSocket("sock"); !ok || err != nil {
		t.Errorf("socket: %v, %v", ok, err)
	}
	if ok, err := d.CheckSocket("absent"); ok || err != nil {
		t.Errorf("absent: %v, %v", ok, err)
	}
	for _, name := range []string{"file", "sub", "link"} {
		ok, err := d.CheckSocket(name)
		if ok || !errors.Is(err, wire.ErrNotSocket) {
			t.Errorf("%s: %v, %v; want errNotSocket", name, ok, err)
			continue
		}
		want := filepath.Join(dir, name) + " exists and is not a socket; pick another --socket"
		if err.Error() != want {
			t.Errorf("%s: error %q, want %q", name, err, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "file")); err != nil || string(b) != "notes" {
		t.Errorf("the file changed: %q, %v", b, err)
	}
}

// OpenFile never follows a symlink, and names stay inside the directory.
func TestDirOpenFile(t *testing.T) {
	base := t.TempDir()
	dir := mkdir(t, filepath.Join(base, "wr"), 0o700)
	d, err := wire.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	target := filepath.Join(base, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "s.sock.log")); err != nil {
		t.Fatal(err)
	}
	if f, err := d.OpenFile("s.sock.log", os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.Close()
		t.Errorf("OpenFile followed a symlink")
	}
	for _, name := range []string{"../target", "", "..", "a/b"} {
		if f, err := d.OpenFile(name, os.O_RDONLY, 0); err == nil {
			f.Close()
			t.Errorf("OpenFile(%q) succeeded", name)
		}
	}
}

// Errors are sentences for a person: no package prefix.
func TestDirErrorsHaveNoPrefix(t *testing.T) {
	base := t.TempDir()
	open := mkdir(t, filepath.Join(base, "open"), 0o777)
	link := filepath.Join(base, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{open, link, filepath.Join(base, "absent")} {
		err := checkDir(dir)
		if err == nil {
			t.Fatalf("%s accepted", dir)
		}
		if strings.HasPrefix(err.Error(), "wire") || !strings.HasPrefix(err.Error(), "socket directory "+dir+" ") {
			t.Errorf("error %q: want a sentence starting with the directory", err)
		}
	}
}
