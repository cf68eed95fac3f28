package datafile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// ErrInvalid is returned by Writer for arguments it cannot encode
// (type or id out of range, payload not a whole number of int32 words).
var ErrInvalid = errors.New("datafile: invalid writer input")

// Writer assembles a version 4 datafile in memory. The zero value is ready
// to use. Output is deterministic: items are grouped by ascending type (in
// insertion order within a type) as the reference writer does, and data
// added with AddData is compressed by this package's own encoder.
type Writer struct {
	items []writerItem
	data  []writerData
}

type writerItem struct {
	typ, id int
	payload []byte
}

type writerData struct {
	compressed []byte
	size       int
}

// AddItem appends an item. payload is copied; its length must be a multiple
// of 4.
func (w *Writer) AddItem(typ, id int, payload []byte) error {
	switch {
	case typ < 0 || typ > MaxType:
		return fmt.Errorf("%w: item type %d", ErrInvalid, typ)
	case id < 0 || id > MaxID:
		return fmt.Errorf("%w: item id %d", ErrInvalid, id)
	case len(payload)%4 != 0:
		return fmt.Errorf("%w: item payload of %d bytes is not whole int32 words", ErrInvalid, len(payload))
	case len(w.items) >= DefaultMaxItems:
		return fmt.Errorf("%w: more than %d items", ErrLimit, DefaultMaxItems)
	}
	w.items = append(w.items, writerItem{typ: typ, id: id, payload: slices.Clone(payload)})
	return nil
}

// AddItemInts appends an item whose payload is the given int32 words.
func (w *Writer) AddItemInts(typ, id int, words []int32) error {
	b := make([]byte, 0, 4*len(words))
	for _, v := range words {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return w.AddItem(typ, id, b)
}

// AddData compresses b and appends it as a data blob, returning its index.
func (w *Writer) AddData(b []byte) (int, error) {
	if len(b) > DefaultMaxDataSize {
		return 0, fmt.Errorf("%w: data blob of %d bytes, limit %d", ErrLimit, len(b), DefaultMaxDataSize)
	}
	return w.AddRawData(compressZlib(b), len(b))
}

// AddRawData appends an already zlib-compressed blob that inflates to size
// bytes, returning its index. It lets a loaded file be written back
// byte-for-byte. The compressed bytes are copied and not validated.
func (w *Writer) AddRawData(compressed []byte, size int) (int, error) {
	switch {
	case size < 0 || size > DefaultMaxDataSize:
		return 0, fmt.Errorf("%w: data blob size %d, limit %d", ErrLimit, size, DefaultMaxDataSize)
	case len(w.data) >= DefaultMaxData:
		return 0, fmt.Errorf("%w: more than %d data blobs", ErrLimit, DefaultMaxData)
	}
	w.data = append(w.data, writerData{compressed: slices.Clone(compressed), size: size})
	return len(w.data) - 1, nil
}

// NumData returns the number of data blobs added so far.
func (w *Writer) NumData() int { return len(w.data) }

// Bytes encodes the file. It may be called more than once.
func (w *Writer) Bytes() ([]byte, error) {
	order := make([]int, len(w.items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return w.items[a].typ - w.items[b].typ })

	var types []TypeRange
	itemSize := 0
	for k, i := range order {
		it := w.items[i]
		if n := len(types); n == 0 || types[n-1].Type != it.typ {
			types = append(types, TypeRange{Type: it.typ, Start: k})
		}
		types[len(types)-1].Num++
		itemSize += ItemHeaderSize + len(it.payload)
	}
	dataSize := 0
	for _, d := range w.data {
		dataSize += len(d.compressed)
	}
	numData := len(w.data)
	fileSize := HeaderSize + 12*len(types) + 4*(len(w.items)+2*numData) + itemSize + dataSize
	if fileSize > DefaultMaxFileSize {
		return nil, fmt.Errorf("%w: file would be %d bytes, limit %d", ErrLimit, fileSize, DefaultMaxFileSize)
	}

	out := make([]byte, 0, fileSize)
	put := func(v int) { out = binary.LittleEndian.AppendUint32(out, uint32(int32(v))) }
	out = append(out, "DATA"...)
	put(4)
	put(fileSize - 16)
	put(fileSize - dataSize - 16)
	put(len(types))
	put(len(w.items))
	put(numData)
	put(itemSize)
	put(dataSize)
	for _, t := range types {
		put(t.Type)
		put(t.Start)
		put(t.Num)
	}
	off := 0
	for _, i := range order {
		put(off)
		off += ItemHeaderSize + len(w.items[i].payload)
	}
	off = 0
	for _, d := range w.data {
		put(off)
		off += len(d.compressed)
	}
	for _, d := range w.data {
		put(d.size)
	}
	for _, i := range order {
		it := w.items[i]
		put(it.typ<<16 | it.id)
		put(len(it.payload))
		out = append(out, it.payload...)
	}
	for _, d := range w.data {
		out = append(out, d.compressed...)
	}
	return out, nil
}

// Compress returns the zlib stream AddData stores for b: deterministic, and
// reusable with AddRawData when the same blob goes into several files.
func Compress(b []byte) []byte { return compressZlib(b) }
