package screen

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The streams of hostile_bench_test.go, 200,000 cells each, on a screen
// whose scrollback holds more cells (81,920) than a 16-bit index can
// number: more entries are live than the tables used to hold, and each
// new entry cost a compaction, a walk of every cell.
const (
	hostileCells                        = 200000
	hostileCols, hostileRows, hostileSB = 80, 24, 1000
	// maxCompactions bounds the compactions of a hostile stream: the
	// table doubles up to the live entries (log2(81,920/4,096) < 5
	// compactions), then takes at least as many new entries as are live
	// between two (2 per cell at most: 4 more), with room to spare.
	maxCompactions = 16
)

// feedHostile writes the cells of gen (first, n) a line at a time and fails
// as soon as there have been more than maxCompactions compactions.
func feedHostile(t *testing.T, s *Screen, gen func(first, n int) []byte) {
	t.Helper()
	for first := 0; first < hostileCells; first += hostileCols {
		s.Write(gen(first, hostileCols))
		if s.compactions > maxCompactions {
			t.Fatalf("%d compactions after %d cells, want at most %d in all", s.compactions, first+hostileCols, maxCompactions)
		}
	}
	t.Logf("%d compactions; %d styles, %d links, %d clusters", s.compactions, len(s.styles.list), s.links.len(), s.clusters.len())
}

// checkHostile checks every cell the screen holds with want (given the
// cell's number in the stream), that a restore reproduces the screen and
// scrollback, and that no table holds more than twice its live entries
// plus the slack.
func checkHostile(t *testing.T, s *Screen, want func(t *testing.T, n int, v cellView)) {
	t.Helper()
	g := s.primary
	if g.history != hostileSB {
		t.Fatalf("history %d", g.history)
	}
	// The stream ends with a line feed: the last of its lines is the
	// second-last row.
	last := hostileCells/hostileCols - 1
	for y := -g.history; y < s.rows-1; y++ {
		cells := rowCells(g.line(y), s.cols)
		for x := range s.cols {
			want(t, (last-(s.rows-2-y))*hostileCols+x, view(s, cells, x))
			if t.Failed() {
				t.Fatalf("cell %d,%d", x, y)
			}
		}
	}
	r := New(hostileCols, hostileRows, hostileSB)
	r.Write(s.AppendRestore(nil))
	if d := diffModels(s, r, true); len(d) > 0 {
		t.Fatalf("restore differs:\n%s", joinDiffs(d))
	}

	liveStyles, liveLinks, liveClusters := map[style]bool{}, map[string]bool{}, map[string]bool{}
	s.forEachLine(func(l *line) {
		for _, c := range l.cells() {
			st := s.styles.list[c.style()]
			liveStyles[st] = true
			liveLinks[s.links.text(int32(st.link))] = true
			if c.flags&cellCluster != 0 {
				liveClusters[s.clusters.text(c.r)] = true
			}
		}
	})
	for _, tb := range []struct {
		name       string
		held, live int
	}{
		{"styles", len(s.styles.list), len(liveStyles)},
		{"links", s.links.len(), len(liveLinks)},
		{"clusters", s.clusters.len(), len(liveClusters)},
	} {
		if tb.held > 2*tb.live+s.slack()+3 { // 3: the pen and saved pens' styles and links
			t.Errorf("%s table holds %d entries for %d live", tb.name, tb.held, tb.live)
		}
	}
}

// TestManyLiveStyles: a truecolour image (a distinct foreground and
// background per cell) larger than 65,536 cells, drawn whole, with a
// bounded number of compactions.
func TestManyLiveStyles(t *testing.T) {
	s := New(hostileCols, hostileRows, hostileSB)
	feedHostile(t, s, func(first, n int) []byte { return truecolourImage(first, n/hostileCols, hostileCols) })
	checkHostile(t, s, func(t *testing.T, n int, v cellView) {
		want := style{fg: rgbColor(n>>16&0xff, n>>8&0xff, n&0xff), bg: rgbColor(^n>>16&0xff, ^n>>8&0xff, ^n&0xff)}
		if v.text != "▀" || v.st != want {
			t.Errorf("cell %d: %v, want ▀ in %+v", n, v, want)
		}
	})
}

