package demo

import (
	"encoding/binary"
	"fmt"
	"io"
	"unsafe"

	"twserver/netproto"
	"twserver/snap"
)

// Chunk is one decoded chunk.
type Chunk struct {
	Offset   int64 // byte offset of the chunk header
	Marker   bool  // a tick marker (Tick, Keyframe set)
	Keyframe bool
	Tick     int32   // tick of the marker, or of the last marker for data chunks
	Type     int     // ChunkSnapshot, ChunkMessage or ChunkDelta for data chunks
	Ints     []int32 // decoded payload (valid until the next Next)
}

// Reader reads a demo held in memory.
type Reader struct {
	data   []byte
	off    int
	Header Header
	Map    []byte
	tick   int32
	raw    []byte
	ints   []int32
}

// NewReader parses the header and the embedded map of a demo. Its errors,
// like those of Next, start with the byte offset of the field at fault.
func NewReader(data []byte) (*Reader, error) {
	r := &Reader{data: data, tick: -1}
	if len(data) < HeaderSizeV3 {
		return nil, fmt.Errorf("offset 0: %w: header of %d bytes", ErrTruncated, len(data))
	}
	if string(data[:7]) != Magic {
		return nil, fmt.Errorf("offset 0: %w", ErrBadMagic)
	}
	h := &r.Header
	h.Version = int(data[7])
	if h.Version < 3 || h.Version > 6 {
		return nil, fmt.Errorf("offset 7: %w %d", ErrVersion, h.Version)
	}
	h.NetVersion = cstr(data[offNetVersion : offNetVersion+64])
	h.MapName = cstr(data[offMapName : offMapName+64])
	h.MapSize = be.Uint32(data[offMapSize:])
	h.MapCRC = be.Uint32(data[offMapCRC:])
	h.Type = cstr(data[offType : offType+8])
	h.Length = int32(be.Uint32(data[offLength:]))
	h.Timestamp = cstr(data[offTimestamp : offTimestamp+20])
	off := HeaderSizeV3
	if h.Version >= 4 {
		if len(data) < HeaderSize {
			return nil, fmt.Errorf("offset 0: %w: header of %d bytes", ErrTruncated, len(data))
		}
		n := int(be.Uint32(data[offNumMarkers:]))
		if n < 0 || n > MaxTimelineMarkers {
			return nil, fmt.Errorf("offset %d: %w: %d timeline markers", offNumMarkers, ErrMalformed, n)
		}
		for i := range n {
			h.Markers = append(h.Markers, int32(be.Uint32(data[offMarkers+4*i:])))
		}
		off = HeaderSize
	}
	if h.Version >= 6 && len(data) >= off+ddnetSHA256ExtSize && string(data[off:off+16]) == ddnetSHA256Ext {
		h.MapSHA256 = data[off+16 : off+48]
		off += ddnetSHA256ExtSize
	}
	if h.MapSize > MaxMapSize {
		return nil, fmt.Errorf("offset %d: %w: map of %d bytes", offMapSize, ErrTooLarge, h.MapSize)
	}
	if len(data)-off < int(h.MapSize) {
		return nil, fmt.Errorf("offset %d: %w: map of %d bytes", off, ErrTruncated, h.MapSize)
	}
	r.Map = data[off : off+int(h.MapSize)]
	r.off = off + int(h.MapSize)
	return r, nil
}

