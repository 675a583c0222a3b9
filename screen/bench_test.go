package screen

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
)

// plainText is about 1 MiB of plain lines as a PTY delivers them (CR LF).
func plainText() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "%6d: The quick brown fox jumps over the lazy dog; pack my box with jugs.\r\n", i)
	}
	return b.Bytes()
}

// colourText is SGR-heavy output: a coloured `ls` in columns and compiler
// diagnostics, about 1 MiB.
func colourText() []byte {
	var b bytes.Buffer
	names := []string{"\x1b[01;34mbin\x1b[0m", "\x1b[01;36mlib64\x1b[0m", "\x1b[01;32mconfigure\x1b[0m", "README.md", "\x1b[01;31marchive.tar.gz\x1b[0m", "\x1b[01;35mlogo.png\x1b[0m"}
	for i := 0; b.Len() < 1<<20; i++ {
		if i%4 == 3 {
			fmt.Fprintf(&b, "\x1b[01m\x1b[Kmain.c:%d:5:\x1b[m\x1b[K \x1b[01;31m\x1b[Kerror: \x1b[m\x1b[K'y' undeclared (first use in this function)\r\n", i)
			fmt.Fprintf(&b, "  %d |     printf(\"%%d\\n\", \x1b[01;31m\x1b[Ky\x1b[m\x1b[K);\r\n", i)
			continue
		}
		for j, n := range names {
			fmt.Fprintf(&b, "%s%*s", n, 4+j, "")
		}
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

func benchWrite(b *testing.B, in []byte) {
	s := New(120, 40, 2000)
	s.Write(in) // fill the scrollback: what follows is steady state
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuClock(b, len(in))
	for b.Loop() {
		timedWrite(s, in)
	}
	cpu()
}

// timedWrite is s.Write, as the measured loops call it: a profiler (such as
// callgrind's --toggle-collect) can count the work of its calls alone,
// without the setup's.
//
//go:noinline
func timedWrite(s *Screen, in []byte) { s.Write(in) }

// cpuClock starts timing the process's CPU time (user and system, the
// collector's included), which other load on the machine changes far less
// than the wall clock; the function it returns reports it as cpu-MB/s.
func cpuClock(b *testing.B, bytesPerOp int) func() {
	start := cpuTime()
	return func() {
		if d := cpuTime() - start; d > 0 && b.N > 0 {
			b.ReportMetric(float64(b.N)*float64(bytesPerOp)/d.Seconds()/1e6, "cpu-MB/s")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchXVT(b *testing.B, in []byte) {
	e := newVT(b, 120, 40)
	e.SetScrollbackSize(2000)
	e.Write(in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		e.Write(in)
	}
}

func BenchmarkPlain(b *testing.B)    { benchWrite(b, plainText()) }
func BenchmarkColour(b *testing.B)   { benchWrite(b, colourText()) }
func BenchmarkXVTPlain(b *testing.B) { benchXVT(b, plainText()) }
func BenchmarkXVTColour(b *testing.B) {
	benchXVT(b, colourText())
}

// BenchmarkRecorded feeds the recorded programs' output.
func BenchmarkRecorded(b *testing.B) {
	var in []byte
	for _, r := range recordings {
		in = append(in, readRecording(b, r.file)...)
	}
	benchWrite(b, in)
}

// fullScreen returns a 120x40 screen with 2,000 lines of coloured
// scrollback.
func fullScreen() *Screen {
	s := New(120, 40, 2000)
	line := "\x1b[32mok\x1b[m  \x1b[1mpkg/some/path\x1b[m  0.%03ds  \x1b[38;5;208mwarning\x1b[m: a line of text long enough to wrap past a hundred and twenty columns %d\r\n"
	for i := 0; s.primary.history < 2000; i++ {
		fmt.Fprintf(s, line, i%1000, i)
	}
	return s
}

// BenchmarkRestore serialises a full 120x40 screen plus 2,000 lines of
// scrollback, reusing the buffer (target: under 5 ms).
func BenchmarkRestore(b *testing.B) {
	s := fullScreen()
	buf := s.AppendRestore(nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = s.AppendRestore(buf[:0])
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/op")
}

// BenchmarkMemory reports the heap a model holds: fresh and idle, and with
// a full scrollback at 120 columns.
func BenchmarkMemory(b *testing.B) {
	for b.Loop() {
	}
	b.ReportMetric(float64(heapOf(func() any { return New(120, 40, 2000) })), "idle-B")
	b.ReportMetric(float64(heapOf(func() any { return fullScreen() })), "full-B")
	b.ReportMetric(float64(heapOf(func() any {
		e := vt.NewEmulator(120, 40)
		e.SetScrollbackSize(2000)
		return e
	})), "xvt-idle-B")
}

// heapOf returns how much live heap the value made by f holds.
func heapOf(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}
