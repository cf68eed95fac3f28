package snap

import (
	"math/bits"
	"slices"
)

// keySetSize is the number of slots of the Builder's open-addressing key set
// (a power of two, more than twice MaxItems).
const keySetSize = 4096

// Builder collects the items of one snapshot. It enforces MaxItems and
// MaxSnapshotSize and reports every refusal to its caller as an error
// instead of dropping the item silently. The zero value is ready to use; a
// Builder reuses its memory across Reset calls, so building does not
// allocate in steady state.
type Builder struct {
	// Sizes, when set, makes NewItem refuse items of a type with a static
	// size (SizeTable) whose size differs from it (ErrSizeMismatch): a
	// receiver could not decode them.
	Sizes *SizeTable

	keys []uint32 // insertion order
	// offs[i] is where item i starts in data and offs[i+1] where it ends
	// (the items lie end to end); offs[0] is 0 once the builder is used.
	offs  []int32
	data  []int32 // fixed capacity MaxWords, never reallocated
	words int

	set [keySetSize]uint64 // gen<<32 | key; a slot is empty unless gen matches
	gen uint32
	// inSet is how many of keys (a prefix) are in set. A key above every
	// earlier one cannot repeat one, so it is appended without the set;
	// the set is filled up to date only when a key comes below one.
	inSet int
	max   uint32 // the largest key so far
	// tail is where the items that each came above every earlier key
	// begin: from there on they are in key order and above all items
	// before, so Finish sorts only those before and copies the tail as
	// it is (a world that builds in key order has tail 0).
	tail int

	order []uint64 // scratch for Finish: key<<32 | insertion index
	merge []uint64 // scratch for sortRuns
	runs  []int32  // scratch for sortRuns: the end of each run
}

// Reset discards all items, keeping the buffers.
func (b *Builder) Reset() {
	b.keys = b.keys[:0]
	b.offs = append(b.offs[:0], 0)
	b.words = 0
	b.inSet, b.tail = 0, 0
	b.gen++
	if b.gen == 0 { // wrapped: old stamps could match again
		clear(b.set[:])
		b.gen = 1
	}
}

// NumItems returns the number of items added since the last Reset.
func (b *Builder) NumItems() int { return len(b.keys) }

// Size returns the serialized size in bytes of the snapshot built so far.
func (b *Builder) Size() int { return serializedSize(len(b.keys), b.words) }

// NewItem adds an item of the given type, id and size (in ints) and returns
// its zeroed data to fill. The slice stays valid until the next Reset. It
// fails with ErrTooManyItems or ErrSnapTooLarge when the item would break
// the snapshot limits, ErrDuplicateKey when the key was already added,
// ErrBadKey for a type above MaxType, ErrNegativeSize for size < 0, and
// ErrSizeMismatch when Sizes is set and the type's static size differs.
// A refused item leaves the builder unchanged.
func (b *Builder) NewItem(typ, id uint16, size int) ([]int32, error) {
	if b.gen == 0 { // the zero value's first item
		b.gen = 1
		b.offs = append(b.offs[:0], 0)
	}
	if typ > MaxType {
		return nil, ErrBadKey
	}
	if size < 0 {
		return nil, ErrNegativeSize
	}
	if !b.sizeOK(typ, size) {
		return nil, ErrSizeMismatch
	}
	if size > MaxWords {
		return nil, ErrSnapTooLarge
	}
	if err := fits(len(b.keys)+1, b.words+size); err != nil {
		return nil, err
	}
	key := Key(typ, id)
	n := len(b.keys)
	if n == 0 || key > b.max {
		b.max = key // above every earlier key: no duplicate, no set
	} else {
		for _, k := range b.keys[b.inSet:] { // unique: none of them is in set yet
			slot, _ := b.lookup(k)
			b.set[slot] = b.stamp(k)
		}
		slot, dup := b.lookup(key)
		if dup {
			b.inSet = n
			return nil, ErrDuplicateKey
		}
		b.set[slot] = b.stamp(key)
		b.inSet = n + 1
		b.tail = n + 1
	}
	if b.data == nil {
		b.data = make([]int32, MaxWords)
	}
	start := b.words
	b.keys = append(b.keys, key)
	b.words += size
	b.offs = append(b.offs, int32(b.words))
	d := b.data[start : start+size : start+size]
	clear(d)
	return d, nil
}

// NewItems adds an item of type typ and the given size for each id in the
// set ids (bit i for id i), in ascending id order, and returns their data
// end to end, zeroed. It adds exactly what one NewItem per id would: when
// one is refused, the items before it stay, their data is returned and so
// is the refusal. A run whose keys all come above the builder's largest
// key (a world building in key order) costs one check and one copy of the
// keys instead of one NewItem per item.
func (b *Builder) NewItems(typ uint16, ids uint64, size int) ([]int32, error) {
	n := bits.OnesCount64(ids)
	if n == 0 {
		return nil, nil
	}
	first := Key(typ, uint16(bits.TrailingZeros64(ids)))
	if b.gen == 0 || b.data == nil || typ > MaxType || size < 0 || size > MaxWords ||
		(len(b.keys) > 0 && first <= b.max) || !b.sizeOK(typ, size) ||
		fits(len(b.keys)+n, b.words+n*size) != nil {
		start := b.words
		for m := ids; m != 0; m &= m - 1 {
			if _, err := b.NewItem(typ, uint16(bits.TrailingZeros64(m)), size); err != nil {
				return b.data[start:b.words:b.words], err
			}
		}
		return b.data[start:b.words:b.words], nil
	}
	start := b.words
	for m := ids; m != 0; m &= m - 1 {
		b.max = Key(typ, uint16(bits.TrailingZeros64(m)))
		b.keys = append(b.keys, b.max)
		b.words += size
		b.offs = append(b.offs, int32(b.words))
	}
	d := b.data[start:b.words:b.words]
	clear(d)
	return d, nil
}

