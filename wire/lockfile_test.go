package wire

import "testing"

func TestLockFile(t *testing.T) {
	for _, tt := range []struct {
		name, text, version string
		pid                 int
	}{
		{"version and pid", LockFileText("1.2.3", 42), "1.2.3", 42},
		{"version alone", LockFileText("1.2.3", 0), "1.2.3", 0},
		{"an older server's", "0.1.0\n", "0.1.0", 0},
		{"empty (the server ended)", "", "", 0},
		{"a partial write", "1.2", "", 0},
		{"a partial pid", "1.2.3\n42", "1.2.3", 0},
		{"a pid that is not one", "1.2.3\n-1\n", "1.2.3", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, pid := ParseLockFile(tt.text)
			if v != tt.version || pid != tt.pid {
				t.Errorf("ParseLockFile(%q) = %q, %d; want %q, %d", tt.text, v, pid, tt.version, tt.pid)
			}
		})
	}
}
