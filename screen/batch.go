package screen

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Why a skip is exact. With the whole screen as the scroll region, ASCII
// printing as itself and insert mode off, each byte of a plain run (see
// plainByte) written in the parser's ground state prints an ASCII character
// with the pen, moves the cursor within its row, or moves it down a row
// (LF, autowrap), scrolling the whole screen at the bottom, which blanks the
// new bottom line with the pen's erase style. The columns it reaches do not
// depend on the row, and the lines it draws after a scroll start blank. So
// when the part after the cut makes rows+scrollback scrolls, every line in
// the ring afterwards was blanked by one of them and drawn only by that part,
// the same whatever row it started on, and the cursor ends on the bottom
// row. It makes that many when it holds skipNeed LFs, rows-1 of which may be
// spent reaching the bottom row. The skipped part's other effects are set by
// hand: after its final CR LF the cursor is in the first column with no
// pending wrap and no emoji sequence in progress, and REP repeats nothing. The ring may end up rotated differently, which nothing
// observes; canSkip rules out the one table change that could differ.

// plainByte marks the bytes a plain run consists of: printable ASCII, CR,
// BS and HT, which stay in the row, and LF.
var plainByte = func() (t [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		t[b] = true
	}
	t['\r'], t['\n'], t['\b'], t['\t'] = true, true, true, true
	return t
}()

// WriteBatch writes chunks in order. The screen afterwards is exactly as if
// each chunk had been passed to Write in turn (contents, scrollback, cursor,
// pen, modes, parser state; replies are sent the same; ScrolledOff says
// how it counts what is skipped), but a long run of
// plain text whose every line is scrolled out of the scrollback by the rest
// of the run is skipped rather than drawn.
//
// Precisely: in the last run of printable ASCII, CR, LF, BS and HT where a
// CR LF is followed by at least 2*rows-1+scrollback more LFs (no scrollback
// on the alternate screen), the part up to the last such CR LF is skipped,
// if where it starts (past the end of any escape sequence the run starts
// in) the scroll region is the whole screen, ASCII prints as itself and
// insert mode is off. WriteBatch does not allocate in steady state.
func (s *Screen) WriteBatch(chunks [][]byte) {
	end := 0
	for _, p := range chunks {
		end += len(p)
	}
	cut, tail := findCut(chunks, end, s.skipNeed())
	if cut < 0 {
		for _, p := range chunks {
			s.draw(p)
		}
		return
	}
	start := runStart(chunks, end, cut)
	s.writeRange(chunks, 0, start)
	// A run usually starts inside the escape sequence before it: write up
	// to the ground state, in growing steps so that a run that is all OSC
	// payload costs a few Writes.
	for step := 1; start < cut && !s.inGround(); step *= 2 {
		next := min(start+step, cut)
		s.writeRange(chunks, start, next)
		start = next
	}
	if start < cut && s.top == 0 && s.bottom == s.rows && !s.modes.has(modeInsert) {
		// The run interns the pen, if it changed, before anything else
		// and before it changes a cell: when it scrolls at the latest
		// (see eraseStyle). Interned here, the pen meets the same cells.
		// Only with the whole screen as the region is it sure to scroll:
		// below a narrower one its line feeds may move nothing, and the
		// pen stays as it was. Nor in insert mode, where a character
		// shifts the row, dropping its last cell, before the pen is
		// interned: a compaction then keeps one style fewer. canSkip
		// refuses both runs anyway.
		s.penStyle()
	}
	if start < cut && s.canSkip(tail) {
		// The grid is left as it is, with the cursor on the bottom row as
		// if the run had scrolled: the tail makes both what they would
		// have been.
		// Ended by a line feed: REP repeats nothing (print.go, repeat).
		s.x, s.pendingWrap, s.joining, s.lastChar = 0, false, false, 0
		s.y = s.rows - 1
		s.skipped += cut - start
		if s.g == s.primary {
			// Its lines went through the scrollback: counted as its line
			// feeds (ScrolledOff says why that is enough).
			s.primary.pushed += uint64(countLFs(chunks, start, cut))
		}
	} else {
		s.writeRange(chunks, start, cut)
	}
	s.writeRange(chunks, cut, end)
}

// skipNeed is how many LFs must follow a skipped run.
func (s *Screen) skipNeed() int {
	return 2*s.rows - 1 + s.g.maxHistory
}

// canSkip reports whether a plain run that starts now, in the parser's
// ground state, and is cut with tail LFs after the cut, can be skipped.
func (s *Screen) canSkip(tail int) bool {
	// The bytes before the run may have switched screens, and the
	// alternate one has no scrollback.
	if tail < s.skipNeed() {
		return false
	}
	// A narrower region keeps the rows outside it (and, with a top margin
	// below the first row, scrolls without the scrollback).
	if s.top != 0 || s.bottom != s.rows {
		return false
	}
	// Another character set (or a single shift) maps ASCII to other
	// characters; insert mode shifts cells along the row.
	if !s.plainCharset() || s.modes.has(modeInsert) {
		return false
	}
	// The first scroll interns the erase style, both ways, before anything
	// else is interned; but if that compacts the tables, which ones survive
	// depends on the cells at that moment.
	_, ok := s.lookupStyle(style{bg: s.pen.bg})
	return ok || !s.styles.due(s.slack())
}