// sizeOK reports whether Sizes allows an item of type typ and size.
func (b *Builder) sizeOK(typ uint16, size int) bool {
	if b.Sizes == nil {
		return true
	}
	s, ok := b.Sizes.Static(int32(typ))
	return !ok || s == size
}

// stamp is the key set's entry for key in the current build.
func (b *Builder) stamp(key uint32) uint64 { return uint64(b.gen)<<32 | uint64(key) }

// lookup finds key in the key set: the slot holding it (dup = true) or the
// empty slot where it belongs.
func (b *Builder) lookup(key uint32) (slot int, dup bool) {
	h := key * 0x9e3779b1
	i := int(h >> 20) // 12 bits: keySetSize = 4096
	for {
		e := b.set[i]
		if uint32(e>>32) != b.gen {
			return i, false
		}
		if uint32(e) == key {
			return i, true
		}
		i = (i + 1) & (keySetSize - 1)
	}
}

// Finish writes the items, sorted by key, into dst (reusing dst's buffers)
// and computes the CRC. The builder keeps its items until Reset.
func (b *Builder) Finish(dst *Snapshot) {
	n, t := len(b.keys), b.tail
	b.order = b.order[:0]
	for i, k := range b.keys[:t] {
		b.order = append(b.order, uint64(k)<<32|uint64(i))
	}
	b.sortRuns()
	dst.keys = slices.Grow(dst.keys[:0], n)
	dst.offs = append(slices.Grow(dst.offs[:0], n+1), 0)
	dst.data = slices.Grow(dst.data[:0], b.words)
	// Items added one after the other that stay neighbours (the player
	// infos in slot order) are copied at once.
	from, to := int32(0), int32(0) // b.data[from:to] waits to be copied
	for _, o := range b.order {
		i := int(uint32(o))
		start := b.offs[i]
		if start != to {
			dst.data = append(dst.data, b.data[from:to]...)
			from = start
		}
		to = b.offs[i+1]
		dst.keys = append(dst.keys, uint32(o>>32))
		dst.offs = append(dst.offs, int32(len(dst.data))+to-from)
	}
	dst.data = append(dst.data, b.data[from:to]...)
	if t < n { // the tail, in key order and above the rest: as it is
		shift := int32(len(dst.data)) - b.offs[t]
		dst.keys = append(dst.keys, b.keys[t:]...)
		m := len(dst.offs)
		dst.offs = dst.offs[:m+n-t] // within the capacity grown above
		out := dst.offs[m:]
		for x, o := range b.offs[t+1 : n+1] { // the ends of the tail's items
			out[x] = o + shift
		}
		dst.data = append(dst.data, b.data[b.offs[t]:b.words]...)
	}
	dst.crc = crcOf(dst.data)
}

// sortRuns sorts b.order (unique values) ascending by merging its runs,
// the descending ones reversed first: a world adds its items in a few long
// runs (the player infos in slot order, the entities newest first), which
// this sorts in a few linear passes.
func (b *Builder) sortRuns() {
	o := b.order
	n := len(o)
	runs := b.runs[:0]
	for i := 0; i < n; {
		j := i + 1
		if j < n && o[j] < o[i] {
			for j < n && o[j] < o[j-1] {
				j++
			}
			slices.Reverse(o[i:j])
		} else {
			for j < n && o[j] > o[j-1] {
				j++
			}
		}
		if j-i < minRun { // short runs (items of alternating types) made longer
			j = min(i+minRun, n)
			insertionSort(o[i:j])
		}
		runs = append(runs, int32(j))
		i = j
	}
	b.runs = runs
	if len(runs) <= 1 {
		return
	}
	b.merge = slices.Grow(b.merge[:0], n)[:n]
	src, dst := o, b.merge
	for len(runs) > 1 {
		start := int32(0)
		merged := runs[:0] // written behind the reads
		for r := 0; r < len(runs); r += 2 {
			if r+1 == len(runs) {
				copy(dst[start:runs[r]], src[start:runs[r]])
				merged = append(merged, runs[r])
				break
			}
			mid, end := runs[r], runs[r+1]
			mergeInto(dst[start:end], src[start:mid], src[mid:end])
			merged = append(merged, end)
			start = end
		}
		runs = merged
		src, dst = dst, src
	}
	if &src[0] != &o[0] {
		copy(o, src)
	}
}

// minRun is the shortest run sortRuns merges: shorter ones are extended
// by insertion.
const minRun = 8

// insertionSort sorts the short o ascending.
func insertionSort(o []uint64) {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j] < o[j-1]; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// mergeInto merges the ascending a and b into dst (len(a)+len(b) long).
func mergeInto(dst, a, b []uint64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// Item returns item i (0 <= i < NumItems) in insertion order. Its Data
// aliases the builder and stays valid until the next Reset.
func (b *Builder) Item(i int) Item {
	k := b.keys[i]
	start, end := b.offs[i], b.offs[i+1]
	return Item{Type: uint16(k >> 16), ID: uint16(k), Data: b.data[start:end:end]}
}
