package screen

import (
	"hash/maphash"
	"math"
	"math/bits"
	"unicode/utf8"
)

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

// The links are indexed with hashIndex (the styles and clusters only
// through a recentIndex), an open-addressing hash table of their own
// rather than a Go map: a map keyed by strings holds a string (an
// allocation, and pointers for the collector to scan) per entry. An
// index slot holds an entry's 32-bit hash and its number, so a probe
// compares entries only when the hashes match. The slots are made on the
// first entry: most screens (an idle shell's) never intern anything, and
// an idle server holds one screen per session.
//
// A stream that makes an entry per cell (a link per cell) makes the
// index far larger than the cache, and a new entry then costs a cache
// miss to look up and another to insert, each waiting on memory while
// nothing else runs. So new entries go to a small young index, which
// stays in cache, and move to the main one a few thousand at a time, in a
// loop whose misses overlap; a filter answers most lookups of entries the
// main index does not hold without a probe.
type hashIndex struct {
	young  []uint64 // 0: empty; else hash<<32 | id+1
	nYoung int
	slots  []uint64 // the main index, as young
	n      int
	// filter has two bits set in one word for each hash in slots (4
	// bits per slot, from the hash's other bits): small enough to stay
	// in cache when the slots are not.
	filter      []uint64
	filterShift uint8
}

const (
	minIndexSlots = 64
	youngSlots    = 2048 // the young index's largest size: 16 KiB
)

// reset empties x, making it room for capacity entries.
func (x *hashIndex) reset(capacity int) {
	*x = hashIndex{}
	if capacity*4 > youngSlots*3 {
		x.makeMain(indexSize(capacity))
	}
}

func (x *hashIndex) makeMain(size int) {
	x.slots = make([]uint64, size)
	x.filter = make([]uint64, size/16)
	x.filterShift = uint8(32 - bits.TrailingZeros(uint(size/16)))
}

func (x *hashIndex) filterBits(h uint32) (word uint32, bits uint64) {
	g := h * 0x85ebca6b
	return (h * 0x9e3779b1) >> x.filterShift, 1<<(g>>26) | 1<<(g>>20&63)
}

// mayHold reports whether the main index may hold an entry with hash h.
func (x *hashIndex) mayHold(h uint32) bool {
	if len(x.filter) == 0 {
		return false
	}
	w, b := x.filterBits(h)
	return x.filter[w]&b == b
}

// next returns the next id in slots from *i on whose hash is h, or false
// at the first empty slot. Start with *i = h&(len(slots)-1).
func next(slots []uint64, h uint32, i *uint32) (int32, bool) {
	mask := uint32(len(slots) - 1)
	for {
		sl := slots[*i]
		*i = (*i + 1) & mask
		if sl == 0 {
			return 0, false
		}
		if uint32(sl>>32) == h {
			return int32(uint32(sl) - 1), true
		}
	}
}

