package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Type identifies a frame. Data frames (Input, Output, Data) carry raw bytes,
// End carries nothing; every
// other frame carries one JSON object, so fields can be added without
// breaking older peers.
type Type uint8

// Frame types. The numbers are the protocol: never renumber one.
const (
	// Handshake, the first frame each way on every connection.
	TypeHello   Type = 1 // client -> server: Hello
	TypeWelcome Type = 2 // server -> client: Welcome
	TypeRefused Type = 3 // server -> client: Refused, then close

	// Requests on a control connection: one request, one reply.
	TypeList    Type = 10 // List -> Sessions
	TypeKill    Type = 11 // Kill -> OK | Error
	TypeSend    Type = 12 // Send -> OK | Error
	TypeCapture Type = 13 // Capture -> Screen | Error
	TypeWait    Type = 14 // Wait -> Exited | Error
	TypeStop    Type = 15 // Stop -> OK
	TypeStatus  Type = 16 // Status -> ServerStatus
	TypeNew     Type = 17 // New -> OK | Error
	// SendStream, then the text in Data frames, then End -> OK | Error.
	// Since minor 1.
	TypeSendStream Type = 18
	// Since minor 3.
	TypeDetachClients Type = 19 // DetachClients -> OK | Error
	TypeRename        Type = 20 // Rename -> OK | Error
	TypeSendKeys      Type = 21 // SendKeys -> OK | Error
	TypeEnv           Type = 22 // Env -> EnvVars | Error
	// Since minor 4.
	TypeUpgrade Type = 23 // Upgrade -> Upgraded | Error
	// Since minor 6.
	TypeShown Type = 24 // Shown -> ShownIn

	// Replies.
	TypeOK           Type = 30
	TypeError        Type = 31
	TypeSessions     Type = 32
	TypeScreen       Type = 33
	TypeServerStatus Type = 34
	TypeEnvVars      Type = 35
	TypeUpgraded     Type = 36 // since minor 4: sent by the new server, after the hand-off
	TypeShownIn      Type = 37 // since minor 6

	// An attached connection: Attach, then Attached or Error; then a stream.
	TypeAttach   Type = 40 // client -> server: Attach
	TypeAttached Type = 41 // server -> client: Attached
	TypeInput    Type = 42 // client -> server: raw bytes for the PTY
	TypeResize   Type = 43 // client -> server: Resize
	TypeDetach   Type = 44 // client -> server: empty
	TypeOutput   Type = 45 // server -> client: raw bytes from the PTY
	TypeExited   Type = 46 // server -> client: Exited, after the last Output
	// Since minor 3; an older client ignores them.
	TypeDetached Type = 47 // server -> client: empty; the client was detached (wr detach), then close
	TypeRenamed  Type = 48 // server -> client: Renamed
	TypeSize     Type = 49 // server -> client: Resize, the session's new size (to a recorder only)

	// Since minor 5: a client that asked to confirm (Attach.AckExit) sends
	// it on an Exited with Ack set; the server collects the session and
	// closes the connection.
	TypeExitSeen Type = 52 // client -> server: empty; the client has the code

	// A body too large for one frame, either way: any number of Data
	// frames, each at most MaxPayload, then one End. Since minor 1.
	TypeData Type = 50 // raw bytes of the body
	TypeEnd  Type = 51 // empty: the body is complete
)

var typeNames = map[Type]string{
	TypeHello: "Hello", TypeWelcome: "Welcome", TypeRefused: "Refused",
	TypeList: "List", TypeKill: "Kill", TypeSend: "Send", TypeCapture: "Capture",
	TypeWait: "Wait", TypeStop: "Stop", TypeStatus: "Status", TypeNew: "New",
	TypeSendStream: "SendStream", TypeDetachClients: "DetachClients", TypeRename: "Rename",
	TypeSendKeys: "SendKeys", TypeUpgrade: "Upgrade", TypeUpgraded: "Upgraded",
	TypeOK: "OK", TypeError: "Error", TypeSessions: "Sessions", TypeScreen: "Screen",
	TypeServerStatus: "ServerStatus", TypeShown: "Shown", TypeShownIn: "ShownIn",
	TypeAttach: "Attach", TypeAttached: "Attached", TypeInput: "Input",
	TypeResize: "Resize", TypeDetach: "Detach", TypeOutput: "Output", TypeExited: "Exited",
	TypeDetached: "Detached", TypeRenamed: "Renamed", TypeSize: "Size",
	TypeExitSeen: "ExitSeen", TypeData: "Data", TypeEnd: "End",
}