// TestManyLiveLinks: 200,000 cells, each its own hyperlink.
func TestManyLiveLinks(t *testing.T) {
	s := New(hostileCols, hostileRows, hostileSB)
	feedHostile(t, s, func(first, n int) []byte { return distinctLinks(first, n, hostileCols) })
	checkHostile(t, s, func(t *testing.T, n int, v cellView) {
		if want := ";https://example.com/page/" + strconv.Itoa(n); v.text != "L" || v.link != want {
			t.Errorf("cell %d: %v, want L linked to %q", n, v, want)
		}
	})
}

// TestManyLiveClusters: 200,000 cells, each its own grapheme cluster.
func TestManyLiveClusters(t *testing.T) {
	s := New(hostileCols, hostileRows, hostileSB)
	feedHostile(t, s, func(first, n int) []byte { return distinctClusters(first, n, hostileCols) })
	checkHostile(t, s, func(t *testing.T, n int, v cellView) {
		want := string(rune('a' + n%hostileCols%26))
		for k, m := 0, n; k < 3; k, m = k+1, m/112 {
			want = string(utf8.AppendRune([]byte(want), rune(0x300+m%112)))
		}
		if v.text != want {
			t.Errorf("cell %d: %v, want %q", n, v, want)
		}
	})
}

// TestFewLiveManyNew: styles that live a moment each (drawn over at once)
// compact about once per compactFloor new ones, and the table never holds
// more than the floor's worth.
func TestFewLiveManyNew(t *testing.T) {
	const n = 250000
	s := New(hostileCols, hostileRows, hostileSB)
	var b []byte
	for i := range n {
		b = fmt.Appendf(b, "\x1b[38;2;%d;%d;%dmx\b", i>>16, i>>8&0xff, i&0xff)
	}
	s.Write(b)
	if want := n/compactFloor + 1; s.compactions > want {
		t.Errorf("%d compactions, want at most %d", s.compactions, want)
	}
	if held := len(s.styles.list); held > compactFloor+3 {
		t.Errorf("style table holds %d", held)
	}
	if st := styleAt(s, 0, 0); st.fg != rgbColor(3, 208, 143) {
		t.Errorf("last cell's style %+v", st)
	}
}

// TestClusterGrowsInPlace: a cluster that one cell has just made grows as
// more combining characters join it, without touching another cell that
// holds what it was, and becomes an existing equal entry when it has grown
// into one and is closed.
func TestClusterGrowsInPlace(t *testing.T) {
	cellText := func(s *Screen, x int) string { return string(s.cellText(nil, cellAt(s, x, 0))) }
	s := New(20, 3, 10)
	// a+acute twice: the second cell finds the first's (open) cluster,
	// then grows its own.
	s.Write([]byte("a\u0301a\u0301\u0302"))
	if got, want := cellText(s, 0), "a\u0301"; got != want {
		t.Errorf("cell 0 %q, want %q", got, want)
	}
	if got, want := cellText(s, 1), "a\u0301\u0302"; got != want {
		t.Errorf("cell 1 %q, want %q", got, want)
	}
	// The same three-mark cluster twice: one entry, grown once.
	n := s.clusters.len()
	s.Write([]byte("e\u0301\u0302\u0303e\u0301\u0302\u0303"))
	s.clusters.close() // the second is looked up when it is closed
	if got := s.clusters.len() - n; got != 1 {
		t.Errorf("%d new clusters, want 1: %q", got, s.clusters.texts())
	}
	for x := 2; x < 4; x++ {
		if got, want := cellText(s, x), "e\u0301\u0302\u0303"; got != want {
			t.Errorf("cell %d %q, want %q", x, got, want)
		}
	}
	// Cells moved by an insertion: the cluster stays with its cell.
	s.Write([]byte("o\u0301\x1b[D\x1b[@\x1b[2C\u0302"))
	if got, want := cellText(s, 5), "o\u0301\u0302"; got != want {
		t.Errorf("cell 5 %q, want %q", got, want)
	}
	// A resize that copies the lines between two marks.
	s.Write([]byte("u\u0301"))
	s.Resize(40, 3)
	s.Write([]byte("\u0302"))
	if got, want := cellText(s, 6), "u\u0301\u0302"; got != want {
		t.Errorf("cell 6 %q, want %q", got, want)
	}
	r := New(40, 3, 10)
	r.Write(s.AppendRestore(nil))
	if d := diffModels(s, r, true); len(d) > 0 {
		t.Fatalf("restore differs:\n%s", joinDiffs(d))
	}
}

