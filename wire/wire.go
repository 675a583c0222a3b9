// Package wire is the protocol between the wr client and server: how a frame
// is laid out, which messages exist, where the socket lives and what a
// session may be called.
//
// It owns the byte layout, and how those bytes cross a non-blocking
// descriptor (RawFD), and nothing else: it imports no other package of wr,
// holds no connection state and never starts a goroutine, so both halves of
// wr (and tests) can speak it without pulling in either half.
package wire

import "errors"

// Protocol versions. A peer with a different major is refused with a message
// that says what to do; a different minor is accepted, because control
// payloads are JSON and unknown fields are ignored. A minor adds message
// types: 1 added streamed sends and captures (SendStream, Data, End), which
// a server of minor 0 answers with an Error ("unsupported request"); 2 the
// exited state and the restore's options; 3 detaching others, renaming,
// named keys and recorders (DetachClients, Rename, SendKeys, and Detached,
// Renamed and Size to attached clients, which an older client ignores); 4
// the bridge's KeepAlive to attached clients over ssh (bridge.go); 5 a
// client that confirms the session's exit code (Attach.AckExit, ExitSeen);
// 6 refusing an attach loop across servers (Shown, Attach.InsideSocket and
// Attach.Outside; a server of minor 5 answers Shown with an Error, and
// the client then attaches unchecked, as before).
const (
	ProtocolMajor = 1
	ProtocolMinor = 6
)

// Version is the wr release; the main package may overwrite it at link time.
var Version = "0.1.0"

// Sentinel errors. Callers check them with errors.Is; the error that wraps
// one carries the detail. Their text names the package, as Go's do: they are
// for programs and logs, and main words them for a person.
var (
	// ErrFrameTooLarge is returned by AppendFrame and Encode for a payload
	// over MaxPayload, and by ReadFrame and Reader.ReadFrame for a frame
	// whose header declares one (before anything is allocated).
	ErrFrameTooLarge = errors.New("wire: frame too large")

	// ErrBadPayload is returned by Encode for a message JSON cannot encode,
	// by Decode for a payload that is not the JSON of its message, and by
	// ReadData for an End frame that carries a payload.
	ErrBadPayload = errors.New("wire: malformed payload")

	// ErrBadName is returned by CheckName for a name outside NameRule.
	ErrBadName = errors.New("wire: invalid session name")

	// ErrUnsafeDir is matched by the errors of OpenDir and PrepareDir for a
	// socket directory someone else could control: another owner, group or
	// world write permission, a symbolic link, not a directory, or one
	// swapped while it was opened. Their text names the path and says what
	// to do; main adds where the path came from when it was $WR_SOCKET.
	ErrUnsafeDir = errors.New("wire: unsafe socket directory")
)