// Next decodes the next chunk. It returns io.EOF at the end of the data.
func (r *Reader) Next(c *Chunk) error {
	if r.off >= len(r.data) {
		return io.EOF
	}
	start := r.off
	*c = Chunk{Offset: int64(start)}
	fail := func(err error) error { return fmt.Errorf("offset %d: %w", start, err) }
	b := r.data[r.off]
	r.off++
	if b&flagTickMarker != 0 {
		c.Marker = true
		c.Keyframe = b&flagKeyframe != 0
		var delta int32
		inline := false
		if r.Header.Version >= 5 {
			if b&flagInlineTickV5 != 0 {
				delta, inline = int32(b&0x1f), true
			}
		} else if b&0x3f != 0 {
			delta, inline = int32(b&0x3f), true
		}
		if inline {
			if r.tick < 0 {
				return fail(fmt.Errorf("%w: relative tick marker before any tick", ErrMalformed))
			}
			r.tick += delta
		} else {
			if len(r.data)-r.off < 4 {
				return fail(ErrTruncated)
			}
			r.tick = int32(binary.BigEndian.Uint32(r.data[r.off:]))
			r.off += 4
		}
		c.Tick = r.tick
		return nil
	}
	c.Type = int(b>>5) & 3
	size := int(b & 0x1f)
	switch size {
	case chunkSizeOneByte:
		if len(r.data)-r.off < 1 {
			return fail(ErrTruncated)
		}
		size = int(r.data[r.off])
		r.off++
	case chunkSizeTwoBytes:
		if len(r.data)-r.off < 2 {
			return fail(ErrTruncated)
		}
		size = int(r.data[r.off]) | int(r.data[r.off+1])<<8
		r.off += 2
	}
	if len(r.data)-r.off < size {
		return fail(ErrTruncated)
	}
	payload := r.data[r.off : r.off+size]
	r.off += size
	if c.Type == 0 {
		return fail(fmt.Errorf("%w: chunk type 0", ErrMalformed))
	}
	var err error
	r.raw, err = netproto.HuffmanDecompress(r.raw[:0], payload, MaxPayload*5/4)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrBadPayload, err))
	}
	r.ints, err = snap.ParseInts(r.ints[:0], r.raw, MaxPayload/4)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrBadPayload, err))
	}
	c.Ints = r.ints
	c.Tick = r.tick
	return nil
}

