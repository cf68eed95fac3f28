package snap

import (
	"errors"
	"maps"
	"slices"
)

// A slow, obviously correct model of snapshots and deltas built on maps, to
// test the real implementation against (differential tests and fuzzing).

type slowSnap map[uint32][]int32

func toSlow(s *Snapshot) slowSnap {
	m := slowSnap{}
	for i := range s.NumItems() {
		m[s.Key(i)] = slices.Clone(s.ItemData(i))
	}
	return m
}

func (m slowSnap) sortedKeys() []uint32 { return slices.Sorted(maps.Keys(m)) }

func (m slowSnap) crc() uint32 {
	var c uint32
	for _, d := range m {
		for _, v := range d {
			c += uint32(v)
		}
	}
	return c
}

func (m slowSnap) words() int {
	n := 0
	for _, d := range m {
		n += len(d)
	}
	return n
}

// build turns the model into a Snapshot through the Builder.
func (m slowSnap) build() (*Snapshot, error) {
	var b Builder
	for _, k := range m.sortedKeys() {
		d, err := b.NewItem(uint16(k>>16), uint16(k), len(m[k]))
		if err != nil {
			return nil, err
		}
		copy(d, m[k])
	}
	s := new(Snapshot)
	b.Finish(s)
	return s, nil
}

func slowSizeField(sizes *SizeTable, typ int32) (int, bool) {
	if typ < 0 || int(typ) >= len(sizes.sizes) || sizes.sizes[typ] == 0 {
		return 0, false
	}
	return int(sizes.sizes[typ]), true
}

// slowCreate follows net.md A4.5 literally.
func slowCreate(from, to slowSnap, sizes *SizeTable) []int32 {
	var removed, updated []int32
	for _, k := range from.sortedKeys() {
		if _, ok := to[k]; !ok {
			removed = append(removed, int32(k))
		}
	}
	nUpd := 0
	for _, k := range to.sortedKeys() {
		nd := to[k]
		item := []int32{int32(k >> 16), int32(k & 0xffff)}
		if _, static := slowSizeField(sizes, int32(k>>16)); !static {
			item = append(item, int32(len(nd)))
		}
		od, inBase := from[k]
		if !inBase {
			updated = append(append(updated, item...), nd...)
			nUpd++
			continue
		}
		changed := false
		for i, v := range nd {
			var o int32
			if i < len(od) {
				o = od[i]
			}
			if v-o != 0 {
				changed = true
			}
			item = append(item, v-o)
		}
		if changed {
			updated = append(updated, item...)
			nUpd++
		}
	}
	out := []int32{int32(len(removed)), int32(nUpd), 0}
	return append(append(out, removed...), updated...)
}

var errSlow = errors.New("slow: invalid delta")

// slowApply follows net.md A4.5 with the strict validation of ApplyDelta.
func slowApply(from slowSnap, delta []int32, sizes *SizeTable) (slowSnap, error) {
	if len(delta) < 3 || delta[0] < 0 || delta[1] < 0 {
		return nil, errSlow
	}
	rest := delta[3:]
	if int(delta[0]) > len(rest) {
		return nil, errSlow
	}
	removed := map[uint32]bool{}
	for _, k := range rest[:delta[0]] {
		if _, ok := from[uint32(k)]; !ok || removed[uint32(k)] {
			return nil, errSlow
		}
		removed[uint32(k)] = true
	}
	rest = rest[delta[0]:]
	type upd struct {
		key  uint32
		data []int32
	}
	var ups []upd
	seen := map[uint32]bool{}
	for range int(delta[1]) {
		if len(rest) < 2 {
			return nil, errSlow
		}
		typ, id := rest[0], rest[1]
		rest = rest[2:]
		if typ < 0 || typ > 0x7fff || id < 0 || id > 0xffff {
			return nil, errSlow
		}
		size, static := slowSizeField(sizes, typ)
		if !static {
			if len(rest) < 1 || rest[0] < 0 {
				return nil, errSlow
			}
			size = int(rest[0])
			rest = rest[1:]
		}
		if size > len(rest) {
			return nil, errSlow
		}
		key := uint32(typ)<<16 | uint32(id)
		if seen[key] {
			return nil, errSlow
		}
		seen[key] = true
		ups = append(ups, upd{key, rest[:size]})
		rest = rest[size:]
	}
	if len(rest) != 0 {
		return nil, errSlow
	}
	out := slowSnap{}
	for k, d := range from {
		if !removed[k] {
			out[k] = slices.Clone(d)
		}
	}
	for _, u := range ups {
		old, inBase := from[u.key]
		if !inBase {
			out[u.key] = slices.Clone(u.data)
			continue
		}
		if removed[u.key] || len(old) != len(u.data) {
			return nil, errSlow
		}
		nd := make([]int32, len(old))
		for i := range nd {
			nd[i] = old[i] + u.data[i]
		}
		out[u.key] = nd
	}
	if len(out) > MaxItems || 8+12*len(out)+4*out.words() >= MaxSnapshotSize {
		return nil, errSlow
	}
	return out, nil
}

func slowEqual(a, b slowSnap) bool {
	return maps.EqualFunc(a, b, func(x, y []int32) bool { return slices.Equal(x, y) })
}
