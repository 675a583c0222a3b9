package wire_test

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"wr/wire"
)

// The type numbers are the protocol. They are written out literally so that
// renumbering one fails here rather than between two wr versions.
var typeNumbers = []struct {
	name string
	typ  wire.Type
	num  uint8
}{
	{"Hello", wire.TypeHello, 1},
	{"Welcome", wire.TypeWelcome, 2},
	{"Refused", wire.TypeRefused, 3},
	{"List", wire.TypeList, 10},
	{"Kill", wire.TypeKill, 11},
	{"Send", wire.TypeSend, 12},
	{"Capture", wire.TypeCapture, 13},
	{"Wait", wire.TypeWait, 14},
	{"Stop", wire.TypeStop, 15},
	{"Status", wire.TypeStatus, 16},
	{"New", wire.TypeNew, 17},
	{"SendStream", wire.TypeSendStream, 18},
	{"DetachClients", wire.TypeDetachClients, 19},
	{"Rename", wire.TypeRename, 20},
	{"SendKeys", wire.TypeSendKeys, 21},
	{"Upgrade", wire.TypeUpgrade, 23},
	{"Shown", wire.TypeShown, 24},
	{"OK", wire.TypeOK, 30},
	{"Error", wire.TypeError, 31},
	{"Sessions", wire.TypeSessions, 32},
	{"Screen", wire.TypeScreen, 33},
	{"ServerStatus", wire.TypeServerStatus, 34},
	{"Upgraded", wire.TypeUpgraded, 36},
	{"ShownIn", wire.TypeShownIn, 37},
	{"Attach", wire.TypeAttach, 40},
	{"Attached", wire.TypeAttached, 41},
	{"Input", wire.TypeInput, 42},
	{"Resize", wire.TypeResize, 43},
	{"Detach", wire.TypeDetach, 44},
	{"Output", wire.TypeOutput, 45},
	{"Exited", wire.TypeExited, 46},
	{"Detached", wire.TypeDetached, 47},
	{"Renamed", wire.TypeRenamed, 48},
	{"Size", wire.TypeSize, 49},
	{"Data", wire.TypeData, 50},
	{"End", wire.TypeEnd, 51},
	{"ExitSeen", wire.TypeExitSeen, 52},
	{"KeepAlive", wire.TypeKeepAlive, 55},
}

func TestTypeNumbers(t *testing.T) {
	for _, tt := range typeNumbers {
		t.Run(tt.name, func(t *testing.T) {
			if uint8(tt.typ) != tt.num {
				t.Errorf("Type%s = %d, want %d", tt.name, uint8(tt.typ), tt.num)
			}
			if got := tt.typ.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if !tt.typ.Known() {
				t.Error("Known() = false")
			}
		})
	}
}

// Every type the package knows is pinned above: a type added without a
// number written down here fails.
func TestEveryKnownTypeIsPinned(t *testing.T) {
	pinned := map[uint8]bool{}
	for _, tt := range typeNumbers {
		pinned[tt.num] = true
	}
	for n := range 256 {
		typ := wire.Type(n)
		if typ.Known() && !pinned[uint8(n)] {
			t.Errorf("Type(%d) (%s) is known but not pinned in typeNumbers", n, typ)
		}
		if !typ.Known() {
			if want := "Type(" + strconv.Itoa(n) + ")"; typ.String() != want {
				t.Errorf("String() of unknown type %d = %q, want %q", n, typ.String(), want)
			}
		}
	}
}

// The error codes are words scripts branch on.
func TestErrorCodes(t *testing.T) {
	codes := map[string]string{
		wire.CodeNoSession: "no-session",
		wire.CodeExists:    "exists",
		wire.CodeBadName:   "bad-name",
		wire.CodeTooLarge:  "too-large",
		wire.CodeInternal:  "internal",
		wire.CodeBadFrame:  "bad-frame",
		wire.CodeStopping:  "stopping",
		wire.CodeTimeout:   "timeout",
		wire.CodeBadKey:    "bad-key",
	}
	for got, want := range codes {
		if got != want {
			t.Errorf("code %q, want %q", got, want)
		}
	}
}

func intPtr(n int) *int { return &n }

var config = wire.SessionConfig{
	Command:    []string{"/bin/sh", "-l"},
	Cwd:        "/home/u",
	Env:        []string{"TERM=xterm-256color", "LANG=C.UTF-8"},
	Cols:       120,
	Rows:       40,
	Scrollback: 5000,
}

