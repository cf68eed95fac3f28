package demo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"twserver/netproto"
	"twserver/snap"
)

// Encoder builds a version-4 demo in memory: the header and map first, then
// one chunk per call. The caller takes the bytes with Bytes/Clear (whole
// chunks only) and writes them in order. An Encoder is not safe for
// concurrent use.
type Encoder struct {
	buf          []byte
	firstTick    int32
	lastMarker   int32
	lastKeyframe int32
	prev         snap.Snapshot
	sizes        *snap.SizeTable
	ints         []int32
	raw          []byte
	comp         []byte
	markers      []int32
}

// ErrChunkTooLarge is returned for a chunk whose compressed payload does not
// fit the 16-bit chunk size.
var ErrChunkTooLarge = errors.New("demo: chunk too large")

// NewEncoder starts a 0.7 demo of the given type ("server" or "client") on
// a map (name, file bytes and crc), stamped with now (local time).
func NewEncoder(kind, mapName string, mapData []byte, mapCRC uint32, now time.Time) *Encoder {
	return newEncoder(NetVersion07, snap.Sizes7, kind, mapName, mapData, mapCRC, now)
}

// NewEncoder6 starts a 0.6 demo (net version NetVersion06, snapshots with
// the 0.6 static sizes), the kind the DDNet client plays; its snapshots and
// messages must be in the 0.6 form (dialect6).
func NewEncoder6(kind, mapName string, mapData []byte, mapCRC uint32, now time.Time) *Encoder {
	return newEncoder(NetVersion06, snap.Sizes6, kind, mapName, mapData, mapCRC, now)
}

func newEncoder(netVersion string, sizes *snap.SizeTable, kind, mapName string, mapData []byte, mapCRC uint32, now time.Time) *Encoder {
	e := &Encoder{firstTick: -1, lastMarker: -1, lastKeyframe: -1, sizes: sizes}
	var h [HeaderSize]byte
	copy(h[:], Magic)
	h[7] = Version
	putStr(h[offNetVersion:offNetVersion+64], netVersion)
	putStr(h[offMapName:offMapName+64], mapName)
	be.PutUint32(h[offMapSize:], uint32(len(mapData)))
	be.PutUint32(h[offMapCRC:], mapCRC)
	putStr(h[offType:offType+8], kind)
	putStr(h[offTimestamp:offTimestamp+20], now.Format(timestampLayout))
	e.buf = append(e.buf, h[:]...)
	e.buf = append(e.buf, mapData...)
	return e
}

// Bytes returns the bytes produced since the last Clear.
func (e *Encoder) Bytes() []byte { return e.buf }

// Clear drops the produced bytes (after the caller wrote them).
func (e *Encoder) Clear() { e.buf = e.buf[:0] }

// LastTick returns the tick of the last tick marker (-1 before the first).
func (e *Encoder) LastTick() int32 { return e.lastMarker }

// Length returns the demo length in seconds for the header.
func (e *Encoder) Length() int32 {
	if e.firstTick < 0 {
		return 0
	}
	return (e.lastMarker - e.firstTick) / TickSpeed
}

// AddMarker adds a timeline marker at the last tick (at most 64).
func (e *Encoder) AddMarker() {
	if len(e.markers) < MaxTimelineMarkers && e.lastMarker >= 0 {
		e.markers = append(e.markers, e.lastMarker)
	}
}

// Markers returns the timeline markers.
func (e *Encoder) Markers() []int32 { return e.markers }

func (e *Encoder) tickMarker(tick int32, keyframe bool) {
	if e.lastMarker < 0 || tick-e.lastMarker > 63 || tick-e.lastMarker < 1 || keyframe {
		b := byte(flagTickMarker)
		if keyframe {
			b |= flagKeyframe
		}
		e.buf = append(e.buf, b)
		e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(tick))
	} else {
		e.buf = append(e.buf, flagTickMarker|byte(tick-e.lastMarker))
	}
	e.lastMarker = tick
	if e.firstTick < 0 {
		e.firstTick = tick
	}
}

