// Package screen is wr's terminal screen model.
//
// A session's PTY output is fed, byte for byte, to a [Screen], which keeps
// what a terminal would show: the primary and alternate grids, a bounded
// scrollback, the cursor (position, style, visibility, saved state), the pen
// (SGR attributes and colours, hyperlink), the scroll region, tab stops,
// character sets, the modes an application sets and the window title. From
// that state it serialises a restore for a client that attaches
// ([Screen.AppendRestore]) and a text capture ([Screen.AppendText]).
//
// Screen owns this state and nothing else. It must never write to the PTY or
// to a client (answers to queries go to the function given to
// [Screen.SetReply], and the caller decides where they go), never block, never
// allocate per byte in steady state, and never emit a query in a restore: a
// restore is written to a terminal whose answers would arrive as keystrokes.
//
// Speed matters because every byte of every session goes through Write.
// Lines live in a ring, so scrolling the full screen is O(1) and scrolling
// into the scrollback moves no cells; a cell is 8 bytes (a rune, an index into
// an interned style table, and flags), with grapheme clusters and hyperlinks
// kept in side tables; and runs of printable ASCII bypass the escape-sequence
// parser (charmbracelet/x/ansi) while it is in its ground state.
package screen