// messages is one populated value per control message, with the frame type
// it travels in and its exact JSON encoding. The JSON field names are the
// protocol (and, for SessionInfo, the `wr ls --json` output).
var messages = []struct {
	typ  wire.Type
	msg  any
	json string
}{
	{wire.TypeHello, &wire.Hello{Protocol: 1, Minor: 2, Version: "0.1.0"},
		`{"protocol":1,"minor":2,"version":"0.1.0"}`},
	{wire.TypeWelcome, &wire.Welcome{Protocol: 1, Minor: 0, Version: "0.1.0", PID: 4242},
		`{"protocol":1,"minor":0,"version":"0.1.0","pid":4242}`},
	{wire.TypeRefused, &wire.Refused{Message: "protocol 2; run `wr server stop`"},
		`{"message":"protocol 2; run ` + "`wr server stop`" + `"}`},
	{wire.TypeList, &wire.List{}, `{}`},
	{wire.TypeKill, &wire.Kill{Names: []string{"a", "b"}, All: true},
		`{"names":["a","b"],"all":true}`},
	{wire.TypeSend, &wire.Send{Name: "work", Data: []byte("ls\r\x00\xff")},
		`{"name":"work","data":"bHMNAP8="}`},
	{wire.TypeSend, &wire.Send{Name: "work", Data: []byte("x"), TimeoutMS: 1500},
		`{"name":"work","data":"eA==","timeout_ms":1500}`},
	{wire.TypeSendStream, &wire.SendStream{Name: "work", Size: 5 << 20, TimeoutMS: 10000},
		`{"name":"work","size":5242880,"timeout_ms":10000}`},
	{wire.TypeSendStream, &wire.SendStream{Name: "work", Size: -1},
		`{"name":"work","size":-1}`},
	{wire.TypeCapture, &wire.Capture{Name: "work", ANSI: true, Scrollback: true},
		`{"name":"work","ansi":true,"scrollback":true}`},
	{wire.TypeCapture, &wire.Capture{Name: "work", Stream: true},
		`{"name":"work","stream":true}`},
	{wire.TypeWait, &wire.Wait{Name: "work"}, `{"name":"work"}`},
	{wire.TypeStop, &wire.Stop{}, `{}`},
	{wire.TypeStatus, &wire.Status{}, `{}`},
	{wire.TypeNew, &wire.New{Name: "work", Config: config},
		`{"name":"work","config":{"command":["/bin/sh","-l"],"cwd":"/home/u","env":["TERM=xterm-256color","LANG=C.UTF-8"],"cols":120,"rows":40,"scrollback":5000}}`},
	{wire.TypeOK, &wire.OK{Names: []string{"work"}}, `{"names":["work"]}`},
	{wire.TypeOK, &wire.OK{Names: []string{"work"}, Bytes: 12}, `{"names":["work"],"bytes":12}`},
	{wire.TypeError, &wire.Error{Code: wire.CodeNoSession, Message: `no session "x"`},
		`{"code":"no-session","message":"no session \"x\""}`},
	{wire.TypeError, &wire.Error{Code: wire.CodeTimeout, Message: "timed out", Written: 4095},
		`{"code":"timeout","message":"timed out","written":4095}`},
	{wire.TypeSessions, &wire.Sessions{Sessions: []wire.SessionInfo{{
		Name: "work", PID: 99, Clients: 1, Cols: 80, Rows: 24,
		Created: "2024-01-02T03:04:05Z", Command: []string{"/bin/sh"}, Cwd: "/",
		Owner:    intPtr(3),
		Attached: []wire.ClientInfo{{ID: 3, Cols: 80, Rows: 24, ReadOnly: true, Since: "2024-01-02T03:04:06Z"}},
		State:    wire.StateRunning,
	}, {
		Name: "build", PID: 100, Created: "2024-01-02T03:04:05Z", Command: []string{"make"}, Cwd: "/",
		Attached: []wire.ClientInfo{}, State: wire.StateExited, ExitCode: intPtr(2), Ended: "2024-01-02T03:05:00Z",
	}}},
		`{"sessions":[{"name":"work","pid":99,"clients":1,"cols":80,"rows":24,"created":"2024-01-02T03:04:05Z","command":["/bin/sh"],"cwd":"/","owner":3,"attached":[{"id":3,"cols":80,"rows":24,"read_only":true,"attached_at":"2024-01-02T03:04:06Z"}],"state":"running"},` +
			`{"name":"build","pid":100,"clients":0,"cols":0,"rows":0,"created":"2024-01-02T03:04:05Z","command":["make"],"cwd":"/","owner":null,"attached":[],"state":"exited","exit_code":2,"ended":"2024-01-02T03:05:00Z"}]}`},
	{wire.TypeScreen, &wire.Screen{Text: "$ \x1b[1mhi\x1b[0m\n"},
		`{"text":"$ \u001b[1mhi\u001b[0m\n"}`},
	{wire.TypeServerStatus, &wire.ServerStatus{PID: 7, Version: "0.1.0", Uptime: 1.5, Sessions: 2, Socket: "/tmp/wr-0/default.sock", Goroutines: 4, HeapKiB: 4096, FloodPauses: 3},
		`{"pid":7,"version":"0.1.0","uptime_seconds":1.5,"sessions":2,"socket":"/tmp/wr-0/default.sock","goroutines":4,"heap_kib":4096,"flood_pauses":3,"memory_releases":0,"bursts":0,"second_cpu":0,"knocks":0,"helped_kib":0}`},
	{wire.TypeAttach, &wire.Attach{Name: "work", Create: true, Exclusive: true, ReadOnly: true, Cols: 80, Rows: 24, Config: wire.SessionConfig{Cols: 80, Rows: 24}},
		`{"name":"work","create":true,"exclusive":true,"read_only":true,"cols":80,"rows":24,"config":{"cols":80,"rows":24},"env":null}`},
	{wire.TypeAttach, &wire.Attach{Name: "work", Cols: 80, Rows: 24, Terminal: "8801:4242", Restore: wire.RestoreScreen},
		`{"name":"work","create":false,"cols":80,"rows":24,"config":{"cols":0,"rows":0},"terminal":"8801:4242","restore":"screen","env":null}`},
	{wire.TypeAttached, &wire.Attached{Name: "work", ClientID: 5, Created: true},
		`{"name":"work","client_id":5,"created":true}`},
	{wire.TypeResize, &wire.Resize{Cols: 132, Rows: 50}, `{"cols":132,"rows":50}`},
	{wire.TypeExited, &wire.Exited{Code: 129}, `{"code":129}`},
	{wire.TypeDetachClients, &wire.DetachClients{Names: []string{"a", "b"}}, `{"names":["a","b"]}`},
	{wire.TypeDetachClients, &wire.DetachClients{ID: "x1"}, `{"id":"x1"}`},
	{wire.TypeRename, &wire.Rename{Old: "a", New: "b"}, `{"old":"a","new":"b"}`},
	{wire.TypeSendKeys, &wire.SendKeys{Name: "work", Keys: []string{"C-c", "Up"}, TimeoutMS: 500},
		`{"name":"work","keys":["C-c","Up"],"timeout_ms":500}`},
	{wire.TypeRenamed, &wire.Renamed{Name: "new"}, `{"name":"new"}`},
	{wire.TypeSize, &wire.Resize{Cols: 100, Rows: 30}, `{"cols":100,"rows":30}`},
	{wire.TypeAttach, &wire.Attach{Name: "work", DetachOthers: true, Record: true},
		`{"name":"work","create":false,"cols":0,"rows":0,"config":{"cols":0,"rows":0},"detach_others":true,"record":true,"env":null}`},
	{wire.TypeAttached, &wire.Attached{Name: "work", ClientID: 5, Cols: 80, Rows: 24},
		`{"name":"work","client_id":5,"created":false,"cols":80,"rows":24}`},
	{wire.TypeAttached, &wire.Attached{Name: "work", ClientID: 5, ID: "a1b2"},
		`{"name":"work","client_id":5,"created":false,"id":"a1b2"}`},
}

