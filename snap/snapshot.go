// Package snap holds Teeworlds snapshots: items keyed by (type, id), a
// bounded Builder, the CRC, delta creation and application with the
// per-protocol static size tables, splitting an encoded delta into
// SNAP/SNAPSINGLE/SNAPEMPTY messages and reassembling them, per-client
// storage of sent snapshots, the snapshot item id pool and the packing of
// strings into ints.
//
// Nothing in this package panics on malformed input; decoders return the
// sentinel errors below. Hot paths (building, delta, encoding) do not
// allocate once their buffers have grown to their working size.
package snap

import (
	"errors"
	"slices"
)

// Limits of one snapshot (net.md A4.1, the reference CSnapshotBuilder).
const (
	// MaxItems is the largest number of items in one snapshot. The reference
	// builder (MAX_ITEMS = 1024) refuses an add once the count would reach 1024.
	MaxItems = 1023
	// MaxSnapshotSize is CSnapshot::MAX_SIZE, the bound on the serialized
	// snapshot in bytes; a snapshot must stay strictly below it.
	MaxSnapshotSize = 64 * 1024
	// MaxType is the largest item type a receiver accepts (CSnapshot::MAX_TYPE).
	MaxType = 0x7fff
	// MaxID is the largest item id (CSnapshot::MAX_ID).
	MaxID = 0xffff
	// MaxWords is the largest number of data ints one snapshot can hold:
	// the serialized size (header, one item's key, offset and sorted key, data)
	// must stay strictly below MaxSnapshotSize.
	MaxWords = (MaxSnapshotSize - snapHeaderBytes - itemOverheadBytes - 1) / 4
)

const (
	snapHeaderBytes   = 8  // data size + item count
	itemOverheadBytes = 12 // offset + sorted key + the item's own key
)

// serializedSize is the size in bytes of a snapshot with n items and words
// data ints in the reference's in-memory/demo layout.
func serializedSize(n, words int) int {
	return snapHeaderBytes + itemOverheadBytes*n + 4*words
}

// fits reports whether a snapshot of n items and words data ints is within
// MaxItems and strictly below MaxSnapshotSize.
func fits(n, words int) error {
	if n > MaxItems {
		return ErrTooManyItems
	}
	if serializedSize(n, words) >= MaxSnapshotSize {
		return ErrSnapTooLarge
	}
	return nil
}

// Sentinel errors of the package.
var (
	// ErrTooManyItems: a snapshot would hold more than MaxItems items.
	ErrTooManyItems = errors.New("snap: too many items")
	// ErrSnapTooLarge: a snapshot would reach MaxSnapshotSize bytes, or an
	// int array is longer than allowed.
	ErrSnapTooLarge = errors.New("snap: snapshot too large")
	// ErrDuplicateKey: a key is added, removed or updated twice, or both
	// removed and updated in one delta.
	ErrDuplicateKey = errors.New("snap: duplicate item key")
	// ErrBadKey: an item type above MaxType, or a type or id out of range.
	ErrBadKey = errors.New("snap: item type or id out of range")
	// ErrNegativeSize: an item size below zero.
	ErrNegativeSize = errors.New("snap: negative item size")
	// ErrSizeMismatch: an item's size differs from its static size or from
	// the size of the base item it changes.
	ErrSizeMismatch = errors.New("snap: item size does not match")
	// ErrTruncated: a delta's counts or sizes run past its end.
	ErrTruncated = errors.New("snap: delta truncated")
	// ErrNegativeCount: a delta's removed or updated count is negative.
	ErrNegativeCount = errors.New("snap: negative item count")
	// ErrUnknownKey: a delta removes a key the base snapshot does not hold.
	ErrUnknownKey = errors.New("snap: removed item not in base snapshot")
	// ErrTrailingData: ints follow the last item of a delta.
	ErrTrailingData = errors.New("snap: trailing data after delta")
	// ErrAliased: ApplyDelta was asked to write over its base.
	ErrAliased = errors.New("snap: destination aliases the base snapshot")
	// ErrBadPart: a snapshot part count, index or size is out of range.
	ErrBadPart = errors.New("snap: snapshot part out of range")
	// ErrInconsistent: a snapshot part contradicts the earlier parts of its
	// tick, arrives twice, or is short without being the last one.
	ErrInconsistent = errors.New("snap: snapshot part inconsistent with earlier parts")
	// ErrStaleTick: a snapshot message of an older or already completed tick.
	ErrStaleTick = errors.New("snap: snapshot part of an older tick")
	// ErrNoBase: the delta base of a received snapshot is not stored.
	ErrNoBase = errors.New("snap: delta base snapshot not stored")
	// ErrBadCRC: a reconstructed snapshot does not match the announced CRC.
	ErrBadCRC = errors.New("snap: snapshot CRC mismatch")
	// ErrBadMessage: a snapshot message is truncated, has trailing bytes,
	// an unknown id or impossible ticks.
	ErrBadMessage = errors.New("snap: malformed snapshot message")
	// ErrTooManyParts: an encoded delta is larger than MaxDeltaBytes.
	ErrTooManyParts = errors.New("snap: encoded delta needs more than MaxParts parts")
	// ErrIDPoolExhausted: all MaxIDs snapshot ids are in use or waiting.
	ErrIDPoolExhausted = errors.New("snap: id pool exhausted")
)

