package snap

import (
	"slices"
	"unsafe"
)

// Delta layout (net.md A4.5, CSnapshotDelta): the header ints below, then
// num_deleted removed keys, then num_updated items of
// type, id, [size when the type has no static size], data.
const (
	deltaHeaderInts = 3 // num_deleted, num_updated, num_temp (always 0)

	// MaxDeltaInts bounds the length of any valid delta: the header, at most
	// MaxItems removed keys, at most MaxItems item headers of 3 ints and at
	// most MaxWords data ints.
	MaxDeltaInts = deltaHeaderInts + MaxItems + 3*MaxItems + MaxWords
)

// IsEmptyDelta reports whether delta (as produced by AppendDelta) has no
// removed and no updated items, so it is sent as SNAPEMPTY.
func IsEmptyDelta(delta []int32) bool {
	return len(delta) >= deltaHeaderInts && delta[0] == 0 && delta[1] == 0
}

// AppendDelta appends to dst the delta that turns from into to, using the
// static sizes of the given protocol, and returns the extended slice.
// Removed keys are listed in base order, updated items in key order; new
// items carry their full data, changed items the wrapping difference
// new − old, unchanged items are left out, and the size field is written
// only for types without a static size.
//
// An item must keep its size under one key (Builder.Sizes enforces this for
// static types). If it does not, the difference is taken over the new size
// with missing old ints read as 0; ApplyDelta rejects such a delta with
// ErrSizeMismatch.
func AppendDelta(dst []int32, from, to *Snapshot, sizes *SizeTable) []int32 {
	hdr := len(dst)
	nf := len(from.keys)
	// The longest delta possible (every base key removed, every item new
	// with a size field), so the writes below never grow dst.
	dst = slices.Grow(dst, deltaHeaderInts+nf+3*len(to.keys)+len(to.data))
	// One merge of the two key lists: the removed keys go from the header
	// on, the updated items after room for every base key, and move down
	// over the room left once the removed keys are counted.
	del := hdr + deltaHeaderInts
	upd := del + nf
	dst = dst[:upd]
	var numUpd int32
	fk, fo, fd := from.keys, from.offs, from.data
	to_, tk := to.offs, to.keys
	i := 0
	runEnd := 0 // items of to before it are in a run already found to differ
	for j := 0; j < len(tk); j++ {
		k := tk[j]
		for i < nf && fk[i] < k {
			dst[del] = int32(fk[i])
			del++
			i++
		}
		nd := to.data[to_[j]:to_[j+1]]
		var od []int32
		inBase := i < nf && fk[i] == k
		if inBase {
			// Most items of a tick are those of the base, unchanged, in
			// runs: the run of items with the same keys and sizes in
			// both is compared at once, item by item only if it differs.
			if j >= runEnd {
				m := sameLayout(fk[i:], fo[i:], tk[j:], to_[j:])
				if m > 0 && equalInts(to.data[to_[j]:to_[j+m]], fd[fo[i]:fo[i+m]]) {
					i += m
					j += m - 1
					continue
				}
				runEnd = j + m
			}
			od = fd[fo[i]:fo[i+1]]
			i++
			if len(od) >= len(nd) && equalInts(nd, od) {
				continue
			}
		}
		typ := int32(k >> 16)
		mark := len(dst)
		dst = append(dst, typ, int32(k&0xffff))
		if _, static := sizes.Static(typ); !static {
			dst = append(dst, int32(len(nd)))
		}
		numUpd++
		if !inBase {
			dst = append(dst, nd...)
			continue
		}
		n := len(dst)
		dst = dst[:n+len(nd)]
		out := dst[n : n+len(nd)]
		if len(od) >= len(nd) {
			od = od[:len(out)]
			for x := range out {
				out[x] = nd[x] - od[x]
			}
			continue
		}
		var changed int32
		for x, v := range nd { // missing old ints read as 0
			var o int32
			if x < len(od) {
				o = od[x]
			}
			out[x] = v - o
			changed |= out[x]
		}
		if changed == 0 {
			dst = dst[:mark]
			numUpd--
		}
	}
	for ; i < nf; i++ {
		dst[del] = int32(fk[i])
		del++
	}
	numDel := int32(del - hdr - deltaHeaderInts)
	dst = dst[:del+copy(dst[del:], dst[hdr+deltaHeaderInts+nf:])]
	dst[hdr], dst[hdr+1], dst[hdr+2] = numDel, numUpd, 0
	return dst
}

// sameLayout returns how many items from the start of a and b (keys and
// offsets from the items on) have the same keys and sizes and the type of
// the first (a run of one type: a tick changes all its items or none, as
// the player infos, or some, as the characters).
func sameLayout(ak []uint32, ao []int32, bk []uint32, bo []int32) int {
	n := min(len(ak), len(bk))
	m := 0
	for m < n && ak[m] == bk[m] && ak[m]>>16 == ak[0]>>16 && ao[m+1]-ao[m] == bo[m+1]-bo[m] {
		m++
	}
	return m
}

// equalInts reports whether a and the first len(a) ints of b are equal. It
// compares their bytes with the runtime's vectorised memory comparison (an
// int loop is the delta's hottest instruction: a run of 63 player infos is
// 189 ints).
func equalInts(a, b []int32) bool {
	b = b[:len(a)]
	if len(a) == 0 {
		return true
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a))) ==
		string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 4*len(a)))
}

