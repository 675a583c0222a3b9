package screen

// recentIndex finds the last entry added under a hash: a direct-mapped
// cache, one slot for each hash's low bits, in front of no other index. The
// styles and clusters are numbered through one rather than interned: a
// stream that makes a new entry per cell (an image, a cluster per cell)
// then costs no more than a slot's store per entry, where a hash index of
// every entry outgrows the cache and costs misses on every lookup, insert
// and rebuild. What repeats (an application's few styles, an accent) is
// found in its slot and shares one entry; an entry whose slot another took
// meanwhile is added again, under a new number. Such duplicates cost only
// memory, which the next compaction takes back with the rest no cell
// refers to: a table holds at most twice its live entries and the slack,
// duplicates included.
type recentIndex struct {
	// slots hold hash<<32 | id+1, 0 for none. They are made with the first
	// entry (most screens, an idle shell's, never add one) and grow with
	// the entries put, up to maxRecentSlots: a prompt's few colours take
	// minRecentSlots.
	slots []uint64
	puts  int
}

const (
	minRecentSlots = 64   // 512 bytes
	maxRecentSlots = 2048 // 16 KiB, which stays in cache
)

// get returns the entry last put under h, if its slot still holds it.
func (r *recentIndex) get(h uint32) (int32, bool) {
	if len(r.slots) == 0 {
		return 0, false
	}
	sl := r.slots[h&uint32(len(r.slots)-1)]
	if sl == 0 || uint32(sl>>32) != h {
		return 0, false
	}
	return int32(uint32(sl) - 1), true
}

// put records id as the entry of hash h.
func (r *recentIndex) put(h uint32, id int32) {
	if r.puts++; r.puts*2 > len(r.slots) && len(r.slots) < maxRecentSlots {
		r.grow()
	}
	r.slots[h&uint32(len(r.slots)-1)] = uint64(h)<<32 | uint64(uint32(id)+1)
}

// grow doubles the slots, keeping what they hold.
func (r *recentIndex) grow() {
	old := r.slots
	r.slots = make([]uint64, max(minRecentSlots, 2*len(old)))
	for _, sl := range old {
		if sl != 0 {
			r.slots[uint32(sl>>32)&uint32(len(r.slots)-1)] = sl
		}
	}
}

// renumber gives the entries a compaction keeps their new numbers
// (newID(id) < 0: dropped).
func (r *recentIndex) renumber(newID func(id int32) int32) {
	for i, sl := range r.slots {
		if sl == 0 {
			continue
		}
		r.slots[i] = 0
		if n := newID(int32(uint32(sl) - 1)); n >= 0 {
			r.slots[i] = sl&^(1<<32-1) | uint64(uint32(n)+1)
		}
	}
}
