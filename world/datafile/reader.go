package datafile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
)

// Item is one datafile item. Data aliases the loaded file bytes and must not
// be modified.
type Item struct {
	// Type is the item type (high 16 bits of type_and_id).
	Type int
	// ID is the item id (low 16 bits of type_and_id).
	ID int
	// Data is the payload, a whole number of little-endian int32 words.
	Data []byte
}

// NumInts returns the number of int32 words in the payload.
func (it Item) NumInts() int { return len(it.Data) / 4 }

// Int returns payload word k, or ok=false when the payload is too short.
func (it Item) Int(k int) (v int32, ok bool) {
	if k < 0 || k >= len(it.Data)/4 {
		return 0, false
	}
	return int32(binary.LittleEndian.Uint32(it.Data[4*k:])), true
}

// Ints decodes the whole payload into a new slice of int32 words.
func (it Item) Ints() []int32 {
	out := make([]int32, len(it.Data)/4)
	for k := range out {
		out[k] = int32(binary.LittleEndian.Uint32(it.Data[4*k:]))
	}
	return out
}

// TypeRange is one entry of the item-type table: the items Start..Start+Num-1
// all have type Type.
type TypeRange struct {
	// Type is the item type; Start the index of its first item in the item
	// list; Num how many items of the type follow.
	Type, Start, Num int
}

// File is a parsed datafile. Items are validated at Load; data blobs are
// inflated on first access by Data. A File is safe for concurrent use.
type File struct {
	version int
	types   []TypeRange // file order
	items   []Item
	raw     [][]byte // on-disk blob bytes (compressed in v4)
	sizes   []int    // declared uncompressed sizes (v4) or raw sizes (v3)
	trailer int      // bytes after the data area

	lim   Limits
	mu    sync.Mutex
	cache [][]byte
	total int64
}

// Load parses a datafile with DefaultLimits.
func Load(b []byte) (*File, error) { return LoadWithLimits(b, DefaultLimits()) }

// le reads the little-endian int32 at off; callers check bounds first.
func le(b []byte, off int) int {
	return int(int32(binary.LittleEndian.Uint32(b[off:])))
}

// LoadWithLimits parses a datafile. It validates the header, the item-type
// table, every item and data offset, and every declared size against lim.
// The returned File keeps references into b; b must not be modified later.
func LoadWithLimits(b []byte, lim Limits) (*File, error) {
	if len(b) > lim.MaxFileSize {
		return nil, fmt.Errorf("%w: file is %d bytes, limit %d", ErrLimit, len(b), lim.MaxFileSize)
	}
	if len(b) < HeaderSize {
		return nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrTruncated, len(b), HeaderSize)
	}
	if m := string(b[:4]); m != "DATA" && m != "ATAD" {
		return nil, fmt.Errorf("%w: %q", ErrBadMagic, b[:4])
	}
	f := &File{version: le(b, 4), lim: lim}
	if f.version != 3 && f.version != 4 {
		return nil, fmt.Errorf("%w: %d", ErrVersion, f.version)
	}
	numTypes, numItems, numData := le(b, 16), le(b, 20), le(b, 24)
	itemSize, dataSize := le(b, 28), le(b, 32)
	switch {
	case numTypes < 0 || numItems < 0 || numData < 0 || itemSize < 0 || dataSize < 0:
		return nil, fmt.Errorf("%w: negative count in header (types %d, items %d, data %d, item size %d, data size %d)",
			ErrCorrupt, numTypes, numItems, numData, itemSize, dataSize)
	case numItems > lim.MaxItems:
		return nil, fmt.Errorf("%w: %d items, limit %d", ErrLimit, numItems, lim.MaxItems)
	case numData > lim.MaxData:
		return nil, fmt.Errorf("%w: %d data blobs, limit %d", ErrLimit, numData, lim.MaxData)
	case numTypes > numItems:
		return nil, fmt.Errorf("%w: %d item types for %d items", ErrCorrupt, numTypes, numItems)
	}
	// All sizes are non-negative int32 values, so int64 sums cannot overflow.
	off := int64(HeaderSize)
	typesOff := off
	off += 12 * int64(numTypes)
	itemOffOff := off
	off += 4 * int64(numItems)
	dataOffOff := off
	off += 4 * int64(numData)
	sizesOff := off
	if f.version == 4 {
		off += 4 * int64(numData)
	}
	itemStart := off
	dataStart := itemStart + int64(itemSize)
	end := dataStart + int64(dataSize)
	if end > int64(len(b)) {
		return nil, fmt.Errorf("%w: header declares %d bytes, file has %d", ErrTruncated, end, len(b))
	}
	f.trailer = len(b) - int(end)

	if err := f.parseItems(b, int(typesOff), numTypes, int(itemOffOff), numItems, b[itemStart:dataStart]); err != nil {
		return nil, err
	}
	if err := f.parseData(b, int(dataOffOff), int(sizesOff), numData, b[dataStart:end]); err != nil {
		return nil, err
	}
	f.cache = make([][]byte, numData)
	return f, nil
}