func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Known reports whether this version of the protocol defines t.
func (t Type) Known() bool { _, ok := typeNames[t]; return ok }

// Hello opens every connection.
type Hello struct {
	Protocol int    `json:"protocol"`
	Minor    int    `json:"minor"`
	Version  string `json:"version"`
	// ForUpgrade says the request that follows is an Upgrade: a server of
	// another protocol major serves it all the same, so that a newer wr
	// can always hand an older server over to itself. Since minor 4.
	ForUpgrade bool `json:"for_upgrade,omitempty"`
}

// Welcome accepts a Hello.
type Welcome struct {
	Protocol int    `json:"protocol"`
	Minor    int    `json:"minor"`
	Version  string `json:"version"`
	PID      int    `json:"pid"`
}

// Refused rejects a Hello; the server closes the connection after it.
type Refused struct {
	Message string `json:"message"`
}

// SessionConfig is what the creating client sends so the session runs as if
// the command had been started in the client's own shell.
type SessionConfig struct {
	Command []string `json:"command,omitempty"` // empty: the server picks $SHELL from Env, else /bin/sh
	Cwd     string   `json:"cwd,omitempty"`
	Env     []string `json:"env,omitempty"`
	Cols    int      `json:"cols"`
	Rows    int      `json:"rows"`
	// Scrollback is how many lines of scrollback the session keeps: 0 is
	// the server's default (2000), a negative value none. Servers before
	// 1.5 take a negative value as the default.
	Scrollback int `json:"scrollback,omitempty"`
	// KeepMS is how long the session is kept, exited, when it ends with
	// no client attached: 0 is the server's default (24 h), a negative
	// value keeps nothing. Added in protocol 1.2.
	KeepMS int64 `json:"keep_ms,omitempty"`
}

// New creates a detached session; it fails if Name exists.
type New struct {
	Name   string        `json:"name"`
	Config SessionConfig `json:"config"`
}

// Attach joins a session, creating it from Config when Create is set and it
// does not exist. Exclusive makes an existing session an error (wr new).
type Attach struct {
	Name      string        `json:"name"`
	Create    bool          `json:"create"`
	Exclusive bool          `json:"exclusive,omitempty"`
	ReadOnly  bool          `json:"read_only,omitempty"`
	Cols      int           `json:"cols"`
	Rows      int           `json:"rows"`
	Config    SessionConfig `json:"config"`
	// Terminal names the client's terminal so that a reattach from it
	// draws only the scrollback it has not been shown (an opaque string:
	// see attach.terminalID); empty when there is none. Since minor 2.
	Terminal string `json:"terminal,omitempty"`
	// Restore is what the restore draws: RestoreScreen, the screen only;
	// empty, the scrollback the terminal has not been shown and the
	// screen. Since minor 2.
	Restore string `json:"restore,omitempty"`
	// DetachOthers detaches every other client of the session once this
	// one is attached (wr attach -d). Since minor 3.
	DetachOthers bool `json:"detach_others,omitempty"`
	// Record attaches a recorder (wr record): it watches like a read-only
	// client that never owns the size, gets the screen as it is and then
	// the program's bytes whatever its size, and a Size frame each time
	// the session's size changes. Since minor 3.
	Record bool `json:"record,omitempty"`
	// Env is what the client has of the variables a session refreshes
	// from the client that last acted (RefreshedEnv). Since minor 3. Sent
	// even when empty (a client with none of them): the session then has
	// none; null is a client that does not say (one before 1.3, a
	// recorder), which changes nothing.
	Env map[string]string `json:"env"`
	// Inside is the WR_SESSION_ID of the session the client runs in, if
	// any: the server refuses an attach that would loop. Since minor 3;
	// until minor 6 only a session of this server.
	Inside string `json:"inside,omitempty"`
	// InsideSocket is the socket of the server that holds Inside (the
	// client's WR_SOCKET), so that a client attaching later can follow a
	// loop through this server to that one. Since minor 6.
	InsideSocket string `json:"inside_socket,omitempty"`
	// Outside lists the sessions, of any server, that show Inside through
	// attached clients, however indirectly (the client asks with Shown):
	// attaching to one of them would close a loop across servers. Since
	// minor 6.
	Outside []string `json:"outside,omitempty"`
	// AckExit: the client confirms the session's exit code with ExitSeen.
	// Until a client has, a session that ends is kept, exited, as if
	// nobody were attached: a client behind an ssh link that died
	// unnoticed (a laptop asleep) would otherwise be sent the code into
	// the dead link and the session collected, and the client, back,
	// would find nothing. Since minor 5.
	AckExit bool `json:"ack_exit,omitempty"`
}

