package screen

import (
	"bytes"
	"strconv"
	"testing"
	"unicode/utf8"
)

// Streams that intern a new table entry per cell, or draw many cells per
// byte: each must cost per byte about what ordinary coloured output does
// (BenchmarkColour), however much of it the screen already holds.

// truecolourImage is lines lines of cols half blocks, what chafa and viu
// print: every cell has its own 24-bit foreground and background, so every
// cell is a new style. Cells are numbered from first, so images with
// different firsts share no style.
func truecolourImage(first, lines, cols int) []byte {
	var b []byte
	n := first
	for range lines {
		for range cols {
			fg, bg := n&0xffffff, ^n&0xffffff
			b = append(b, "\x1b[38;2;"...)
			b = appendRGB(b, fg)
			b = append(b, "m\x1b[48;2;"...)
			b = appendRGB(b, bg)
			b = append(b, "m▀"...)
			n++
		}
		b = append(b, "\x1b[m\r\n"...)
	}
	return b
}

func appendRGB(b []byte, c int) []byte {
	b = strconv.AppendInt(b, int64(c>>16&0xff), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(c>>8&0xff), 10)
	b = append(b, ';')
	return strconv.AppendInt(b, int64(c&0xff), 10)
}

// distinctLinks is n cells, cols to a line, each under its own OSC 8
// hyperlink, numbered from first.
func distinctLinks(first, n, cols int) []byte {
	var b []byte
	for i := range n {
		b = append(b, "\x1b]8;;https://example.com/page/"...)
		b = strconv.AppendInt(b, int64(first+i), 10)
		b = append(b, "\x1b\\L"...)
		if i%cols == cols-1 {
			b = append(b, "\x1b]8;;\x1b\\\r\n"...)
		}
	}
	return b
}

// distinctClusters is n cells, cols to a line, each a letter with its own
// sequence of three combining marks, numbered from first (up to 112^3).
func distinctClusters(first, n, cols int) []byte {
	var b []byte
	for i := range n {
		b = append(b, 'a'+byte(i%26))
		for k, m := 0, first+i; k < 3; k, m = k+1, m/112 {
			b = utf8.AppendRune(b, rune(0x300+m%112))
		}
		if i%cols == cols-1 {
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// benchVariants writes each of the inputs once, so the screen and its
// scrollback are full of what they intern, then measures writing them in
// turn. There are enough of them that an input's entries have all been
// dropped from the tables by the time it comes round again.
func benchVariants(b *testing.B, inputs [][]byte) {
	s := New(80, 24, 2000)
	for _, in := range inputs {
		s.Write(in)
	}
	b.SetBytes(int64(len(inputs[0])))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuClock(b, len(inputs[0]))
	i := 0
	for b.Loop() {
		timedWrite(s, inputs[i%len(inputs)])
		i++
	}
	cpu()
}

// BenchmarkTruecolourImage: a 900x80 image of distinct colours (about 2.7
// MB), drawn over a scrollback full of earlier ones.
func BenchmarkTruecolourImage(b *testing.B) {
	const lines, cols = 900, 80
	var inputs [][]byte
	for v := range 8 {
		inputs = append(inputs, truecolourImage(v*lines*cols, lines, cols))
	}
	benchVariants(b, inputs)
}

// BenchmarkDistinctLinks: 200,000 cells, each its own hyperlink.
func BenchmarkDistinctLinks(b *testing.B) {
	const n = 200000
	var inputs [][]byte
	for v := range 4 {
		inputs = append(inputs, distinctLinks(v*n, n, 80))
	}
	benchVariants(b, inputs)
}

// BenchmarkDistinctClusters: 200,000 cells, each its own grapheme cluster.
func BenchmarkDistinctClusters(b *testing.B) {
	const n = 200000
	var inputs [][]byte
	for v := range 4 {
		inputs = append(inputs, distinctClusters(v*n, n, 80))
	}
	benchVariants(b, inputs)
}

// repStream is 1,000 REPs of 3,000 (x\e[3000b, 9 bytes for 3,001 cells)
// and the same cells printed, for comparing the cost per cell.
func repStream() (rep, printed []byte, cells int) {
	for i := range 1000 {
		c := 'a' + byte(i%26)
		rep = append(rep, c)
		rep = append(rep, "\x1b[3000b"...)
		printed = append(printed, bytes.Repeat([]byte{c}, 3001)...)
		cells += 3001
	}
	return rep, printed, cells
}

func benchCells(b *testing.B, in []byte, cells int) {
	s := New(80, 24, 2000)
	s.Write(in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Write(in)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(cells), "ns/cell")
}

// BenchmarkREP: a REP-heavy stream; BenchmarkREPPrinted: the same cells as
// plain text.
func BenchmarkREP(b *testing.B) {
	rep, _, cells := repStream()
	benchCells(b, rep, cells)
}

func BenchmarkREPPrinted(b *testing.B) {
	_, printed, cells := repStream()
	benchCells(b, printed, cells)
}