// findCut returns the offset of the cut in chunks (end bytes in all), or -1:
// the offset right after the last CR LF that is followed, within the same
// run of plain bytes, by at least need LFs, and how many it is followed by.
// It scans backwards so that when the batch ends in such a run only the
// tail is read.
func findCut(chunks [][]byte, end, need int) (cut, tail int) {
	lfs := 0      // LFs after the byte looked at, in its run
	var next byte // the byte after it
	base := end   // offset of chunks[c]
	resume := afterShortRun(chunks, len(chunks), end, end, need+2)
	for c := len(chunks) - 1; c >= 0; c-- {
		p := chunks[c]
		base -= len(p)
		for i := min(len(p), resume-base); i > 0; {
			if n := printableEnd(p[:i]); n > 0 {
				i -= n
				next = p[i]
				continue
			}
			i--
			b := p[i]
			switch {
			case !plainByte[b]:
				lfs = 0
				resume = afterShortRun(chunks, c, base, base+i, need+2)
				i = max(resume-base, 0)
			case b == '\n':
				lfs++
			case b == '\r' && next == '\n' && lfs > need:
				// lfs counts the LF of this CR LF.
				return base + i + 2, lfs - 1
			}
			next = b
		}
	}
	return -1, 0
}

// afterShortRun returns where findCut goes on from the end of a run at
// offset r (in chunks[c], which starts at offset base; or c is len(chunks)
// and r the end): a run shorter than n bytes cannot hold the cut, so past
// the first byte that is not plain among the n before r, if there is one,
// and 0 if there are fewer than n. Output with many escape sequences is
// then mostly skipped.
func afterShortRun(chunks [][]byte, c, base, r, n int) int {
	from := r - n
	if from < 0 {
		return 0
	}
	for base > from {
		c--
		base -= len(chunks[c])
	}
	for ; base < r; c++ {
		p := chunks[c]
		for i := max(from-base, 0); i < len(p) && base+i < r; i++ {
			if !plainByte[p[i]] {
				return base + i + 1
			}
		}
		base += len(p)
	}
	return r
}

// runStart returns the offset where the run of plain bytes holding the cut
// starts.
func runStart(chunks [][]byte, end, cut int) (start int) {
	base := end
	for c := len(chunks) - 1; c >= 0; c-- {
		p := chunks[c]
		base -= len(p)
		if base >= cut {
			continue
		}
		i := min(cut-base, len(p))
		for i > 0 {
			if n := printableEnd(p[:i]); n > 0 {
				i -= n
				continue
			}
			i--
			if !plainByte[p[i]] {
				return base + i + 1
			}
		}
	}
	return 0
}

// printableEnd returns how many of the last 8 bytes of p (0 if it is
// shorter) are printable ASCII (0x20-0x7E) after the last one that is not,
// looking at them as one word: it lets the scans skip printable text 8 bytes
// at a time.
func printableEnd(p []byte) int {
	if len(p) < 8 {
		return 0
	}
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	x := binary.LittleEndian.Uint64(p[len(p)-8:])
	// A byte is not printable when its top bit is set, or when its low 7
	// bits are below 0x20 or all ones. Adding to the low 7 bits of a byte
	// cannot carry into the next byte, so each byte is judged on its own.
	low := x &^ tops
	bad := (x | ^(low + (0x80-0x20)*ones) | (low + ones)) & tops
	if bad == 0 {
		return 8 // a constant, so the loop need not wait for the word
	}
	// The last byte of p is the word's most significant.
	return bits.LeadingZeros64(bad) / 8
}

// writeRange writes bytes [from, to) of the concatenated chunks, keeping
// the chunks' boundaries.
func (s *Screen) writeRange(chunks [][]byte, from, to int) {
	off := 0
	for _, p := range chunks {
		if off >= to {
			return
		}
		if lo, hi := max(from-off, 0), min(to-off, len(p)); lo < hi {
			s.draw(p[lo:hi])
		}
		off += len(p)
	}
}

// SetYield has WriteBatch call yield each time it has drawn every bytes
// since the last call (what it skips does not count). A batch of output
// that cannot be skipped (a megabyte of coloured text, a truecolour image)
// takes milliseconds; a server that runs every session on one thread lets
// the others in at these points. A chunk is drawn in pieces of at most
// every bytes, so one 64 KiB read of slow output does not hold the thread
// for its whole length: the parser keeps its state across the pieces, so
// they draw exactly what the chunk would.
func (s *Screen) SetYield(every int, yield func()) {
	s.yieldEvery, s.yield, s.sinceYield = every, yield, 0
}

// SetYieldEvery changes how many bytes are drawn between two yields; the
// yield function may call it to look at the clock more or less often.
func (s *Screen) SetYieldEvery(every int) { s.yieldEvery = max(every, 1) }

// draw writes p for WriteBatch, and yields when it is time to.
func (s *Screen) draw(p []byte) {
	if s.yield == nil {
		s.Write(p)
		return
	}
	for len(p) > 0 {
		n := min(len(p), max(s.yieldEvery-s.sinceYield, 1))
		s.Write(p[:n])
		p = p[n:]
		s.sinceYield += n
		if s.sinceYield >= s.yieldEvery {
			s.sinceYield = 0
			s.yield()
		}
	}
}

// countLFs counts the line feeds in bytes [from, to) of the concatenated
// chunks.
func countLFs(chunks [][]byte, from, to int) int {
	n, off := 0, 0
	for _, p := range chunks {
		if off >= to {
			break
		}
		if lo, hi := max(from-off, 0), min(to-off, len(p)); lo < hi {
			n += bytes.Count(p[lo:hi], []byte{'\n'})
		}
		off += len(p)
	}
	return n
}