// ApplyDelta rebuilds into dst (reusing its buffers) the snapshot described
// by delta relative to from, using the static sizes of the given protocol,
// and computes its CRC. It validates everything and returns an error rather
// than panicking: ErrTruncated (a count or size runs past the end),
// ErrNegativeCount, ErrNegativeSize, ErrBadKey (type or id out of range),
// ErrUnknownKey (a removed key not in from), ErrDuplicateKey (a key removed
// or updated twice, or both removed and updated), ErrSizeMismatch (a changed
// item whose size differs from the base item), ErrTooManyItems /
// ErrSnapTooLarge (the result breaks the snapshot limits), ErrTrailingData
// and ErrAliased (dst == from). On error dst is left empty.
func ApplyDelta(dst *Snapshot, from *Snapshot, delta []int32, sizes *SizeTable) error {
	if dst == from {
		return ErrAliased
	}
	dst.Reset()
	if len(delta) < deltaHeaderInts {
		return ErrTruncated
	}
	numDel, numUpd := delta[0], delta[1]
	if numDel < 0 || numUpd < 0 {
		return ErrNegativeCount
	}
	if int64(numDel) > int64(len(delta)-deltaHeaderInts) {
		return ErrTruncated
	}
	nFrom := from.NumItems()
	if nFrom > MaxItems {
		return ErrTooManyItems
	}
	if int(numDel) > nFrom {
		return ErrUnknownKey
	}
	if numUpd > MaxItems {
		return ErrTooManyItems
	}

	// Removed keys: mark them in the base.
	var removed [MaxItems]bool
	pos := deltaHeaderInts
	for _, k := range delta[pos : pos+int(numDel)] {
		idx := from.Find(uint32(k))
		if idx < 0 {
			return ErrUnknownKey
		}
		if removed[idx] {
			return ErrDuplicateKey
		}
		removed[idx] = true
	}
	pos += int(numDel)

	// Updated items: parse and bounds-check all headers first.
	var order [MaxItems]uint64 // key<<32 | update index
	var offs, lens [MaxItems]int32
	for u := range int(numUpd) {
		if len(delta)-pos < 2 {
			return ErrTruncated
		}
		typ, id := delta[pos], delta[pos+1]
		pos += 2
		if typ < 0 || typ > MaxType || id < 0 || id > MaxID {
			return ErrBadKey
		}
		size, static := sizes.Static(typ)
		if !static {
			if pos >= len(delta) {
				return ErrTruncated
			}
			s := delta[pos]
			pos++
			if s < 0 {
				return ErrNegativeSize
			}
			size = int(s)
		}
		if size > len(delta)-pos {
			return ErrTruncated
		}
		order[u] = uint64(typ)<<48 | uint64(id)<<32 | uint64(u)
		offs[u] = int32(pos)
		lens[u] = int32(size)
		pos += size
	}
	if pos != len(delta) {
		return ErrTrailingData
	}
	ups := order[:numUpd]
	slices.Sort(ups)
	for u := 1; u < len(ups); u++ {
		if ups[u]>>32 == ups[u-1]>>32 {
			return ErrDuplicateKey
		}
	}

	// Merge the kept base items and the updates in key order.
	err := mergeDelta(dst, from, delta, removed[:nFrom], ups, offs[:numUpd], lens[:numUpd])
	if err != nil {
		dst.Reset()
		return err
	}
	dst.crc = crcOf(dst.data)
	return nil
}

// mergeDelta writes the result of ApplyDelta into dst (already reset).
func mergeDelta(dst, from *Snapshot, delta []int32, removed []bool, ups []uint64, offs, lens []int32) error {
	nFrom := from.NumItems()
	i, u := 0, 0
	for i < nFrom || u < len(ups) {
		var bk, uk uint64 = 1 << 32, 1 << 32 // past every key
		if i < nFrom {
			bk = uint64(from.keys[i])
		}
		if u < len(ups) {
			uk = ups[u] >> 32
		}
		switch {
		case bk < uk: // base item without update: keep unless removed
			if !removed[i] {
				od := from.ItemData(i)
				if err := fits(len(dst.keys)+1, len(dst.data)+len(od)); err != nil {
					return err
				}
				copy(dst.appendItem(uint32(bk), len(od)), od)
			}
			i++
		case uk < bk: // new item: take the data as is
			x := uint32(ups[u])
			d := delta[offs[x] : offs[x]+lens[x]]
			if err := fits(len(dst.keys)+1, len(dst.data)+len(d)); err != nil {
				return err
			}
			copy(dst.appendItem(uint32(uk), len(d)), d)
			u++
		default: // changed item: add the difference
			if removed[i] {
				return ErrDuplicateKey
			}
			x := uint32(ups[u])
			d := delta[offs[x] : offs[x]+lens[x]]
			od := from.ItemData(i)
			if len(od) != len(d) {
				return ErrSizeMismatch
			}
			if err := fits(len(dst.keys)+1, len(dst.data)+len(d)); err != nil {
				return err
			}
			out := dst.appendItem(uint32(uk), len(d))
			for k := range out {
				out[k] = od[k] + d[k]
			}
			i++
			u++
		}
	}
	return nil
}