// Env asks for the variables of the client that last acted in a session,
// for wr env. Since minor 3.
type Env struct {
	Name string `json:"name,omitempty"`
	// ID, instead of Name, is the WR_SESSION_ID of the session asked
	// about: a shell's WR_SESSION keeps its old name after a rename, and
	// a new session may have taken that name since.
	ID string `json:"id,omitempty"`
}

// Shown asks which sessions show the sessions whose WR_SESSION_IDs are
// IDs, through clients attached to them from inside those sessions: a
// client about to attach from inside a session follows the answers from
// server to server (attach.outsideOf). Since minor 6.
type Shown struct {
	IDs []string `json:"ids"`
}

// ShownIn answers Shown: IDs are the sessions that show them, however
// indirectly, through this server's clients alone, and Elsewhere the
// sessions reached that another server holds, with that server's socket
// when the client said it; the asker follows those there.
type ShownIn struct {
	IDs       []string    `json:"ids"`
	Elsewhere []SessionAt `json:"elsewhere,omitempty"`
}

// SessionAt is a session of another server: its WR_SESSION_ID and the
// socket of the server that holds it ("" when unknown).
type SessionAt struct {
	ID     string `json:"id"`
	Socket string `json:"socket,omitempty"`
}

// EnvVars answers Env.
type EnvVars struct {
	Vars map[string]string `json:"vars"`
}

// RestoreScreen in Attach.Restore: draw the screen, never the scrollback.
const RestoreScreen = "screen"

// Attached accepts an Attach.
type Attached struct {
	Name     string `json:"name"`
	ClientID int    `json:"client_id"`
	Created  bool   `json:"created"`
	// Exited: the session had already ended; what follows is its last
	// screen, then Exited with its code. Added in protocol 1.2.
	Exited bool `json:"exited,omitempty"`
	// Cols and Rows are the session's size as the client joins it. Since
	// minor 3.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
	// ID is the session's WR_SESSION_ID, which a rename keeps and a new
	// session of the same name does not share: a client that attaches
	// again by name (a remote one after its link dropped) checks that it
	// found the same session. Additive, within minor 4: an older server
	// leaves it empty, and the client then cannot check.
	ID string `json:"id,omitempty"`
}

// Renamed tells an attached client its session's new name.
type Renamed struct {
	Name string `json:"name"`
}

// Resize reports the client's terminal size.
type Resize struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Exited ends a session's stream: its exit code in the shell convention
// (n for exit n, 128+s for death by signal s). The server sends it only
// after the session's last Output.
type Exited struct {
	Code int `json:"code"`
	// Ending says why an attached session ended when it did not end by
	// itself (EndKilled, EndStopped), so the client can say so; empty for
	// a command that exited. Since minor 3.
	Ending string `json:"ending,omitempty"`
	// LineUsed: the session's cursor was not at the start of an empty
	// line, so a line the client prints must begin on a new one. Since
	// minor 3.
	LineUsed bool `json:"line_used,omitempty"`
	// Ack asks the client for ExitSeen (it sent Attach.AckExit): the
	// session is kept until then. Since minor 5.
	Ack bool `json:"ack,omitempty"`
}

// Exited.Ending values.
const (
	EndKilled  = "killed"  // wr kill
	EndStopped = "stopped" // wr server stop
)