// chunk appends a data chunk holding ints (varint-compressed, then Huffman).
func (e *Encoder) chunk(typ int, ints []int32) error {
	if len(ints)*4 > MaxPayload {
		return ErrChunkTooLarge
	}
	e.raw = snap.AppendInts(e.raw[:0], ints)
	var err error
	e.comp, err = netproto.HuffmanCompress(e.comp[:0], e.raw)
	if err != nil {
		return err
	}
	n := len(e.comp)
	if n > 0xffff {
		return ErrChunkTooLarge
	}
	h := byte(typ&3) << 5
	switch {
	case n < chunkSizeOneByte:
		e.buf = append(e.buf, h|byte(n))
	case n < 256:
		e.buf = append(e.buf, h|chunkSizeOneByte, byte(n))
	default:
		e.buf = append(e.buf, h|chunkSizeTwoBytes, byte(n), byte(n>>8))
	}
	e.buf = append(e.buf, e.comp...)
	return nil
}

// AppendSnapshotInts appends the serialized form of s (data size, item
// count, offsets, then key and data of every item) as ints.
func AppendSnapshotInts(dst []int32, s *snap.Snapshot) []int32 {
	n := s.NumItems()
	size := 0
	for i := range n {
		size += 4 * (1 + len(s.ItemData(i)))
	}
	dst = append(dst, int32(size), int32(n))
	off := 0
	for i := range n {
		dst = append(dst, int32(off))
		off += 4 * (1 + len(s.ItemData(i)))
	}
	for i := range n {
		dst = append(dst, int32(s.Key(i)))
		dst = append(dst, s.ItemData(i)...)
	}
	return dst
}

// Snapshot records the snapshot of tick (ticks strictly increasing): a
// keyframe (full snapshot) when none was written in the last 250 ticks,
// otherwise the delta to the previous one (nothing if unchanged).
func (e *Encoder) Snapshot(tick int32, s *snap.Snapshot) error {
	if e.lastMarker >= 0 && tick <= e.lastMarker {
		return fmt.Errorf("demo: tick %d not after %d", tick, e.lastMarker)
	}
	if e.lastKeyframe < 0 || tick-e.lastKeyframe > KeyframeInterval {
		e.tickMarker(tick, true)
		e.ints = AppendSnapshotInts(e.ints[:0], s)
		if err := e.chunk(ChunkSnapshot, e.ints); err != nil {
			return err
		}
		e.lastKeyframe = tick
		e.prev.CopyFrom(s)
		return nil
	}
	e.tickMarker(tick, false)
	e.ints = snap.AppendDelta(e.ints[:0], &e.prev, s, e.sizes)
	if snap.IsEmptyDelta(e.ints) {
		return nil
	}
	if err := e.chunk(ChunkDelta, e.ints); err != nil {
		return err
	}
	e.prev.CopyFrom(s)
	return nil
}

// Message records one packed net message (header varint included). It
// belongs to the tick of the last snapshot; messages before the first
// snapshot are dropped (the player needs a tick for them).
func (e *Encoder) Message(msg []byte) error {
	if e.lastMarker < 0 {
		return nil
	}
	e.ints = e.ints[:0]
	for i := 0; i < len(msg); i += 4 {
		var w [4]byte
		copy(w[:], msg[i:])
		e.ints = append(e.ints, int32(binary.LittleEndian.Uint32(w[:])))
	}
	return e.chunk(ChunkMessage, e.ints)
}

// PatchFile writes the length (seconds) and the timeline markers into the
// header of a complete demo file (done when recording stops).
func PatchFile(path string, length int32, markers []int32) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = Patch(f, length, markers)
	if err2 := f.Sync(); err == nil {
		err = err2
	}
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

// Patch writes the length (seconds) and the timeline markers (at most
// MaxTimelineMarkers are kept) into the header of a demo written to w.
func Patch(w io.WriterAt, length int32, markers []int32) error {
	var b [4]byte
	be.PutUint32(b[:], uint32(length))
	if _, err := w.WriteAt(b[:], offLength); err != nil {
		return err
	}
	markers = markers[:min(len(markers), MaxTimelineMarkers)]
	m := make([]byte, 4+4*MaxTimelineMarkers)
	be.PutUint32(m, uint32(len(markers)))
	for i, t := range markers {
		be.PutUint32(m[4+4*i:], uint32(t))
	}
	_, err := w.WriteAt(m, offNumMarkers)
	return err
}