// MessageBytes returns a MESSAGE chunk's payload as bytes (little-endian words).
func MessageBytes(ints []int32) []byte {
	b := make([]byte, 0, 4*len(ints))
	for _, v := range ints {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// UnserializeSnapshot rebuilds a snapshot from a SNAPSHOT chunk's ints,
// checking the layout the 0.7.5 player checks (sizes, offsets, keys).
func UnserializeSnapshot(dst *snap.Snapshot, ints []int32, b *snap.Builder) error {
	if len(ints) < 2 {
		return fmt.Errorf("%w: snapshot header", ErrBadPayload)
	}
	size, n := ints[0], ints[1]
	if n < 0 || size < 0 || int64(n) > int64(len(ints)-2) || int64(size)%4 != 0 {
		return fmt.Errorf("%w: snapshot counts %d/%d", ErrBadPayload, n, size)
	}
	items := ints[2+n:]
	if int64(len(items))*4 != int64(size) {
		return fmt.Errorf("%w: snapshot data size %d, have %d bytes", ErrBadPayload, size, len(items)*4)
	}
	offs := ints[2 : 2+n]
	b.Reset()
	for i := range int(n) {
		o := offs[i] / 4
		end := int32(len(items))
		if i+1 < int(n) {
			end = offs[i+1] / 4
		}
		if offs[i]%4 != 0 || o < 0 || end <= o || end > int32(len(items)) {
			return fmt.Errorf("%w: item %d offset %d", ErrBadPayload, i, offs[i])
		}
		key := uint32(items[o])
		d, err := b.NewItem(uint16(key>>16), uint16(key), int(end-o-1))
		if err != nil {
			return fmt.Errorf("%w: item %d: %v", ErrBadPayload, i, err)
		}
		copy(d, items[o+1:end])
	}
	b.Finish(dst)
	return nil
}

// Tick is what a demo holds for one tick: its snapshot (after applying
// deltas) and the messages recorded in it. The first tick also holds the
// messages recorded before its marker: a client that starts recording
// between a message and the next snapshot writes that message first (the
// real 0.7.5 client does).
type Tick struct {
	Tick     int32
	Keyframe bool
	// Snap is shared by consecutive ticks whose snapshot did not change:
	// treat it as read-only.
	Snap     *snap.Snapshot
	Messages [][]byte
}

// MaxReadAllBytes bounds what ReadAll keeps: the serialized size of every
// distinct snapshot, the message bytes, and a Tick per tick marker. A demo
// of a few bytes per tick could otherwise ask for a copy of a 64 KiB
// snapshot per tick, or a Tick (about 50 bytes) per 1-byte marker.
const MaxReadAllBytes = 1 << 30

// tickHeld is what ReadAll keeps of a tick marker.
const tickHeld = int(unsafe.Sizeof(Tick{}))

// ReadAll decodes a whole demo into ticks (for tests and tools). sizes is
// the static size table of the demo's protocol (snap.Sizes7 for 0.7). On an
// error it also returns the ticks read so far; the last one may be
// incomplete. It keeps at most MaxReadAllBytes (ErrTooLarge).
func ReadAll(data []byte, sizes *snap.SizeTable) (*Reader, []Tick, error) {
	return readAll(data, sizes, MaxReadAllBytes)
}

func readAll(data []byte, sizes *snap.SizeTable, maxBytes int) (*Reader, []Tick, error) {
	r, err := NewReader(data)
	if err != nil {
		return nil, nil, err
	}
	var ticks []Tick
	var cur, tmp snap.Snapshot
	var b snap.Builder
	var last *snap.Snapshot // copy of cur, shared by the ticks that follow it
	var early [][]byte      // messages before the first tick marker
	held := 0
	var c Chunk
	for {
		err := r.Next(&c)
		if err == io.EOF {
			return r, ticks, nil
		}
		if err != nil {
			return r, ticks, err
		}
		if c.Marker {
			if held += tickHeld; held > maxBytes {
				return r, ticks, fmt.Errorf("offset %d: %w: demo holds over %d bytes", c.Offset, ErrTooLarge, maxBytes)
			}
			ticks = append(ticks, Tick{Tick: c.Tick, Keyframe: c.Keyframe, Snap: last})
			if len(ticks) == 1 {
				ticks[0].Messages, early = early, nil
			}
			continue
		}
		if c.Type == ChunkMessage {
			if held += 4 * len(c.Ints); held > maxBytes {
				return r, ticks, fmt.Errorf("offset %d: %w: demo holds over %d bytes", c.Offset, ErrTooLarge, maxBytes)
			}
			msgs := &early // before the first marker: the first tick's
			if len(ticks) > 0 {
				msgs = &ticks[len(ticks)-1].Messages
			}
			*msgs = append(*msgs, MessageBytes(c.Ints))
			continue
		}
		if len(ticks) == 0 {
			return r, ticks, fmt.Errorf("offset %d: %w: a snapshot before the first tick", c.Offset, ErrMalformed)
		}
		t := &ticks[len(ticks)-1]
		switch c.Type {
		case ChunkSnapshot:
			if err := UnserializeSnapshot(&cur, c.Ints, &b); err != nil {
				return r, ticks, fmt.Errorf("offset %d: %w", c.Offset, err)
			}
		case ChunkDelta:
			if last == nil {
				return r, ticks, fmt.Errorf("offset %d: %w: delta without a keyframe", c.Offset, ErrMalformed)
			}
			if err := snap.ApplyDelta(&tmp, &cur, c.Ints, sizes); err != nil {
				return r, ticks, fmt.Errorf("offset %d: delta: %w", c.Offset, err)
			}
			cur.CopyFrom(&tmp)
		}
		if held += cur.Size(); held > maxBytes {
			return r, ticks, fmt.Errorf("offset %d: %w: demo holds over %d bytes", c.Offset, ErrTooLarge, maxBytes)
		}
		last = new(snap.Snapshot)
		last.CopyFrom(&cur)
		t.Snap = last
	}
}
