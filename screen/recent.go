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
	// entry: most screens (an idle shell's) never add one.
	slots *[recentSlots]uint64
}

// recentSlots is 16 KiB of slots, which stay in cache.
const recentSlots = 2048

// get returns the entry last put under h, if its slot still holds it.
func (r *recentIndex) get(h uint32) (int32, bool) {
	if r.slots == nil {
		return 0, false
	}
	sl := r.slots[h&(recentSlots-1)]
	if sl == 0 || uint32(sl>>32) != h {
		return 0, false
	}
	return int32(uint32(sl) - 1), true
}

// put records id as the entry of hash h.
func (r *recentIndex) put(h uint32, id int32) {
	if r.slots == nil {
		r.slots = new([recentSlots]uint64)
	}
	r.slots[h&(recentSlots-1)] = uint64(h)<<32 | uint64(uint32(id)+1)
}

// renumber gives the entries a compaction keeps their new numbers
// (newID(id) < 0: dropped).
func (r *recentIndex) renumber(newID func(id int32) int32) {
	if r.slots == nil {
		return
	}
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