// span returns the byte range of entry i of n in an area of areaLen bytes
// whose start offsets are listed at off in b: from its own offset to the
// next entry's, the last one to the end of the area. Callers validate it.
func span(b []byte, off, i, n, areaLen int) (start, stop int) {
	start, stop = le(b, off+4*i), areaLen
	if i+1 < n {
		stop = le(b, off+4*(i+1))
	}
	return start, stop
}

func (f *File) parseItems(b []byte, typesOff, numTypes, itemOffOff, numItems int, area []byte) error {
	f.types = make([]TypeRange, numTypes)
	seen := make(map[int]bool, numTypes)
	for i := range f.types {
		p := typesOff + 12*i
		t := TypeRange{Type: le(b, p), Start: le(b, p+4), Num: le(b, p+8)}
		if t.Type < 0 || t.Type > MaxType {
			return fmt.Errorf("%w: item type table entry %d has type %d", ErrCorrupt, i, t.Type)
		}
		if seen[t.Type] {
			return fmt.Errorf("%w: item type %d listed twice", ErrCorrupt, t.Type)
		}
		seen[t.Type] = true
		if t.Num < 1 || t.Start < 0 || t.Start > numItems || t.Num > numItems-t.Start {
			return fmt.Errorf("%w: item type %d covers items [%d, +%d) of %d", ErrCorrupt, t.Type, t.Start, t.Num, numItems)
		}
		f.types[i] = t
	}
	// The type ranges must partition the item list exactly.
	sorted := append([]TypeRange(nil), f.types...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	next := 0
	for _, t := range sorted {
		if t.Start != next {
			return fmt.Errorf("%w: item type ranges overlap or leave a gap at item %d", ErrCorrupt, next)
		}
		next += t.Num
	}
	if next != numItems {
		return fmt.Errorf("%w: item type ranges cover %d of %d items", ErrCorrupt, next, numItems)
	}
	if numItems == 0 && len(area) != 0 {
		return fmt.Errorf("%w: %d bytes of item area without items", ErrCorrupt, len(area))
	}

	f.items = make([]Item, numItems)
	for i := range f.items {
		start, stop := span(b, itemOffOff, i, numItems, len(area))
		if i == 0 && start != 0 {
			return fmt.Errorf("%w: first item at offset %d, want 0", ErrCorrupt, start)
		}
		if stop > len(area) || stop-start < ItemHeaderSize {
			return fmt.Errorf("%w: item %d spans [%d, %d) in an item area of %d bytes", ErrCorrupt, i, start, stop, len(area))
		}
		typeAndID := le(area, start)
		size := le(area, start+4)
		if size != stop-start-ItemHeaderSize {
			return fmt.Errorf("%w: item %d declares %d payload bytes, offsets give %d", ErrCorrupt, i, size, stop-start-ItemHeaderSize)
		}
		if size%4 != 0 {
			return fmt.Errorf("%w: item %d payload of %d bytes is not whole int32 words", ErrCorrupt, i, size)
		}
		f.items[i] = Item{
			Type: (typeAndID >> 16) & 0xffff,
			ID:   typeAndID & 0xffff,
			Data: area[start+ItemHeaderSize : stop : stop],
		}
	}
	for _, t := range f.types {
		for i := t.Start; i < t.Start+t.Num; i++ {
			if f.items[i].Type != t.Type {
				return fmt.Errorf("%w: item %d has type %d inside the range of type %d", ErrCorrupt, i, f.items[i].Type, t.Type)
			}
		}
	}
	return nil
}

func (f *File) parseData(b []byte, dataOffOff, sizesOff, numData int, area []byte) error {
	f.raw = make([][]byte, numData)
	f.sizes = make([]int, numData)
	if numData == 0 && len(area) != 0 {
		return fmt.Errorf("%w: %d bytes of data area without data blobs", ErrCorrupt, len(area))
	}
	for i := range numData {
		start, stop := span(b, dataOffOff, i, numData, len(area))
		if i == 0 && start != 0 {
			return fmt.Errorf("%w: first data blob at offset %d, want 0", ErrCorrupt, start)
		}
		if stop < start || stop > len(area) {
			return fmt.Errorf("%w: data blob %d spans [%d, %d) in a data area of %d bytes", ErrCorrupt, i, start, stop, len(area))
		}
		f.raw[i] = area[start:stop:stop]
		if f.version == 4 {
			f.sizes[i] = le(b, sizesOff+4*i)
		} else {
			f.sizes[i] = stop - start
		}
		if f.sizes[i] < 0 {
			return fmt.Errorf("%w: data blob %d declares size %d", ErrCorrupt, i, f.sizes[i])
		}
		if f.sizes[i] > f.lim.MaxDataSize {
			return fmt.Errorf("%w: data blob %d declares %d bytes, limit %d", ErrLimit, i, f.sizes[i], f.lim.MaxDataSize)
		}
	}
	return nil
}

// Version returns the datafile version (3 or 4).
func (f *File) Version() int { return f.version }

// NumItems returns the number of items.
func (f *File) NumItems() int { return len(f.items) }

// Item returns item i (0 <= i < NumItems), or a zero Item when out of range.
func (f *File) Item(i int) Item {
	if i < 0 || i >= len(f.items) {
		return Item{}
	}
	return f.items[i]
}

// Types returns the item-type table in file order. The slice is shared.
func (f *File) Types() []TypeRange { return f.types }

// Type returns the index range of the items of type typ (num 0 if absent).
func (f *File) Type(typ int) (start, num int) {
	for _, t := range f.types {
		if t.Type == typ {
			return t.Start, t.Num
		}
	}
	return 0, 0
}

// ItemsOfType returns the items of type typ in file order. The slice is shared.
func (f *File) ItemsOfType(typ int) []Item {
	start, num := f.Type(typ)
	return f.items[start : start+num : start+num]
}

// Find returns the first item with the given type and id.
func (f *File) Find(typ, id int) (Item, bool) {
	for _, it := range f.ItemsOfType(typ) {
		if it.ID == id {
			return it, true
		}
	}
	return Item{}, false
}

// NumData returns the number of data blobs.
func (f *File) NumData() int { return len(f.raw) }

// DataSize returns the declared uncompressed size of blob i (for version 3
// files, its stored size), or -1 when i is out of range.
func (f *File) DataSize(i int) int {
	if i < 0 || i >= len(f.sizes) {
		return -1
	}
	return f.sizes[i]
}

// RawData returns blob i as stored in the file (zlib-compressed for version
// 4), or nil when out of range. The slice aliases the file bytes.
func (f *File) RawData(i int) []byte {
	if i < 0 || i >= len(f.raw) {
		return nil
	}
	return f.raw[i]
}

// TrailingBytes returns how many bytes follow the data area (normally 0).
func (f *File) TrailingBytes() int { return f.trailer }

// Data returns blob i decompressed. The result is cached and shared: callers
// must not modify it. It fails with ErrBadZlib for an invalid stream,
// ErrDataSize when the stream does not inflate to exactly the declared size,
// and ErrLimit when the File's total decompression budget is spent.
func (f *File) Data(i int) ([]byte, error) {
	if i < 0 || i >= len(f.raw) {
		return nil, fmt.Errorf("%w: data blob %d of %d", ErrIndex, i, len(f.raw))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.cache[i]; c != nil {
		return c, nil
	}
	if f.version == 3 {
		f.cache[i] = f.raw[i]
		return f.raw[i], nil
	}
	want := f.sizes[i]
	if f.total+int64(want) > f.lim.MaxTotalDataSize {
		return nil, fmt.Errorf("%w: decompressing blob %d (%d bytes) exceeds the total budget %d",
			ErrLimit, i, want, f.lim.MaxTotalDataSize)
	}
	out, err := inflate(f.raw[i], want)
	if err != nil {
		return nil, fmt.Errorf("data blob %d: %w", i, err)
	}
	f.total += int64(want)
	f.cache[i] = out
	return out, nil
}

// inflateChunk is the initial output capacity of inflate; it doubles from
// there up to the declared size.
const inflateChunk = 64 << 10

// inflate decompresses a zlib stream that must produce exactly want bytes.
// Memory grows with the actual output and never past want: a stream that
// declares a large size but inflates to little costs little, and one that
// inflates past want is stopped at want+1 bytes (a one-byte probe).
func inflate(src []byte, want int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadZlib, err)
	}
	out := make([]byte, 0, min(want, inflateChunk))
	for {
		if len(out) == cap(out) && cap(out) < want {
			out = append(make([]byte, 0, min(2*cap(out), want)), out...)
		}
		var n int
		if len(out) < cap(out) {
			n, err = zr.Read(out[len(out):cap(out)])
			out = out[:len(out)+n]
		} else {
			var probe [1]byte // all want bytes are in: only the end may follow
			if n, err = zr.Read(probe[:]); n > 0 {
				return nil, fmt.Errorf("%w: inflates past its declared %d bytes", ErrDataSize, want)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadZlib, err)
		}
	}
	if len(out) != want {
		return nil, fmt.Errorf("%w: inflates to %d bytes, declared %d", ErrDataSize, len(out), want)
	}
	if len(out) == 0 {
		out = []byte{} // non-nil, so the cache can tell it apart from "not loaded"
	}
	return out, nil
}