// Error is a failed request, or a session stream that ended abnormally. It
// is also the error the client returns for it (*Error), in the manner of
// x/net/http2's StreamError: callers branch on Code with IsCode or
// errors.As. Code is a stable word; Message is the server's sentence for a
// person, without a package prefix.
type Error struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// Written is how many bytes of a send reached the program before it
	// failed (code timeout).
	Written int64 `json:"written,omitempty"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "the server failed the request (" + e.Code + ")"
	}
	return e.Message
}

// IsCode reports whether err is, or wraps, an *Error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Error codes.
const (
	CodeNoSession = "no-session"
	CodeExists    = "exists"
	CodeBadName   = "bad-name"
	CodeTooLarge  = "too-large"
	CodeInternal  = "internal"
	CodeBadFrame  = "bad-frame"
	CodeStopping  = "stopping"
	CodeTimeout   = "timeout"   // a send the program did not take in time
	CodeBadKey    = "bad-key"   // a SendKeys key this server does not know
	CodeLoop      = "loop"      // an attach from inside a session its target shows
	CodeLongLine  = "long-line" // a send with a line longer than a program reading lines is given
)

// List asks for every session. Since 1.5 a client may ask for pages,
// each a Sessions with More set while sessions after its last are left
// (a list over MaxPayload failed whole: 2,500 sessions with long working
// directories), or for named sessions only; an older server ignores both
// and answers with every session at once.
type List struct {
	// Page asks for a page: the sessions after After, sorted by name, as
	// many as fit in about half a frame.
	Page  bool   `json:"page,omitempty"`
	After string `json:"after,omitempty"`
	// Names, when set, keeps only the sessions named.
	Names []string `json:"names,omitempty"`
}

// Kill ends sessions by name, or all of them.
type Kill struct {
	Names []string `json:"names,omitempty"`
	All   bool     `json:"all,omitempty"`
	// Exited removes every exited session and nothing else. Added in
	// protocol 1.2.
	Exited bool `json:"exited,omitempty"`
}

// Send writes Data to a session's PTY as if typed: the one-frame form,
// which holds at most what fits in a frame as JSON (about 780 KB). A
// server of minor 1 honours TimeoutMS; minor 0 ignores it.
type Send struct {
	Name      string `json:"name"`
	Data      []byte `json:"data"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// SendStream writes a text of any size to a session's PTY as if typed. The
// text follows in Data frames and ends with End; the reply comes after End
// (or as soon as the send fails). The text reaches the PTY whole and in
// order: no other send's bytes come between, and typed input only between
// two Data frames, never inside one.
//
// TimeoutMS bounds the whole send, from the request to the last byte
// written (0: no limit): a send the program does not take in time fails
// with code timeout, Written saying how much it took.
type SendStream struct {
	Name      string `json:"name"`
	Size      int64  `json:"size"` // bytes that follow, or -1 when not known in advance (a pipe)
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// DetachClients detaches every client attached to the sessions named, or
// to the session whose WR_SESSION_ID is ID (a bare wr detach inside a
// session: its name may have changed since its shell started). Each
// client gets Detached and its connection is closed. The reply's Names
// are the sessions acted on.
type DetachClients struct {
	Names []string `json:"names,omitempty"`
	ID    string   `json:"id,omitempty"`
}

// Rename gives session Old the name New, which must follow the naming
// rule and not be taken.
type Rename struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// SendKeys types named keys (KeyNames) into a session, each encoded as
// the session's current modes expect (the cursor keys in application
// mode when the program turned it on). The keys are one write, under the
// same turn as a send.
type SendKeys struct {
	Name      string   `json:"name"`
	Keys      []string `json:"keys"`
	TimeoutMS int64    `json:"timeout_ms,omitempty"`
}

// Capture asks for a session's screen. With Stream set a server of minor 1
// answers with the text in Data frames and End, so a capture of any size
// arrives; a server of minor 0 ignores it and answers with Screen.
type Capture struct {
	Name       string `json:"name"`
	ANSI       bool   `json:"ansi,omitempty"`
	Scrollback bool   `json:"scrollback,omitempty"`
	Stream     bool   `json:"stream,omitempty"`
}

// Screen answers Capture.
type Screen struct {
	Text string `json:"text"`
}

// Wait blocks until the named session ends; the reply is Exited.
type Wait struct {
	Name string `json:"name"`
}

// Stop kills every session and stops the server.
type Stop struct{}

// Status asks about the server.
type Status struct{}

// ServerStatus answers Status.
type ServerStatus struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Build is the server's wire.Build: "" from a server built without
	// one, or from before wr named its builds (an additive field within
	// protocol 1.6).
	Build    string  `json:"build,omitempty"`
	Uptime   float64 `json:"uptime_seconds"`
	Sessions int     `json:"sessions"`
	Socket   string  `json:"socket"`
	// Goroutines is how many the server runs: a handful, plus two per
	// attached client (its reader and its writer) and one per session
	// with output coming (an idle session holds none).
	Goroutines int `json:"goroutines"`
	// HeapKiB is the heap memory the server holds from the system, freed
	// or not: what stays resident after a burst until it is handed back.
	HeapKiB int `json:"heap_kib"`
	// FloodPauses counts the pauses sessions pouring output took while a
	// person typed in another session (mux/typing.go).
	FloodPauses int64 `json:"flood_pauses"`
	// MemoryReleases counts the times the server handed memory back to the
	// system after a burst or a crowd (mux/release.go).
	MemoryReleases int64 `json:"memory_releases"`
	// Bursts counts the times a session's output began to pour (faster
	// than a byte a microsecond) or its drawing fell a megabyte behind;
	// SecondCPU, the times the server took a second CPU for one because a
	// client was attached to another session (mux/procs.go).
	Bursts    int64 `json:"bursts"`
	SecondCPU int64 `json:"second_cpu"`
	// Knocks counts the times a pouring session's reader on one CPU found
	// connections waiting (a request, a key), and took a second CPU for a
	// moment to read them at once (mux/knock_linux.go).
	Knocks int64 `json:"knocks"`
	// HelpedKiB is how much output pouring sessions' readers on one CPU
	// wrote for their clients' writers, which waited for room in their
	// sockets (mux/client.go helpWriter).
	HelpedKiB int64 `json:"helped_kib"`
}

