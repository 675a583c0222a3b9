package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The messages a `wr attach` sends and reads before the restored screen
// (Hello, Attach, Welcome, Attached) are encoded and decoded here by hand,
// and Encode and Decode call these methods without encoding/json. It
// builds its encoder and decoder for a type by reflection the first time
// it meets the type, and a client process meets each one once: that cost
// an attach about 200 µs of its 2.5 ms to the restored screen, and even
// without reflection the first call into encoding/json costs about 0.1 ms.
// The bytes are the same as encoding/json's (TestAttachJSONMatchesReflection
// and the fuzz targets hold them to it), so the server, which decodes them
// with encoding/json, cannot tell. A decode takes the fast path only for the
// flat objects the server sends; anything else (an escape in a string, an
// unknown or differently cased key, a null, a value of another type) goes to
// encoding/json, so its errors and its corner cases are encoding/json's.

// MarshalJSON is encoding/json's encoding of h.
func (h Hello) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, `{"protocol":`...)
	b = strconv.AppendInt(b, int64(h.Protocol), 10)
	b = append(b, `,"minor":`...)
	b = strconv.AppendInt(b, int64(h.Minor), 10)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, h.Version)
	if h.ForUpgrade {
		b = append(b, `,"for_upgrade":true`...)
	}
	return append(b, '}'), nil
}

// MarshalJSON is encoding/json's encoding of a.
func (a Attach) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 512)
	b = append(b, `{"name":`...)
	b = appendJSONString(b, a.Name)
	b = append(b, `,"create":`...)
	b = strconv.AppendBool(b, a.Create)
	if a.Exclusive {
		b = append(b, `,"exclusive":true`...)
	}
	if a.ReadOnly {
		b = append(b, `,"read_only":true`...)
	}
	b = append(b, `,"cols":`...)
	b = strconv.AppendInt(b, int64(a.Cols), 10)
	b = append(b, `,"rows":`...)
	b = strconv.AppendInt(b, int64(a.Rows), 10)
	b = append(b, `,"config":`...)
	b = appendSessionConfig(b, a.Config)
	if a.Terminal != "" {
		b = append(b, `,"terminal":`...)
		b = appendJSONString(b, a.Terminal)
	}
	if a.Restore != "" {
		b = append(b, `,"restore":`...)
		b = appendJSONString(b, a.Restore)
	}
	if a.DetachOthers {
		b = append(b, `,"detach_others":true`...)
	}
	if a.Record {
		b = append(b, `,"record":true`...)
	}
	if a.Env == nil {
		b = append(b, `,"env":null`...)
	} else {
		b = append(b, `,"env":{`...)
		// encoding/json writes a map's keys sorted.
		keys := make([]string, 0, len(a.Env))
		for k := range a.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, a.Env[k])
		}
		b = append(b, '}')
	}
	if a.Inside != "" {
		b = append(b, `,"inside":`...)
		b = appendJSONString(b, a.Inside)
	}
	if a.InsideSocket != "" {
		b = append(b, `,"inside_socket":`...)
		b = appendJSONString(b, a.InsideSocket)
	}
	if len(a.Outside) > 0 {
		b = append(b, `,"outside":`...)
		b = appendJSONStrings(b, a.Outside)
	}
	if a.AckExit {
		b = append(b, `,"ack_exit":true`...)
	}
	return append(b, '}'), nil
}

func appendSessionConfig(b []byte, c SessionConfig) []byte {
	b = append(b, '{')
	if len(c.Command) > 0 {
		b = append(b, `"command":`...)
		b = appendJSONStrings(b, c.Command)
		b = append(b, ',')
	}
	if c.Cwd != "" {
		b = append(b, `"cwd":`...)
		b = appendJSONString(b, c.Cwd)
		b = append(b, ',')
	}
	if len(c.Env) > 0 {
		b = append(b, `"env":`...)
		b = appendJSONStrings(b, c.Env)
		b = append(b, ',')
	}
	b = append(b, `"cols":`...)
	b = strconv.AppendInt(b, int64(c.Cols), 10)
	b = append(b, `,"rows":`...)
	b = strconv.AppendInt(b, int64(c.Rows), 10)
	if c.Scrollback != 0 {
		b = append(b, `,"scrollback":`...)
		b = strconv.AppendInt(b, int64(c.Scrollback), 10)
	}
	if c.KeepMS != 0 {
		b = append(b, `,"keep_ms":`...)
		b = strconv.AppendInt(b, c.KeepMS, 10)
	}
	return append(b, '}')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString quotes s as encoding/json does with its default HTML
// escaping: <, > and & as \u003c and so on, U+2028 and U+2029 escaped, and
// each byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// welcomeFields and attachedFields are Welcome and Attached without their
// methods: what encoding/json decodes when the fast path declines.
type (
	welcomeFields  Welcome
	attachedFields Attached
)

// UnmarshalJSON decodes a Welcome as encoding/json would.
//
// The fast path decodes into a copy, which *w becomes only once the whole
// of b has been read: b may turn out not to be JSON at its end (Decode
// does not check it first, as encoding/json does), and then *w must be as
// encoding/json leaves it, untouched. The fields b does not name keep
// their values, as with encoding/json.
func (w *Welcome) UnmarshalJSON(b []byte) error {
	return decodeMessage(w, b, (*Welcome).decodeFlat, (*welcomeFields)(w))
}

// decodeFlat is UnmarshalJSON's fast path; false means it declined, having
// written some of *w perhaps.
func (w *Welcome) decodeFlat(b []byte) bool {
	return eachFlatField(b, func(key []byte, v flatValue) bool {
		switch string(key) {
		case "protocol":
			return v.int(&w.Protocol)
		case "minor":
			return v.int(&w.Minor)
		case "version":
			return v.string(&w.Version)
		case "pid":
			return v.int(&w.PID)
		}
		return false
	})
}

// UnmarshalJSON decodes an Attached as encoding/json would (see Welcome's).
func (a *Attached) UnmarshalJSON(b []byte) error {
	return decodeMessage(a, b, (*Attached).decodeFlat, (*attachedFields)(a))
}

// decodeMessage is the UnmarshalJSON of a message m with a fast path
// (flat) and fields, m as its method-less copy for encoding/json.
func decodeMessage[M any](m *M, b []byte, flat func(*M, []byte) bool, fields any) error {
	if m == nil {
		return json.Unmarshal(b, m) // encoding/json's error for a nil pointer
	}
	v := *m
	if flat(&v, b) {
		*m = v
		return nil
	}
	err := json.Unmarshal(b, fields)
	// A type error names the message's type, not its copy's ("Go struct
	// field Welcome.pid", not "welcomeFields.pid"), as it did before the
	// message decoded itself.
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		from, to := reflect.TypeOf(fields).Elem(), reflect.TypeOf(v)
		if te.Struct == from.Name() {
			te.Struct = to.Name()
		}
		if te.Type == from {
			te.Type = to
		}
	}
	return err
}