// Key returns the item key (type << 16) | id.
func Key(typ, id uint16) uint32 { return uint32(typ)<<16 | uint32(id) }

// Item is one snapshot item. Data aliases the snapshot's backing array and
// must not be modified or kept past the snapshot's next rebuild.
type Item struct {
	// Type and ID form the item's key (net.md A4.1).
	Type, ID uint16
	// Data is the payload, a type's fixed number of ints.
	Data []int32
}

// Key returns the item's key.
func (it Item) Key() uint32 { return Key(it.Type, it.ID) }

// Snapshot is an immutable set of items sorted by key. All item data lives
// in one backing []int32; a Snapshot reuses its buffers when rebuilt (by
// Builder.Finish, ApplyDelta or CopyFrom), so rebuilding does not allocate in
// steady state. The zero value is an empty snapshot.
type Snapshot struct {
	keys []uint32 // sorted ascending, unique
	offs []int32  // len(keys)+1 offsets into data (offs[0] = 0)
	data []int32
	crc  uint32
}

// NumItems returns the number of items.
func (s *Snapshot) NumItems() int { return len(s.keys) }

// Key returns the key of item i.
func (s *Snapshot) Key(i int) uint32 { return s.keys[i] }

// CountType returns how many items of type typ s holds.
func (s *Snapshot) CountType(typ uint32) int {
	n := 0
	for _, k := range s.keys {
		if k>>16 == typ {
			n++
		}
	}
	return n
}

// ItemData returns the data of item i (aliases the snapshot).
func (s *Snapshot) ItemData(i int) []int32 {
	return s.data[s.offs[i]:s.offs[i+1]:s.offs[i+1]]
}

// Item returns item i.
func (s *Snapshot) Item(i int) Item {
	k := s.keys[i]
	return Item{Type: uint16(k >> 16), ID: uint16(k), Data: s.ItemData(i)}
}

// Find returns the index of the item with the given key, or −1.
func (s *Snapshot) Find(key uint32) int {
	i, ok := slices.BinarySearch(s.keys, key)
	if !ok {
		return -1
	}
	return i
}

// CRC returns the wrapping sum of all data ints of all items (net.md A4.1).
// The wire carries it as a signed int: int32(s.CRC()).
func (s *Snapshot) CRC() uint32 { return s.crc }

// DataWords returns the total number of data ints of all items.
func (s *Snapshot) DataWords() int { return len(s.data) }

// Size returns the size in bytes of the snapshot in the reference's
// serialized layout (bounded by MaxSnapshotSize).
func (s *Snapshot) Size() int { return serializedSize(len(s.keys), len(s.data)) }

// Reset empties the snapshot, keeping its buffers.
func (s *Snapshot) Reset() {
	s.keys = s.keys[:0]
	s.offs = append(s.offs[:0], 0)
	s.data = s.data[:0]
	s.crc = 0
}

// CopyFrom makes s an exact copy of src, reusing s's buffers.
func (s *Snapshot) CopyFrom(src *Snapshot) {
	if s == src {
		return
	}
	s.keys = append(s.keys[:0], src.keys...)
	s.offs = append(s.offs[:0], src.offs...)
	if len(s.offs) == 0 {
		s.offs = append(s.offs, 0)
	}
	s.data = append(s.data[:0], src.data...)
	s.crc = src.crc
}

// Equal reports whether s and o hold the same items with the same data.
func (s *Snapshot) Equal(o *Snapshot) bool {
	if len(s.keys) != len(o.keys) {
		return false
	}
	if !slices.Equal(s.keys, o.keys) || !slices.Equal(s.data, o.data) {
		return false
	}
	for i := range s.keys {
		if s.offs[i+1] != o.offs[i+1] {
			return false
		}
	}
	return true
}

// crcOf returns the wrapping sum of ints (in four sums, which the
// processor adds in parallel).
func crcOf(data []int32) uint32 {
	var c0, c1, c2, c3 uint32
	for len(data) >= 4 {
		c0 += uint32(data[0])
		c1 += uint32(data[1])
		c2 += uint32(data[2])
		c3 += uint32(data[3])
		data = data[4:]
	}
	for _, v := range data {
		c0 += uint32(v)
	}
	return c0 + c1 + c2 + c3
}

// appendItem appends one item (keys must be appended in ascending order by
// the caller) and returns its data slice to fill. Capacity checks are the
// caller's job.
func (s *Snapshot) appendItem(key uint32, size int) []int32 {
	if len(s.offs) == 0 {
		s.offs = append(s.offs, 0)
	}
	start := len(s.data)
	s.data = slices.Grow(s.data, size)[:start+size]
	s.keys = append(s.keys, key)
	s.offs = append(s.offs, int32(start+size))
	return s.data[start : start+size]
}

// warm loads up to lines cache lines of each of s's arrays, from the
// start, and returns a byte of them (Storage.Warm).
func (s *Snapshot) warm(lines int) uint8 {
	return warmLines(s.keys, lines) + warmLines(s.offs, lines) + warmLines(s.data, lines)
}

// warmLines returns a byte of each of the first lines cache lines of a
// (16 four-byte values a line).
func warmLines[T ~int32 | ~uint32](a []T, lines int) (sum uint8) {
	for i := 0; i < len(a) && i>>4 < lines; i += 16 {
		sum += uint8(a[i])
	}
	return sum
}
