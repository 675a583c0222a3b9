package screen

import "unicode/utf8"

// The side tables grow with the distinct styles, clusters and hyperlinks an
// application uses. A long-running session can use an unbounded number of
// them (a truecolour image makes a new style per cell), so the screen
// compacts all three now and then: it marks what the cells, the pen and the
// saved cursors still refer to and renumbers. Compaction walks every cell,
// so it must be paid for by many new entries, however many are live: a
// table is due only once it has taken as many new entries since the last
// compaction as that one kept, plus a slack (see slack). Each new entry
// then pays for a bounded share of a walk, and a table holds at most twice
// its live entries plus the slack.
const (
	maxStyles       = 1<<24 - 1 // a cell holds 24 bits of styleID
	maxLinks        = 1<<24 - 1
	maxClusters     = 1 << 24
	maxClusterBytes = 32   // combining characters past this are dropped
	maxLinkBytes    = 2048 // longer hyperlinks are ignored

	// compactFloor is the fewest new entries that pay for a compaction:
	// below it the walk would cost more than the entries.
	compactFloor = 4096
	// cellsPerEntry is how many cells a compaction walks per new entry at
	// most, on a screen whose tables hold few live entries: the slack
	// grows with the cells held.
	cellsPerEntry = 32
)

// internTable numbers the distinct values a screen uses, in the order they
// are first added. Its map is made on the first entry: most screens (an
// idle shell's) never intern anything, and an idle server holds one screen
// per session.
type internTable[K comparable, ID ~int32 | ~uint32] struct {
	list  []K
	index map[K]ID

	// kept is how many entries the last compaction kept, and added how
	// many new ones have been asked for since (including any the table was
	// too full to take): see due.
	kept, added int
}

// reset empties t, keeping reserved as its first entries; they are never
// looked up, so their indexes are only ever given out by the caller. The
// map is made for capacity entries, when there are any.
func (t *internTable[K, ID]) reset(capacity int, reserved ...K) {
	t.list = append(make([]K, 0, max(capacity, len(reserved))), reserved...)
	t.index = nil
	if capacity > 0 {
		t.index = make(map[K]ID, capacity)
	}
}

func (t *internTable[K, ID]) lookup(k K) (ID, bool) {
	id, ok := t.index[k]
	return id, ok
}

func (t *internTable[K, ID]) add(k K) ID {
	id := ID(len(t.list))
	t.list = append(t.list, k)
	if t.index == nil {
		t.index = map[K]ID{}
	}
	t.index[k] = id
	t.added++
	return id
}

// due reports whether a compaction has been paid for by the entries t has
// taken since the last one.
func (t *internTable[K, ID]) due(slack int) bool {
	return t.added >= t.kept+slack
}

// compacted records that a compaction has just left t with its live
// entries.
func (t *internTable[K, ID]) compacted() {
	t.kept, t.added = len(t.list), 0
}

// styleTable interns styles. Index 0 is always the default style.
type styleTable = internTable[style, styleID]

// clusterTable interns grapheme clusters (a base character followed by
// combining characters), which do not fit in a cell's rune.
type clusterTable = internTable[string, int32]

// linkTable interns OSC 8 hyperlinks as their "params;uri" text, which is
// exactly what a restore writes back. Index 0 means no link.
type linkTable = internTable[string, uint32]

// lookupStyle is styles.lookup with the default style, which is never in
// the map, at index 0.
func (s *Screen) lookupStyle(st style) (styleID, bool) {
	if st == (style{}) {
		return 0, true
	}
	return s.styles.lookup(st)
}

// penChanged records that s.pen is not the style penIdx numbers any more.
// The pen is interned when a cell is drawn with it (see penStyle), not
// when it changes: an image sets the foreground and the background of
// each cell with two SGR sequences, and the style between them would be
// one more new entry per cell.
func (s *Screen) penChanged() { s.penStale = true }

// penStyle returns the pen's index, interning it first if it changed. It
// is the only way a style other than a background-only one enters the
// table, which keeps compaction simple: compaction rewrites s.pen itself
// and leaves it to be interned again, so a caller never holds a stale
// style.
func (s *Screen) penStyle() styleID {
	if s.penStale {
		s.penIdx = s.internStyle(&s.pen)
		s.penStale = false
	}
	return s.penIdx
}

func (s *Screen) internStyle(st *style) styleID {
	if id, ok := s.lookupStyle(*st); ok {
		return id
	}
	if s.styles.due(s.slack()) {
		s.compact()
		if id, ok := s.lookupStyle(*st); ok {
			return id
		}
	}
	if len(s.styles.list) >= maxStyles {
		s.styles.added++ // so that a table full of live styles is compacted again in time
		return 0         // more live styles than indexes: draw in the default style
	}
	return s.styles.add(*st)
}