func TestMessageJSON(t *testing.T) {
	for _, tt := range messages {
		t.Run(tt.typ.String(), func(t *testing.T) {
			p, err := wire.Encode(tt.msg)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if string(p) != tt.json {
				t.Errorf("Encode =\n%s\nwant\n%s", p, tt.json)
			}
		})
	}
}

// newOf returns a pointer to a fresh zero value of the type msg points to.
func newOf(msg any) any { return reflect.New(reflect.TypeOf(msg).Elem()).Interface() }

// Every control message survives each path onto the wire and back.
func TestMessageRoundTrip(t *testing.T) {
	encodings := []struct {
		name  string
		frame func(t *testing.T, typ wire.Type, p []byte) []byte
	}{
		{"AppendFrame", func(t *testing.T, typ wire.Type, p []byte) []byte {
			b, err := wire.AppendFrame(nil, typ, p)
			if err != nil {
				t.Fatalf("AppendFrame: %v", err)
			}
			return b
		}},
		{"WriteFrame", func(t *testing.T, typ wire.Type, p []byte) []byte {
			var buf bytes.Buffer
			if err := wire.WriteFrame(&buf, typ, p); err != nil {
				t.Fatalf("WriteFrame: %v", err)
			}
			return buf.Bytes()
		}},
	}
	for _, enc := range encodings {
		for _, tt := range messages {
			t.Run(enc.name+"/"+tt.typ.String(), func(t *testing.T) {
				p, err := wire.Encode(tt.msg)
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				f, err := wire.ReadFrame(bytes.NewReader(enc.frame(t, tt.typ, p)))
				if err != nil {
					t.Fatalf("ReadFrame: %v", err)
				}
				if f.Type != tt.typ {
					t.Errorf("Type = %v, want %v", f.Type, tt.typ)
				}
				got := newOf(tt.msg)
				if err := wire.Decode(f, got); err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if !reflect.DeepEqual(got, tt.msg) {
					t.Errorf("round trip = %+v, want %+v", got, tt.msg)
				}
			})
		}
	}
}