// TestClusterMovedBeforeClose: an open cluster equal to an indexed one,
// whose cell an insertion moves before it is closed, keeps its text
// through the close and a compaction.
func TestClusterMovedBeforeClose(t *testing.T) {
	cellText := func(s *Screen, x int) string { return string(s.cellText(nil, cellAt(s, x, 0))) }
	s := New(20, 3, 10)
	s.Write([]byte("a\u0301a\u0301\x1b[D\x1b[@b\u0301\x1b[Cc\u0302"))
	want := []string{"a\u0301", "b\u0301", "a\u0301", "c\u0302"}
	check := func(when string) {
		t.Helper()
		for x, w := range want {
			if got := cellText(s, x); got != w {
				t.Errorf("%s: cell %d %q, want %q", when, x, got, w)
			}
		}
	}
	check("written")
	s.compact()
	check("compacted")
	s.Write([]byte("\r\n" + strings.Repeat("d\u0301\u0302", 10)))
	check("more clusters")
	r := New(20, 3, 10)
	r.Write(s.AppendRestore(nil))
	if d := diffModels(s, r, true); len(d) > 0 {
		t.Fatalf("restore differs:\n%s", joinDiffs(d))
	}
}

// TestRecentIndex: the slots grow with the entries put, up to their most,
// keeping what they hold; a compaction's renumbering keeps the entries it
// keeps, under their new numbers, and forgets the others.
func TestRecentIndex(t *testing.T) {
	var r recentIndex
	hash := func(id int32) uint32 { return uint32(id) * 0x9e3779b1 }
	if _, ok := r.get(7); ok {
		t.Fatal("an empty index found an entry")
	}
	for id := range int32(10) {
		r.put(hash(id), id)
	}
	if len(r.slots) != minRecentSlots {
		t.Errorf("%d slots for 10 entries, want %d", len(r.slots), minRecentSlots)
	}
	for id := int32(10); id < 5000; id++ {
		r.put(hash(id), id)
	}
	if len(r.slots) != maxRecentSlots {
		t.Errorf("%d slots for 5,000 entries, want %d", len(r.slots), maxRecentSlots)
	}
	last := hash(4999)
	if id, ok := r.get(last); !ok || id != 4999 {
		t.Errorf("get(last) = %d, %v", id, ok)
	}
	r.renumber(func(id int32) int32 {
		if id%2 == 0 {
			return -1
		}
		return id / 2
	})
	if id, ok := r.get(last); !ok || id != 2499 {
		t.Errorf("after renumbering: get(last) = %d, %v, want 2499", id, ok)
	}
	if _, ok := r.get(hash(4998)); ok {
		t.Error("a dropped entry is still found")
	}
}

// TestStylesShared: a style used again and again keeps its one number,
// however many other styles come between.
func TestStylesShared(t *testing.T) {
	s := New(80, 24, 100)
	for i := range 1000 {
		fmt.Fprintf(s, "\x1b[31mred\x1b[38;2;%d;%d;1mx\x1b[m", i>>8, i&0xff)
	}
	red, n := styleID(0), 0
	s.forEachLine(func(l *line) {
		for _, c := range l.cells() {
			if c.r == 'r' {
				if n == 0 {
					red = c.style()
				}
				if c.style() != red {
					t.Fatalf("red cells in styles %d and %d", red, c.style())
				}
				n++
			}
		}
	})
	if n == 0 {
		t.Fatal("no red cell")
	}
}
