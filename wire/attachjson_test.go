package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// attachFields and helloFields are Attach and Hello without their methods:
// what encoding/json writes for them by reflection.
type (
	attachFields Attach
	helloFields  Hello
)

// awkward holds every kind of byte appendJSONString treats apart.
const awkward = "a\"b\\c\b\f\n\r\t\x00\x1f<>&\u2028\u2029é中\xff\xc3(\U0001F600 /"

func TestAttachJSONMatchesReflection(t *testing.T) {
	cases := map[string]Attach{
		"zero":  {},
		"plain": {Name: "work", Create: true, Cols: 80, Rows: 24, Config: SessionConfig{Cwd: "/home/a", Env: []string{"TERM=xterm-256color", "HOME=/home/a"}, Cols: 80, Rows: 24}},
		"every field": {Name: "n", Create: true, Exclusive: true, ReadOnly: true, Cols: -1, Rows: 1 << 40,
			Config:   SessionConfig{Command: []string{"sh", "-c", "echo <hi> && exit"}, Cwd: "/", Env: []string{"A=1"}, Cols: 3, Rows: 4, Scrollback: 9, KeepMS: -5},
			Terminal: "pts/3", Restore: RestoreScreen, DetachOthers: true, Record: true,
			Env: map[string]string{"TERM": "xterm", "DISPLAY": ":0", "A": "", "": "empty key"}, Inside: "abc", InsideSocket: "/run/user/1000/wr/default", Outside: []string{"x", "y"}, AckExit: true},
		"awkward strings": {Name: awkward, Config: SessionConfig{Command: []string{awkward, ""}, Cwd: awkward, Env: []string{awkward}},
			Terminal: awkward, Restore: awkward, Env: map[string]string{awkward: awkward, "b": awkward}, Inside: awkward, InsideSocket: awkward, Outside: []string{awkward, ""}},
		"empty but not nil": {Config: SessionConfig{Command: []string{}, Env: []string{}}, Env: map[string]string{}},
	}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) { checkAttachJSON(t, a) })
	}
}

func checkAttachJSON(t *testing.T, a Attach) {
	t.Helper()
	got, err := Encode(a) // which calls MarshalJSON alone
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(attachFields(a))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Attach encodes as\n%s\nencoding/json writes\n%s", got, want)
	}
}

// TestAttachJSONHasEveryField fills each field of Attach and its config by
// reflection, so a field added to the struct and not to MarshalJSON fails
// here, whatever the field is.
func TestAttachJSONHasEveryField(t *testing.T) {
	var a Attach
	fill(t, reflect.ValueOf(&a).Elem())
	checkAttachJSON(t, a)
	var h Hello
	fill(t, reflect.ValueOf(&h).Elem())
	got, _ := Encode(h)
	want, _ := json.Marshal(helloFields(h))
	if !bytes.Equal(got, want) {
		t.Fatalf("Hello encodes as %s, encoding/json writes %s", got, want)
	}
}

func fill(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i))
		}
	case reflect.String:
		v.SetString("s-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(t, v.Index(0))
		fill(t, v.Index(1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(reflect.ValueOf("k2"), reflect.ValueOf("v2"))
		v.SetMapIndex(reflect.ValueOf("k1"), reflect.ValueOf("v&1"))
	default:
		t.Fatalf("fill does not know %s; teach it, and MarshalJSON", v.Type())
	}
}

func TestHelloJSONMatchesReflection(t *testing.T) {
	for name, h := range map[string]Hello{
		"zero":    {},
		"now":     {Protocol: ProtocolMajor, Minor: ProtocolMinor, Version: Version},
		"upgrade": {Protocol: 1, Minor: 4, Version: awkward, ForUpgrade: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, _ := Encode(h)
			want, _ := json.Marshal(helloFields(h))
			if !bytes.Equal(got, want) {
				t.Fatalf("Hello encodes as %s, encoding/json writes %s", got, want)
			}
		})
	}
}

// TestFlatDecodeTakesWhatTheServerSends: the fast path is for the objects
// the server writes, every field set or not; declining them would make
// the decoders correct but no faster.
func TestFlatDecodeTakesWhatTheServerSends(t *testing.T) {
	var w welcomeFields
	fill(t, reflect.ValueOf(&w).Elem())
	var a attachedFields
	fill(t, reflect.ValueOf(&a).Elem())
	for _, v := range []any{w, welcomeFields{}, a, attachedFields{}} {
		b, _ := json.Marshal(v)
		var ok bool
		switch v.(type) {
		case welcomeFields:
			ok = new(Welcome).decodeFlat(b)
		case attachedFields:
			ok = new(Attached).decodeFlat(b)
		}
		if !ok {
			t.Errorf("the fast path declined %s", b)
		}
	}
}

