// Package screen is wr's terminal screen model.
//
// A session's PTY output is fed, byte for byte, to a [Screen] (with
// [Screen.Write], or [Screen.WriteBatch] for what has queued up), which keeps
// what a terminal would show: the primary and alternate grids, a bounded
// scrollback, the cursor (position, style, visibility, saved state), the pen
// (SGR attributes and colours, hyperlink), the scroll region, tab stops,
// character sets, the modes and kitty keyboard flags an application sets, the
// window title and the working directory. From that state it serialises a
// restore for a client that attaches ([Screen.AppendRestore]) and a text
// capture ([Screen.AppendText]).
//
// Screen owns this state and nothing else. It must never write to the PTY or
// to a client (answers to queries go to the function given to
// [Screen.SetReply], and the caller decides where they go), never block, never
// allocate per byte in steady state, never let an application's output grow
// its memory without bound (sizes, parameters, OSC payloads, clusters and
// hyperlinks are capped, and the side tables are compacted), and never emit a
// query in a restore: a restore is written to a terminal whose answers would
// arrive as keystrokes.
//
// Speed matters because every byte of every session goes through it, on the
// server's one thread. Lines live in a ring, so scrolling the full screen is
// O(1) and scrolling into the scrollback moves no cells. A cell is 8 bytes: a
// rune, flags and a 24-bit index into an interned style table, so a truecolour
// image (a style per cell) still fits; grapheme clusters and hyperlinks are
// kept in side tables. A table is compacted only once it has taken at least as
// many new entries as the last compaction kept, so each entry pays for a
// bounded share of the walk over every cell. Runs of printable ASCII bypass
// the escape-sequence parser (charmbracelet/x/ansi) while it is in its ground
// state; REP fills a row at a time and draws only the copies that can change
// what the screen and its scrollback hold; WriteBatch skips plain text that the rest of its
// batch scrolls out of the scrollback, and draws the rest in pieces of the
// interval given to [Screen.SetYield], calling back between them so the
// server can let other sessions in.
package screen