// decodeFlat is UnmarshalJSON's fast path; false means it declined, having
// written some of *a perhaps.
func (a *Attached) decodeFlat(b []byte) bool {
	return eachFlatField(b, func(key []byte, v flatValue) bool {
		switch string(key) {
		case "name":
			return v.string(&a.Name)
		case "client_id":
			return v.int(&a.ClientID)
		case "created":
			return v.bool(&a.Created)
		case "exited":
			return v.bool(&a.Exited)
		case "cols":
			return v.int(&a.Cols)
		case "rows":
			return v.int(&a.Rows)
		case "id":
			return v.string(&a.ID)
		}
		return false
	})
}

// flatValue is one value of a flat object: a number, true, false, or a
// string without escapes (raw, between its quotes).
type flatValue struct {
	kind byte // '0' a number, 't' true, 'f' false, '"' a string
	raw  []byte
}

func (v flatValue) int(dst *int) bool {
	if v.kind != '0' {
		return false
	}
	n, err := strconv.ParseInt(string(v.raw), 10, strconv.IntSize)
	if err != nil { // a fraction, an exponent, or out of range
		return false
	}
	*dst = int(n)
	return true
}

func (v flatValue) bool(dst *bool) bool {
	if v.kind != 't' && v.kind != 'f' {
		return false
	}
	*dst = v.kind == 't'
	return true
}

func (v flatValue) string(dst *string) bool {
	if v.kind != '"' {
		return false
	}
	*dst = string(v.raw)
	return true
}

// eachFlatField calls field with each key and value of the JSON object b,
// in order, while the keys are strings without escapes and the values are
// flat (flatValue). It reports false, having stopped, at anything else, or
// as soon as field does.
func eachFlatField(b []byte, field func(key []byte, v flatValue) bool) bool {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b)
	}
	for {
		key, ok := flatScalar(b, i)
		if !ok || key.kind != '"' {
			return false
		}
		i = skipJSONSpace(b, i+len(key.raw)+2)
		if i == len(b) || b[i] != ':' {
			return false
		}
		i = skipJSONSpace(b, i+1)
		v, ok := flatScalar(b, i)
		if !ok || !field(key.raw, v) {
			return false
		}
		if i += len(v.raw); v.kind == '"' {
			i += 2
		}
		i = skipJSONSpace(b, i)
		if i == len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipJSONSpace(b, i+1)
		case '}':
			return skipJSONSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// flatScalar reads the flat value that starts at b[i].
func flatScalar(b []byte, i int) (flatValue, bool) {
	if i == len(b) {
		return flatValue{}, false
	}
	switch c := b[i]; {
	case c == '"':
		for j := i + 1; j < len(b); j++ {
			switch c := b[j]; {
			case c == '"':
				raw := b[i+1 : j]
				// encoding/json makes invalid UTF-8 into U+FFFD.
				return flatValue{'"', raw}, utf8.Valid(raw)
			case c == '\\' || c < 0x20:
				return flatValue{}, false
			}
		}
		return flatValue{}, false
	case c == '-' || '0' <= c && c <= '9':
		j := i + 1
		for j < len(b) && strings.IndexByte("0123456789.eE+-", b[j]) >= 0 {
			j++
		}
		// Decode calls UnmarshalJSON without encoding/json's check of the
		// whole payload, so a number JSON forbids is declined here:
		// strconv would read 01 as 1. What strconv refuses ("1-2", "1.5")
		// is declined by flatValue.int.
		digits := b[i:j]
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) > 1 && digits[0] == '0' {
			return flatValue{}, false
		}
		return flatValue{'0', b[i:j]}, true
	case c == 't' && len(b)-i >= 4 && string(b[i:i+4]) == "true":
		return flatValue{'t', b[i : i+4]}, true
	case c == 'f' && len(b)-i >= 5 && string(b[i:i+5]) == "false":
		return flatValue{'f', b[i : i+5]}, true
	}
	return flatValue{}, false
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