// eraseStyle is the style of cells that erase, scroll and insert operations
// create: the pen's background colour and nothing else. The pen is
// interned first, so that output that draws and output that only erases
// or scrolls intern the two in the same order (WriteBatch relies on it).
func (s *Screen) eraseStyle() styleID {
	s.penStyle()
	if s.pen.bg == colorDefault {
		return 0
	}
	if s.eraseValid && s.eraseBG == s.pen.bg {
		return s.eraseIdx
	}
	st := style{bg: s.pen.bg}
	s.eraseIdx = s.internStyle(&st)
	s.eraseBG, s.eraseValid = s.pen.bg, true
	return s.eraseIdx
}

func (s *Screen) blank() cell { return blankCell(s.eraseStyle()) }

// internCluster returns the cluster index of text, or -1 if the table is full
// of live clusters.
func (s *Screen) internCluster(text []byte) int32 {
	if id, ok := s.clusters.index[string(text)]; ok { // indexed directly: the conversion then does not allocate
		return id
	}
	if s.clusters.due(s.slack()) {
		s.compact()
	}
	if len(s.clusters.list) >= maxClusters {
		s.clusters.added++
		return -1
	}
	return s.clusters.add(string(text))
}

// internLink returns the link index of "params;uri", or 0 if the table is
// full of live links.
func (s *Screen) internLink(text []byte) uint32 {
	if id, ok := s.links.index[string(text)]; ok {
		return id
	}
	if s.links.due(s.slack()) {
		s.compact()
	}
	if len(s.links.list) >= maxLinks {
		s.links.added++
		return 0
	}
	return s.links.add(string(text))
}

// slack is the fewest new entries that pay for a compaction: compactFloor,
// or more on a screen holding so many cells that the walk would cost more.
func (s *Screen) slack() int {
	return max(compactFloor, s.cellsHeld/cellsPerEntry)
}

// cellText appends the characters of c (not its style) to dst.
func (s *Screen) cellText(dst []byte, c cell) []byte {
	switch {
	case c.flags&cellCluster != 0:
		return append(dst, s.clusters.list[c.r]...)
	case c.r == 0:
		return append(dst, ' ')
	default:
		return utf8.AppendRune(dst, c.r)
	}
}

// forEachLine calls f for every line the screen holds: both grids, history
// included.
func (s *Screen) forEachLine(f func(l *line)) {
	for _, g := range [2]*grid{s.primary, s.alt} {
		if g == nil {
			continue
		}
		for y := -g.history; y < g.rows; y++ {
			f(g.line(y))
		}
	}
}

// compact drops the styles, clusters and links nothing refers to any more and
// renumbers the rest.
func (s *Screen) compact() {
	s.compactions++
	usedStyle := make([]bool, len(s.styles.list))
	usedCluster := make([]bool, len(s.clusters.list))
	usedStyle[0] = true
	cells := 0
	s.forEachLine(func(l *line) {
		cells += len(l.cells)
		for _, c := range l.cells {
			usedStyle[c.style()] = true
			if c.flags&cellCluster != 0 {
				usedCluster[c.r] = true
			}
		}
	})
	s.cellsHeld = cells

	// Links: those of live styles, of the pen and of the saved cursors.
	usedLink := make([]bool, len(s.links.list))
	for i, st := range s.styles.list {
		if usedStyle[i] {
			usedLink[st.link] = true
		}
	}
	pens := []*style{&s.pen, &s.primary.saved.pen}
	if s.alt != nil {
		pens = append(pens, &s.alt.saved.pen)
	}
	for _, p := range pens {
		usedLink[p.link] = true
	}
	linkMap := make([]uint32, len(s.links.list))
	oldLinks := s.links.list
	s.links.reset(countTrue(usedLink[1:]), "")
	for i, text := range oldLinks {
		if i == 0 || !usedLink[i] {
			continue
		}
		linkMap[i] = s.links.add(text)
	}
	for _, p := range pens {
		p.link = linkMap[p.link]
	}

	styleMap := make([]styleID, len(s.styles.list))
	oldStyles := s.styles.list
	s.styles.reset(countTrue(usedStyle[1:])+1, style{}) // and the pen's
	for i, st := range oldStyles {
		if i == 0 || !usedStyle[i] {
			continue
		}
		st.link = linkMap[st.link]
		id, ok := s.lookupStyle(st)
		if !ok {
			id = s.styles.add(st)
		}
		styleMap[i] = id
	}

	clusterMap := make([]int32, len(s.clusters.list))
	oldClusters := s.clusters.list
	s.clusters.reset(countTrue(usedCluster))
	for i, text := range oldClusters {
		if !usedCluster[i] {
			continue
		}
		clusterMap[i] = s.clusters.add(text)
	}

	s.forEachLine(func(l *line) {
		for i := range l.cells {
			c := &l.cells[i]
			c.setStyle(styleMap[c.style()])
			if c.flags&cellCluster != 0 {
				c.r = clusterMap[c.r]
			}
		}
	})
	s.styles.compacted()
	s.clusters.compacted()
	s.links.compacted()
	s.eraseValid = false
	s.penChanged() // the pen may not be in the table any more
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