// Data frames carry raw bytes, not JSON.
func TestDataFrameRoundTrip(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	tests := []struct {
		name    string
		typ     wire.Type
		payload []byte
	}{
		{"Input every byte value", wire.TypeInput, all},
		{"Output invalid UTF-8", wire.TypeOutput, []byte{0xff, 0xfe, '\x1b', '[', 'm'}},
		{"Output empty", wire.TypeOutput, []byte{}},
		{"Detach empty", wire.TypeDetach, []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := wire.WriteFrame(&buf, tt.typ, tt.payload); err != nil {
				t.Fatal(err)
			}
			f, err := wire.ReadFrame(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if f.Type != tt.typ || !bytes.Equal(f.Payload, tt.payload) {
				t.Errorf("got %v % x, want %v % x", f.Type, f.Payload, tt.typ, tt.payload)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	t.Run("unknown fields are ignored", func(t *testing.T) {
		var h wire.Hello
		f := wire.Frame{Type: wire.TypeHello, Payload: []byte(`{"protocol":1,"minor":9,"version":"9.9","future":{"x":1}}`)}
		if err := wire.Decode(f, &h); err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if h != (wire.Hello{Protocol: 1, Minor: 9, Version: "9.9"}) {
			t.Errorf("Decode = %+v", h)
		}
	})
	t.Run("missing fields are zero", func(t *testing.T) {
		var a wire.Attach
		if err := wire.Decode(wire.Frame{Type: wire.TypeAttach, Payload: []byte(`{"name":"w"}`)}, &a); err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if !reflect.DeepEqual(a, wire.Attach{Name: "w"}) {
			t.Errorf("Decode = %+v", a)
		}
	})
	bad := []struct {
		name    string
		payload string
	}{
		{"empty payload", ``},
		{"not JSON", `hello`},
		{"truncated", `{"protocol":`},
		{"wrong field type", `{"protocol":"one"}`},
		{"array", `[1,2]`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			var h wire.Hello
			err := wire.Decode(wire.Frame{Type: wire.TypeHello, Payload: []byte(tt.payload)}, &h)
			if !errors.Is(err, wire.ErrBadPayload) {
				t.Fatalf("err = %v, want ErrBadPayload", err)
			}
			if !strings.Contains(err.Error(), "Hello") {
				t.Errorf("error %q does not name the frame type", err)
			}
		})
	}
}

func TestEncodeLimits(t *testing.T) {
	// `{"text":""}` wraps the text in 11 bytes.
	const wrap = len(`{"text":""}`)
	tests := []struct {
		name    string
		msg     any
		wantErr error
	}{
		{"JSON of exactly MaxPayload", wire.Screen{Text: strings.Repeat("a", wire.MaxPayload-wrap)}, nil},
		{"JSON one over MaxPayload", wire.Screen{Text: strings.Repeat("a", wire.MaxPayload-wrap+1)}, wire.ErrFrameTooLarge},
		{"escaping pushes it over", wire.Screen{Text: strings.Repeat("\x1b", wire.MaxPayload/6+1)}, wire.ErrFrameTooLarge},
		{"large session list", wire.Sessions{Sessions: manySessions(20000)}, wire.ErrFrameTooLarge},
		{"unmarshalable value", struct{ C chan int }{make(chan int)}, wire.ErrBadPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := wire.Encode(tt.msg)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				if len(p) != wire.MaxPayload {
					t.Errorf("len = %d, want %d", len(p), wire.MaxPayload)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if p != nil {
				t.Errorf("Encode returned %d bytes with its error", len(p))
			}
		})
	}
}

func manySessions(n int) []wire.SessionInfo {
	s := make([]wire.SessionInfo, n)
	for i := range s {
		s[i] = wire.SessionInfo{Name: "session-" + strconv.Itoa(i), PID: i, Command: []string{"/bin/sh"}, Cwd: "/home/someone"}
	}
	return s
}
