package screen

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Screens share their power-on tab stops and their empty cluster and link
// tables until they change them. These tests check that what one screen
// does to them is its own: another screen, made before or after, never
// sees it, and the shared ones stay as they were.

// defaultStops is the power-on stops of a screen cols wide.
func defaultStops(cols int) []bool {
	tabs := make([]bool, cols)
	for i := 8; i < cols; i += 8 {
		tabs[i] = true
	}
	return tabs
}

func TestTabStopsAreEachScreensOwn(t *testing.T) {
	pristine := slices.Clone(defaultTabs)
	before := New(40, 2, 0)
	for _, in := range []string{
		"\x1b[3g\x1b[5G\x1bH", // TBC 3, then HTS (ESC H) at column 4
		"\x1b[9G\x1b[g",       // TBC 0 at a default stop
		"\x1b[5G\x88",         // HTS as an 8-bit C1 control
	} {
		t.Run(fmt.Sprintf("%q", in), func(t *testing.T) {
			s := New(40, 2, 0)
			s.Write([]byte(in))
			if slices.Equal(s.tabs, defaultStops(40)) {
				t.Fatalf("%q left the default stops", in)
			}
			after := New(40, 2, 0)
			for name, o := range map[string]*Screen{"screen made before": before, "screen made after": after} {
				if !slices.Equal(o.tabs, defaultStops(40)) {
					t.Errorf("%s: stops changed by another screen", name)
				}
				o.Write([]byte("\r\tx"))
				if got := screenLines(o)[0]; got != "        x" {
					t.Errorf("%s: tab went to %q", name, got)
				}
				o.Write([]byte("\x1b[2J\x1b[H"))
			}
			if !slices.Equal(defaultTabs, pristine) {
				t.Fatal("the shared default stops changed")
			}
		})
	}
}

// A screen's own stops survive a resize, and new columns get the default
// ones; a screen with the default stops keeps sharing them at any width,
// and so does one reset (RIS) after changing its own.
func TestTabStopsResize(t *testing.T) {
	s := New(20, 2, 0)
	s.Write([]byte("\x1b[3g\x1b[5G\x1bH"))
	s.Resize(10, 2)
	s.Resize(30, 2)
	want := make([]bool, 30)
	want[4], want[16], want[24] = true, true, true // columns from 10 on were new
	if !slices.Equal(s.tabs, want) {
		t.Errorf("own stops after narrowing and widening: %v, want %v", s.tabs, want)
	}
	s.Write([]byte("\x1bc"))
	if !s.sharedTabs() || !slices.Equal(s.tabs, defaultStops(30)) {
		t.Errorf("after RIS: shared %v, stops %v", s.sharedTabs(), s.tabs)
	}

	d := New(20, 2, 0)
	d.Resize(10, 2)
	d.Resize(50, 2)
	if !d.sharedTabs() || !slices.Equal(d.tabs, defaultStops(50)) {
		t.Errorf("default stops after resizes: shared %v, stops %v", d.sharedTabs(), d.tabs)
	}
	d.Write([]byte("\x1b[17G\x1b[g\r\t\tx"))
	if got := screenLines(d)[0]; got != strings.Repeat(" ", 24)+"x" {
		t.Errorf("after clearing the stop at 16 of a resized screen: %q", got)
	}
	if !slices.Equal(New(50, 2, 0).tabs, defaultStops(50)) {
		t.Error("a new screen has another's stops")
	}
}

// Clusters and links, drawn, compacted and restored on one screen, leave
// the shared empty tables empty: a screen made after holds none, and
// one made before still draws and restores its own.
func TestClusterAndLinkTablesAreEachScreensOwn(t *testing.T) {
	emptyClusters, emptyLinks := snapshotTables(&noClusters), snapshotTables(&noLinks)
	before := New(40, 4, 0)
	if before.clusters != &noClusters || before.links != &noLinks {
		t.Fatal("a new screen has tables of its own")
	}

	s := New(40, 4, 100)
	s.Write([]byte("e\u0301 \x1b]8;id=1;http://a/\x1b\\link\x1b]8;;\x1b\\ n\u0303\u0304"))
	if s.clusters == &noClusters || s.links == &noLinks {
		t.Fatal("a screen that drew a cluster and a link has no tables of its own")
	}
	// Enough clusters and links over the scrollback to compact the
	// tables, some of them still on the screen.
	for i := range 3 * compactFloor {
		fmt.Fprintf(s, "\x1b]8;;http://a/%d\x1b\\l\x1b]8;;\x1b\\a%c\r\n", i, rune(0x300+i%100))
	}
	if s.compactions == 0 {
		t.Fatal("no compaction: the test does not test it")
	}
	b := New(40, 4, 100)
	b.Write(s.AppendRestore(nil))
	if d := diffModels(s, b, false); len(d) > 0 {
		t.Fatalf("restored screen differs:\n%s", joinDiffs(d))
	}

	if !reflect.DeepEqual(snapshotTables(&noClusters), emptyClusters) || !reflect.DeepEqual(snapshotTables(&noLinks), emptyLinks) {
		t.Fatal("the shared empty tables changed")
	}
	// A screen without tables of its own compacts its styles alone.
	for _, o := range []*Screen{before, New(40, 4, 0)} {
		o.Write([]byte("\x1b[31mred\x1b[m plain"))
		o.compact()
		if o.clusters != &noClusters || o.links != &noLinks {
			t.Error("a screen with no cluster or link took tables of its own")
		}
		if got := screenLines(o)[0]; got != "red plain" {
			t.Errorf("screen after compaction: %q", got)
		}
		if st := styleAt(o, 0, 0); st.link != 0 || st.fg == colorDefault {
			t.Errorf("style after compaction: %+v", st)
		}
	}
	if !reflect.DeepEqual(snapshotTables(&noClusters), emptyClusters) || !reflect.DeepEqual(snapshotTables(&noLinks), emptyLinks) {
		t.Fatal("the shared empty tables changed")
	}
}

// snapshotTables copies a table's value, slices included, to compare later.
func snapshotTables[T clusterTable | linkTable](t *T) T {
	switch v := any(*t).(type) {
	case clusterTable:
		v.data, v.ends, v.recent.slots = slices.Clone(v.data), slices.Clone(v.ends), slices.Clone(v.recent.slots)
		return any(v).(T)
	case linkTable:
		v.data, v.ends, v.hashes = slices.Clone(v.data), slices.Clone(v.ends), slices.Clone(v.hashes)
		v.index.young, v.index.slots, v.index.filter = slices.Clone(v.index.young), slices.Clone(v.index.slots), slices.Clone(v.index.filter)
		return any(v).(T)
	}
	panic("unreachable")
}
