package screen

import (
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// clusterTable numbers the grapheme clusters (a base character followed by
// combining characters) the cells hold, which do not fit in a cell's rune.
// Their bytes are kept end to end in one arena, which holds no pointers.
//
// A cluster is never looked up by its text (a restore writes each cell's
// own), so sharing one entry between the cells of equal clusters only saves
// memory: a new cluster is numbered through a recentIndex, which shares
// what repeats nearby and costs a stream of distinct clusters no index.
//
// A grapheme cluster is built a character at a time, and only the whole of
// it is ever shown, so a new cluster is left open: the last entry, referred
// to by one cell, openCell, to which the next combining character adds
// itself in place (see grow) rather than making one more entry. It is
// compared with the recent ones only when it is closed (see close). Cells
// are moved (by insertions and deletions, in place) but never copied, and a
// cell that holds the open entry at openCell's address is the one combine
// made it for: no other cell refers to it. (A Resize that copies cells to
// new lines closes it first.)
type clusterTable struct {
	data []byte
	ends []uint32 // entry i is data[ends[i-1]:ends[i]] (from 0 for the first)

	open int32 // the open entry, or -1
	// openCell is the open entry's cell; it is left as it is when the
	// entry is closed (open says it is not open): storing a pointer costs
	// a write barrier while the collector marks.
	openCell *cell
	recent   recentIndex // the clusters closed last
	entryCounts
}

// reset empties t, with room for capacity entries.
func (t *clusterTable) reset(capacity int) {
	*t = clusterTable{open: -1}
	if capacity > 0 {
		t.ends = make([]uint32, 0, capacity)
	}
}

func (t *clusterTable) len() int { return len(t.ends) }

// bytes returns entry id. The caller must not append to it.
func (t *clusterTable) bytes(id int32) []byte {
	start := uint32(0)
	if id > 0 {
		start = t.ends[id-1]
	}
	end := t.ends[id]
	return t.data[start:end:end]
}

// text returns entry id as a string, for tests.
func (t *clusterTable) text(id int32) string { return string(t.bytes(id)) }

// texts returns every entry, for tests.
func (t *clusterTable) texts() []string {
	out := make([]string, t.len())
	for i := range out {
		out[i] = t.text(int32(i))
	}
	return out
}

// findRecent returns the recent cluster equal to b, whose hash is h.
func (t *clusterTable) findRecent(b []byte, h uint32) (int32, bool) {
	id, ok := t.recent.get(h)
	return id, ok && string(t.bytes(id)) == string(b)
}

// close ends the open entry, if any, and returns its number. If a recent
// cluster is equal to it, close drops it, its cell made to refer to the
// recent one, and returns that one's number.
func (t *clusterTable) close() int32 {
	id := t.open
	if id < 0 {
		return id
	}
	c := t.openCell
	t.open = -1
	text := t.bytes(id)
	h := hashCluster(text)
	if other, ok := t.findRecent(text, h); ok && c != nil && c.flags&cellCluster != 0 && c.r == id {
		t.data = t.data[:t.ends[id]-uint32(len(text))]
		t.ends = t.ends[:id]
		t.added--
		c.r = other
		return other
	}
	t.recent.put(h, id)
	return id
}

// addPair appends the cluster of base and r, left open for cell c, which
// the caller makes refer to it: what add(base and r encoded) does, without
// encoding them twice.
func (t *clusterTable) addPair(base, r rune, c *cell) int32 {
	t.close()
	id := int32(len(t.ends))
	t.appendRune(base)
	t.appendRune(r)
	t.ends = append(t.ends, uint32(len(t.data)))
	t.open = id
	if t.openCell != c {
		t.openCell = c
	}
	t.added++
	return id
}

// add appends b, left open for cell c, which the caller makes refer to it.
func (t *clusterTable) add(b []byte, c *cell) int32 {
	t.close()
	id := int32(len(t.ends))
	t.data = append(t.data, b...)
	t.ends = append(t.ends, uint32(len(t.data)))
	t.open = id
	if t.openCell != c {
		t.openCell = c
	}
	t.added++
	return id
}

// openLen is the open entry's length in bytes.
func (t *clusterTable) openLen() int {
	start := uint32(0)
	if t.open > 0 {
		start = t.ends[t.open-1]
	}
	return len(t.data) - int(start)
}

// growable reports whether c refers to the open entry, and only c does.
func (t *clusterTable) growable(c *cell) bool {
	return c == t.openCell && t.open >= 0 && c.flags&cellCluster != 0 && c.r == t.open
}

// fits reports whether n more bytes fit in the arena, whose offsets are 32
// bits.
func (t *clusterTable) fits(n int) bool { return len(t.data)+n <= math.MaxUint32 }

// grow appends r to the open entry, which only growable's cell refers to.
func (t *clusterTable) grow(r rune) {
	t.appendRune(r)
	t.ends[t.open] = uint32(len(t.data))
}

// appendRune appends r to the arena. The arena's slice is only resliced
// in place when it has room, which stores no pointer: a cluster per cell
// would otherwise cost a write barrier for each character while the
// collector marks.
func (t *clusterTable) appendRune(r rune) {
	n := len(t.data)
	if cap(t.data)-n < utf8.UTFMax {
		t.data = append(t.data, make([]byte, utf8.UTFMax)...)[:n]
	}
	d := t.data[n : n+utf8.UTFMax]
	switch {
	case r < 0x80:
		d[0] = byte(r)
		t.data = t.data[:n+1]
		return
	case r < 0x800: // the commonest combining marks
		d[0], d[1] = byte(0xc0|r>>6), byte(0x80|r&0x3f)
		t.data = t.data[:n+2]
		return
	}
	t.data = t.data[:n+utf8.EncodeRune(d, r)]
}

// compact keeps the entries used marks, renumbered in order, and returns
// their new numbers (-1: dropped). The caller has closed the open entry
// first. slack is the new entries the table takes past as many again as it
// keeps before the next compaction is due.
func (t *clusterTable) compact(used []bool, slack int) []int32 {
	old := *t
	newIDs := make([]int32, old.len())
	live, liveBytes := 0, 0
	for i := range newIDs {
		if used[i] {
			live++
			liveBytes += len(old.bytes(int32(i)))
		}
	}
	// Room for as many again and the slack: the table takes that many new
	// entries before the next compaction, unless the screen goes quiet,
	// and growing the arrays on the way would copy them.
	t.data = make([]byte, 0, 2*liveBytes+slack*(liveBytes/max(live, 1)+1))
	t.ends = make([]uint32, 0, 2*live+slack)
	// The entries kept come in runs (the oldest are dropped first): their
	// bytes are copied a run at a time, and their ends moved down by the
	// bytes dropped before them.
	dropped, runStart := uint32(0), uint32(0)
	start := uint32(0)
	for i, end := range old.ends {
		if !used[i] {
			newIDs[i] = -1
			if start > runStart {
				t.data = append(t.data, old.data[runStart:start]...)
			}
			dropped += end - start
			runStart = end
		} else {
			newIDs[i] = int32(len(t.ends))
			t.ends = append(t.ends, end-dropped)
		}
		start = end
	}
	t.data = append(t.data, old.data[runStart:start]...)
	t.recent.renumber(func(id int32) int32 { return newIDs[id] })
	t.compacted(live)
	return newIDs
}

// roomFor reports whether t takes a new entry of up to n bytes with no
// compaction first, given the screen's slack.
func (t *clusterTable) roomFor(slack, n int) bool {
	return !t.due(slack) && t.len() < maxClusters && t.fits(n)
}

// internCluster returns the cluster number of text for cell c, or -1 if the
// table is full. The cluster is left open (see clusterTable.grow), c the
// only cell that refers to it, and only compared with the recent ones when
// it is closed, which may change c's number to an equal entry's.
func (s *Screen) internCluster(text []byte, c *cell) int32 {
	s.ownClusters()
	if s.clusters.due(s.slack()) {
		s.compact()
	}
	if s.clusters.len() >= maxClusters || !s.clusters.fits(len(text)) {
		s.clusters.close()
		if id, ok := s.clusters.findRecent(text, hashCluster(text)); ok {
			return id
		}
		s.clusters.added++
		return -1
	}
	return s.clusters.add(text, c)
}

// hashCluster is b's hash for recent: wyhash's for up to 16 bytes (most
// clusters), hashBytes past them. It needs no seed: a collision only loses
// a cluster's sharing, which costs no more than a distinct cluster does.
func hashCluster(b []byte) uint32 {
	n := len(b)
	var a, c uint64
	switch {
	case n > 16:
		return hashBytes(b)
	case n >= 4:
		q := n >> 3 << 2
		a = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
		c = uint64(binary.LittleEndian.Uint32(b[q:]))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4-q:]))
	case n > 0:
		a = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	h := mix(a^0xa0761d6478bd642f, c^0xe7037ed1a0b428db^uint64(n))
	return uint32(h) ^ uint32(h>>32)
}