// OK is a request that succeeded. Names lists what it acted on, if
// anything; Bytes is how many bytes a send wrote.
type OK struct {
	Names []string `json:"names,omitempty"`
	Bytes int64    `json:"bytes,omitempty"`
}

// Sessions answers List.
type Sessions struct {
	Sessions []SessionInfo `json:"sessions"`
	// More: a page (List.Page) that sessions after its last one follow.
	More bool `json:"more,omitempty"`
}

// SessionInfo describes one session, as `wr ls --json` prints it.
type SessionInfo struct {
	Name     string       `json:"name"`
	PID      int          `json:"pid"`
	Clients  int          `json:"clients"`
	Cols     int          `json:"cols"`
	Rows     int          `json:"rows"`
	Created  string       `json:"created"` // RFC 3339
	Command  []string     `json:"command"`
	Cwd      string       `json:"cwd"`
	Owner    *int         `json:"owner"`
	Attached []ClientInfo `json:"attached"`
	// State is StateRunning or StateExited; an exited session has its
	// ExitCode and the time it Ended (RFC 3339). Added in protocol 1.2.
	State    string `json:"state"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Ended    string `json:"ended,omitempty"`
	// Behind is how many bytes of the session's output its screen model
	// has yet to draw: what an attach or a capture draws first. Added in
	// protocol 1.4 (omitted when none).
	Behind int64 `json:"behind,omitempty"`
}

// The states of a session in SessionInfo.
const (
	StateRunning = "running"
	StateExited  = "exited" // ended with nobody attached; kept until collected
)

// ClientInfo describes one attached client.
type ClientInfo struct {
	ID       int    `json:"id"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
	ReadOnly bool   `json:"read_only"`
	Since    string `json:"attached_at"` // RFC 3339
}

// Encode marshals a control message (a request or a reply) into a
// payload, refusing one that would pass MaxPayload before anything is
// written.
func Encode(v any) ([]byte, error) {
	var p []byte
	var err error
	if m, ok := v.(json.Marshaler); ok && !nilPointer(v) {
		// A message that encodes itself (attachjson.go) is not handed to
		// encoding/json at all: its first use in a process, even only to
		// call MarshalJSON and check the result, costs about 0.1 ms.
		p, err = m.MarshalJSON()
	} else {
		p, err = json.Marshal(v)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPayload, err)
	}
	if len(p) > MaxPayload {
		return nil, fmt.Errorf("%w: %d-byte message (max %d)", ErrFrameTooLarge, len(p), MaxPayload)
	}
	return p, nil
}

// nilPointer reports whether v is a nil pointer, which encoding/json
// encodes as null and a value method would panic on.
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// Decode unmarshals a control payload into v.
func Decode(f Frame, v any) error {
	var err error
	if u, ok := v.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(f.Payload) // as in Encode
	} else {
		err = json.Unmarshal(f.Payload, v)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadPayload, f.Type, err)
	}
	return nil
}
