package main

import (
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// attachValues is what an attach reads of its command line.
type attachValues struct {
	Name                                         string
	Socket, DetachKey, Restore, Record           string
	Scrollback                                   int
	Keep, Reconnect, KeepAlive                   string
	KeepSet, SocketSet, DetachKeySet             bool
	ReadOnly, DetachOthers, NoCreate, RestoreSet bool
}

func valuesOf(c flagValues, name string) attachValues {
	return attachValues{
		Name: name, Socket: c.String("socket"), DetachKey: c.String("detach-key"),
		Restore: c.String("restore"), Record: c.String("record"), Scrollback: c.Int("scrollback"),
		Keep: c.Duration("keep").String(), Reconnect: c.Duration("reconnect").String(),
		KeepAlive: c.Duration("keepalive").String(), KeepSet: c.IsSet("keep"),
		SocketSet: c.IsSet("socket"), DetachKeySet: c.IsSet("detach-key"), RestoreSet: c.IsSet("restore"),
		ReadOnly: c.Bool("read-only"), DetachOthers: c.Bool("detach-others"), NoCreate: c.Bool("no-create"),
	}
}

// appAttachValues parses args with the urfave/cli app, as wr does without
// the fast path, and returns what its attach would have read (ok false
// when the app would not have run attach's action with one NAME).
func appAttachValues(t *testing.T, args []string) (attachValues, bool) {
	t.Helper()
	// Parsing writes an environment variable's value (and that it was
	// set) into the shared flag; the next case must meet the flag as it was.
	saved := *detachKeyFlag
	defer func() { *detachKeyFlag = saved }()
	notFound := ""
	app := newApp(&notFound)
	app.Writer, app.ErrWriter = &strings.Builder{}, &strings.Builder{}
	var got attachValues
	ran := false
	for _, c := range app.Commands {
		if c.Name == "attach" {
			c.Before = nil // the upgrade check would dial the socket
			c.Action = func(c *cli.Context) error {
				if c.Args().Len() == 1 {
					got, ran = valuesOf(c, c.Args().First()), true
				}
				return nil
			}
		}
	}
	_ = app.Run(normalizeArgs(app, args))
	return got, ran
}

func TestParseAttachFastMatchesApp(t *testing.T) {
	tests := []struct {
		argv string
		env  map[string]string
		fast bool // the fast path takes it; else it falls through to the app
	}{
		{argv: "wr attach s0", fast: true},
		{argv: "wr attach work.1", fast: true},
		{argv: "wr attach host:s0", fast: true},
		{argv: "wr --socket /tmp/x.sock attach s0", fast: true},
		{argv: "wr --socket=/tmp/x.sock attach s0", fast: true},
		{argv: "wr attach s0", env: map[string]string{"WR_SOCKET": "/tmp/e.sock", "WR_DETACH_KEY": "ctrl-a", "WR_RESTORE": "screen"}, fast: true},
		{argv: "wr --socket /tmp/x.sock attach s0", env: map[string]string{"WR_SOCKET": "/tmp/e.sock"}, fast: true},
		{argv: "wr attach s0", env: map[string]string{"WR_DETACH_KEY": ""}, fast: true},
		{argv: "wr attach -r s0"},
		{argv: "wr attach s0 -d"},
		{argv: "wr attach s0 --socket /tmp/x.sock"},
		{argv: "wr attach --detach-key=ctrl-a s0"},
		{argv: "wr attach s0 -- sh"},
		{argv: "wr attach --help"},
		{argv: "wr attach help"},
		{argv: "wr attach"},
		{argv: "wr attach a b"},
		{argv: "wr -socket /tmp/x.sock attach s0"},
		{argv: "wr --socket attach s0"},
		{argv: "wr new s0"},
		{argv: "wr attachx s0"},
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			for _, k := range []string{"WR_SOCKET", "WR_DETACH_KEY", "WR_RESTORE"} {
				if v, ok := tt.env[k]; ok {
					t.Setenv(k, v)
				} else {
					unsetenv(t, k)
				}
			}
			args := strings.Fields(tt.argv)
			name, flags, ok := parseAttachFast(args)
			if ok != tt.fast {
				t.Fatalf("parseAttachFast(%q) ok = %v, want %v", tt.argv, ok, tt.fast)
			}
			if !ok {
				return
			}
			want, ran := appAttachValues(t, args)
			if !ran {
				t.Fatalf("the app does not run attach for %q, but the fast path does", tt.argv)
			}
			if got := valuesOf(flags, name); got != want {
				t.Errorf("fast path read %+v\nthe app read   %+v", got, want)
			}
		})
	}
}

// unsetenv unsets key for the rest of the test (t.Setenv first, so that
// the test's end puts it back).
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "")
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}