// flatInputs are objects for the decoders, the fast path's and those it
// must hand to encoding/json.
var flatInputs = []string{
	`{"protocol":1,"minor":4,"version":"0.1.0","pid":23773}`,
	`{"name":"t1","client_id":7,"created":false,"exited":true,"cols":80,"rows":24,"id":"ab12"}`,
	`{}`,
	` { "pid" : -0 , "version" : "" } `,
	`{"pid":1,"pid":2}`,
	`{"version":"a\"b"}`,
	`{"version":"\u00e9"}`,
	`{"version":"é中"}`,
	"{\"version\":\"\xff\"}",
	`{"Version":"x"}`,
	`{"PID":3}`,
	`{"pid":null}`,
	`{"pid":1.5}`,
	`{"pid":1e3}`,
	`{"pid":99999999999999999999}`,
	`{"pid":"3"}`,
	`{"version":3}`,
	`{"created":"true"}`,
	`{"created":true,"name":false}`,
	`{"extra":{"a":[1,2]},"pid":4}`,
	`{"name":"x","unknown":1}`,
	`[]`,
	`null`,
	`"x"`,
	`{"pid":1}x`,
	`{"pid":}`,
	`{"pid" 1}`,
	`{"pid":1,}`,
	`{"pid":tru}`,
	`{"pid":01}`,
	`{"pid":-01}`,
	`{"pid":-}`,
	`{"pid":1-2}`,
	`{"pid":--1}`,
	`{"pid":-0}`,
	`{"pid":0}`,
	`{"created":truex}`,
	`{"pid":1 "minor":2}`,
	"{\"version\":\"a\x01\"}",
	`{`,
	``,
}

func TestFlatDecodeMatchesReflection(t *testing.T) {
	for _, in := range flatInputs {
		t.Run(in, func(t *testing.T) { checkFlatDecode(t, []byte(in)) })
	}
}

// checkFlatDecode decodes b into a Welcome and an Attached, each both ways,
// from a value already holding something, and wants the same values and
// the same error, or none. UnmarshalJSON is called as Decode calls it,
// without encoding/json's check that b is JSON at all.
func checkFlatDecode(t *testing.T, b []byte) {
	t.Helper()
	w0 := Welcome{Protocol: 9, Version: "before", PID: 9}
	gotW, wantW := w0, welcomeFields(w0)
	errGot, errWant := gotW.UnmarshalJSON(b), json.Unmarshal(b, &wantW)
	if Welcome(wantW) != gotW || !sameError(errGot, errWant, "welcomeFields", "Welcome") {
		t.Errorf("Welcome from %q: %+v, %v; encoding/json: %+v, %v", b, gotW, errGot, wantW, errWant)
	}
	a0 := Attached{Name: "before", Cols: 9, Exited: true}
	gotA, wantA := a0, attachedFields(a0)
	errGot, errWant = gotA.UnmarshalJSON(b), json.Unmarshal(b, &wantA)
	if Attached(wantA) != gotA || !sameError(errGot, errWant, "attachedFields", "Attached") {
		t.Errorf("Attached from %q: %+v, %v; encoding/json: %+v, %v", b, gotA, errGot, wantA, errWant)
	}
}

// sameError: got is want, but for the name of the type decoded into, which
// is the message's own (want's names the method-less copy).
func sameError(got, want error, copyName, name string) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	return got.Error() == strings.ReplaceAll(want.Error(), copyName, name)
}

// A type error names the message's type, as before it decoded itself.
func TestDecodeErrorNamesTheMessage(t *testing.T) {
	var w Welcome
	err := Decode(Frame{Type: TypeWelcome, Payload: []byte(`{"pid":"x"}`)}, &w)
	if err == nil || !strings.Contains(err.Error(), "Go struct field Welcome.pid of type int") {
		t.Errorf("a string pid: %v", err)
	}
	var a Attached
	err = Decode(Frame{Type: TypeAttached, Payload: []byte(`""`)}, &a)
	if err == nil || !strings.Contains(err.Error(), "Go value of type wire.Attached") {
		t.Errorf("a string for the object: %v", err)
	}
}

// A nil pointer is encoding/json's to answer: null, or its error.
func TestNilPointers(t *testing.T) {
	for _, v := range []any{(*Attach)(nil), (*Hello)(nil)} {
		if p, err := Encode(v); err != nil || string(p) != "null" {
			t.Errorf("Encode(%T(nil)) = %q, %v; want null", v, p, err)
		}
	}
	for _, v := range []any{(*Welcome)(nil), (*Attached)(nil)} {
		if err := Decode(Frame{Payload: []byte(`{}`)}, v); err == nil {
			t.Errorf("Decode into %T(nil) did not fail", v)
		}
	}
}

func FuzzFlatDecode(f *testing.F) {
	for _, in := range flatInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFlatDecode(t, b) })
}

func FuzzAttachJSON(f *testing.F) {
	f.Add("work", "/home", "TERM=xterm", "k", "v", 80, true)
	f.Add(awkward, awkward, awkward, awkward, awkward, -1, false)
	f.Fuzz(func(t *testing.T, name, cwd, env, key, val string, n int, b bool) {
		checkAttachJSON(t, Attach{Name: name, Create: b, ReadOnly: !b, Cols: n, Rows: -n,
			Config:   SessionConfig{Command: []string{name, val}, Cwd: cwd, Env: []string{env, key}, Cols: n, KeepMS: int64(n) << 20},
			Terminal: key, Restore: val, Env: map[string]string{key: val, val: env}, Inside: cwd, InsideSocket: key, Outside: []string{val, env}})
		got, _ := Encode(Hello{Version: name, Minor: n, ForUpgrade: b})
		want, _ := json.Marshal(helloFields{Version: name, Minor: n, ForUpgrade: b})
		if !bytes.Equal(got, want) {
			t.Fatalf("Hello encodes as %s, encoding/json writes %s", got, want)
		}
	})
}