// indexSize is the slots for n entries: a power of two, at most 3/4 full.
func indexSize(n int) int {
	size := minIndexSlots
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

func putSlot(slots []uint64, sl uint64) {
	mask := uint32(len(slots) - 1)
	i := uint32(sl>>32) & mask
	for slots[i] != 0 {
		i = (i + 1) & mask
	}
	slots[i] = sl
}

// insert indexes id under hash h. The caller has checked that no equal
// entry is indexed.
func (x *hashIndex) insert(h uint32, id int32) {
	if (x.nYoung+1)*4 > len(x.young)*3 {
		if len(x.young) < youngSlots {
			old := x.young
			x.young = make([]uint64, max(minIndexSlots, 2*len(old)))
			for _, sl := range old {
				if sl != 0 {
					putSlot(x.young, sl)
				}
			}
		} else {
			x.flush()
		}
	}
	putSlot(x.young, uint64(h)<<32|uint64(uint32(id)+1))
	x.nYoung++
}

// flush moves the young entries to the main index.
func (x *hashIndex) flush() {
	if (x.n+x.nYoung)*4 > len(x.slots)*3 {
		old := x.slots
		x.makeMain(indexSize(x.n + x.nYoung))
		for _, sl := range old {
			if sl != 0 {
				x.putMain(sl)
			}
		}
	}
	for _, sl := range x.young {
		if sl != 0 {
			x.putMain(sl)
		}
	}
	x.n += x.nYoung
	clear(x.young)
	x.nYoung = 0
}

func (x *hashIndex) putMain(sl uint64) {
	putSlot(x.slots, sl)
	w, b := x.filterBits(uint32(sl >> 32))
	x.filter[w] |= b
}

// rebuild makes x, with room for capacity entries, index the entries old
// indexed that newID keeps, under their new numbers and hashes. Taken in
// old's slot order, they go to the new slots nearly in order: inserted by
// number, each would be a cache miss.
func (x *hashIndex) rebuild(old *hashIndex, capacity int, newID func(id int32, h uint32) (int32, uint32, bool)) {
	x.reset(capacity)
	for _, slots := range [2][]uint64{old.slots, old.young} {
		for _, sl := range slots {
			if sl == 0 {
				continue
			}
			id, h, ok := newID(int32(uint32(sl)-1), uint32(sl>>32))
			switch {
			case !ok:
			case (x.n+1)*4 <= len(x.slots)*3:
				x.putMain(uint64(h)<<32 | uint64(uint32(id)+1))
				x.n++
			default:
				x.insert(h, id)
			}
		}
	}
}

// entryCounts are a table's compaction bookkeeping: kept is how many
// entries the last compaction kept, and added how many new ones have been
// asked for since (including any the table was too full to take): see due.
type entryCounts struct{ kept, added int }

// due reports whether a compaction has been paid for by the entries the
// table has taken since the last one.
func (c *entryCounts) due(slack int) bool {
	return c.added >= c.kept+slack
}

// compacted records that a compaction has just left the table with n live
// entries.
func (c *entryCounts) compacted(n int) { c.kept, c.added = n, 0 }

// styleTable numbers the styles a screen uses, in the order they are first
// added, through a recentIndex: two cells of equal styles mostly share one
// number, but may not (the painters compare the styles, not only their
// numbers). Index 0 is always the default style, which is never looked up.
type styleTable struct {
	list   []style
	recent recentIndex
	entryCounts
}

// reset empties t, with room for capacity entries, and adds reserved
// entries (the default style), which are never looked up.
func (t *styleTable) reset(capacity int, reserved ...style) {
	t.list = append(make([]style, 0, max(capacity, len(reserved))), reserved...)
	t.recent = recentIndex{}
}

// hash mixes the style's 20 bytes (wyhash's multiply-fold).
// The link enters as its text's hash, linkHash, rather than its number,
// which a compaction changes: the styles' hashes then stay as they are.
func (st *style) hash(linkHash uint32) uint32 {
	a := uint64(st.fg) | uint64(st.bg)<<32
	b := uint64(st.ul) | uint64(st.attrs)<<32 | uint64(st.underline)<<48 | uint64(st.pad)<<56
	h := mix(a^0xa0761d6478bd642f, b^0xe7037ed1a0b428db)
	h = mix(h^uint64(linkHash), 0x8ebc6af09c88c6e3)
	return uint32(h) ^ uint32(h>>32)
}

// styleHash is st's hash.
func (s *Screen) styleHash(st *style) uint32 {
	if st.link == 0 {
		return st.hash(0)
	}
	return st.hash(s.links.hashes[st.link])
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// lookup finds st, whose hash is h, if it is the last style added under h.
func (t *styleTable) lookup(st *style, h uint32) (styleID, bool) {
	id, ok := t.recent.get(h)
	if ok && t.list[id] == *st {
		return styleID(id), true
	}
	return 0, false
}

// add appends st, which the caller has looked up, under hash h.
func (t *styleTable) add(st *style, h uint32) styleID {
	id := styleID(len(t.list))
	t.list = append(t.list, *st)
	t.recent.put(h, int32(id))
	t.added++
	return id
}

// byteTable numbers distinct byte strings (links) in the order they are
// first added. Their bytes are kept end to end in one arena, which holds no
// pointers.
type byteTable struct {
	data   []byte
	ends   []uint32 // entry i is data[ends[i-1]:ends[i]] (from 0 for the first)
	hashes []uint32 // entry i's hash
	index  hashIndex
	entryCounts
}

var tableSeed = maphash.MakeSeed()

func hashBytes(b []byte) uint32 {
	h := maphash.Bytes(tableSeed, b)
	return uint32(h) ^ uint32(h>>32)
}

// reset empties t, with room for capacity entries, and adds reserved
// entries, which are never looked up: their indexes are only ever given
// out by the caller.
func (t *byteTable) reset(capacity int, reserved ...string) {
	t.data, t.ends, t.hashes = nil, nil, nil
	if capacity > 0 {
		t.ends = make([]uint32, 0, capacity+len(reserved))
		t.hashes = make([]uint32, 0, capacity+len(reserved))
	}
	for _, r := range reserved {
		t.data = append(t.data, r...)
		t.ends = append(t.ends, uint32(len(t.data)))
		t.hashes = append(t.hashes, 0)
	}
	t.index.reset(capacity)
}

func (t *byteTable) len() int { return len(t.ends) }

// bytes returns entry id. The caller must not append to it.
func (t *byteTable) bytes(id int32) []byte {
	start := uint32(0)
	if id > 0 {
		start = t.ends[id-1]
	}
	end := t.ends[id]
	return t.data[start:end:end]
}

// text returns entry id as a string, for tests.
func (t *byteTable) text(id int32) string { return string(t.bytes(id)) }

// texts returns every entry, for tests.
func (t *byteTable) texts() []string {
	out := make([]string, t.len())
	for i := range out {
		out[i] = t.text(int32(i))
	}
	return out
}

// lookup finds b, whose hash is h, among the entries.
func (t *byteTable) lookup(b []byte, h uint32) (int32, bool) {
	x := &t.index
	if len(x.young) > 0 {
		for i := h & uint32(len(x.young)-1); ; {
			id, ok := next(x.young, h, &i)
			if !ok {
				break
			}
			if string(t.bytes(id)) == string(b) {
				return id, true
			}
		}
	}
	if x.mayHold(h) {
		for i := h & uint32(len(x.slots)-1); ; {
			id, ok := next(x.slots, h, &i)
			if !ok {
				break
			}
			if string(t.bytes(id)) == string(b) {
				return id, true
			}
		}
	}
	return 0, false
}

// add appends b, which the caller has looked up, under hash h.
func (t *byteTable) add(b []byte, h uint32) int32 {
	id := int32(len(t.ends))
	t.data = append(t.data, b...)
	t.ends = append(t.ends, uint32(len(t.data)))
	t.hashes = append(t.hashes, h)
	t.index.insert(h, id)
	t.added++
	return id
}

// fits reports whether n more bytes fit in the arena, whose offsets are 32
// bits.
func (t *byteTable) fits(n int) bool { return len(t.data)+n <= math.MaxUint32 }

// compact keeps the first reserved entries and those used marks,
// renumbered in order, and returns their new numbers (-1: dropped).
// slack is the new entries
// the table takes past as many again as it keeps before the next
// compaction is due.
func (t *byteTable) compact(used []bool, reserved, slack int) []int32 {
	old := *t
	newIDs := make([]int32, old.len())
	live, liveBytes := 0, 0
	for i := range newIDs {
		if i < reserved || used[i] {
			live++
			liveBytes += len(old.bytes(int32(i)))
		}
	}
	// Room for as many again and the slack: the table takes that many new
	// entries before the next compaction, unless the screen goes quiet,
	// and growing the arrays on the way would copy them.
	t.data = make([]byte, 0, 2*liveBytes+slack*(liveBytes/max(live, 1)+1))
	t.ends = make([]uint32, 0, 2*live+slack)
	t.hashes = make([]uint32, 0, 2*live+slack)
	for i := range newIDs {
		newIDs[i] = -1
		if i < reserved || used[i] {
			newIDs[i] = int32(len(t.ends))
			t.data = append(t.data, old.bytes(int32(i))...)
			t.ends = append(t.ends, uint32(len(t.data)))
			t.hashes = append(t.hashes, old.hashes[i])
		}
	}
	t.index.rebuild(&old.index, 2*(live-reserved)+slack, func(id int32, h uint32) (int32, uint32, bool) {
		return newIDs[id], h, newIDs[id] >= 0
	})
	t.compacted(live)
	return newIDs
}

// linkTable interns OSC 8 hyperlinks as their "params;uri" text, which is
// exactly what a restore writes back. Index 0 means no link.
type linkTable = byteTable

// lookupStyle is styles.lookup with the default style, which is never in
// the map, at index 0.
func (s *Screen) lookupStyle(st style) (styleID, bool) {
	if st == (style{}) {
		return 0, true
	}
	return s.styles.lookup(&st, s.styleHash(&st))
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
	if *st == (style{}) {
		return 0
	}
	h := s.styleHash(st)
	if id, ok := s.styles.lookup(st, h); ok {
		return id
	}
	if s.styles.due(s.slack()) {
		s.compact()
		if id, ok := s.styles.lookup(st, h); ok {
			return id
		}
	}
	if len(s.styles.list) >= maxStyles {
		s.styles.added++ // so that a table full of live styles is compacted again in time
		return 0         // more live styles than indexes: draw in the default style
	}
	return s.styles.add(st, h)
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

// internLink returns the link index of "params;uri", or 0 if the table is
// full of live links.
func (s *Screen) internLink(text []byte) uint32 {
	h := hashBytes(text)
	if id, ok := s.links.lookup(text, h); ok {
		return uint32(id)
	}
	s.ownLinks()
	if s.links.due(s.slack()) {
		s.compact()
	}
	if s.links.len() >= maxLinks || !s.links.fits(len(text)) {
		s.links.added++
		return 0
	}
	return uint32(s.links.add(text, h))
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
		return append(dst, s.clusters.bytes(c.r)...)
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
	s.clusters.close()
	usedStyle := make([]bool, len(s.styles.list))
	usedCluster := make([]bool, s.clusters.len())
	usedStyle[0] = true
	cells := 0
	s.forEachLine(func(l *line) {
		// A line's width, not its length: how far a line holds cells
		// depends on how its output was cut into writes (WriteBatch
		// skips what scrolls away), and so when the next compaction
		// comes must not.
		held := l.cells()
		if cap(held) > 0 {
			cells += s.cols
		}
		for _, c := range held {
			usedStyle[c.style()] = true
			if c.flags&cellCluster != 0 {
				usedCluster[c.r] = true
			}
		}
	})
	s.cellsHeld = cells

	// Links: those of live styles, of the pen and of the saved cursors.
	usedLink := make([]bool, s.links.len())
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
	slack := s.slack()
	// The shared empty tables are not compacted: there is nothing to drop,
	// and they are not this screen's to change.
	var linkMap []int32 // nil: no link but "no link", numbered as it was
	if s.links != &noLinks {
		linkMap = s.links.compact(usedLink, 1, slack) // and the reserved "no link"
		for _, p := range pens {
			p.link = uint32(linkMap[p.link])
		}
	}

	styleMap := make([]styleID, len(s.styles.list))
	old := s.styles
	live := countTrue(usedStyle)
	s.styles.list = append(make([]style, 0, 2*live+slack), style{}) // and the pen's
	for i, st := range old.list {
		if i == 0 || !usedStyle[i] {
			continue
		}
		styleMap[i] = styleID(len(s.styles.list))
		if linkMap != nil {
			st.link = uint32(linkMap[st.link])
		}
		s.styles.list = append(s.styles.list, st)
	}
	// styleMap holds 0 for the styles dropped: the default style is not
	// in the index.
	s.styles.recent.renumber(func(id int32) int32 {
		if n := styleMap[id]; n != 0 {
			return int32(n)
		}
		return -1
	})

	var clusterMap []int32 // no cell holds a cluster while the table is the shared one
	if s.clusters != &noClusters {
		clusterMap = s.clusters.compact(usedCluster, slack)
	}

	s.forEachLine(func(l *line) {
		cells := l.cells()
		for i := range cells {
			c := &cells[i]
			c.setStyle(styleMap[c.style()])
			if c.flags&cellCluster != 0 {
				c.r = clusterMap[c.r]
			}
		}
	})
	s.styles.compacted(len(s.styles.list))
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
