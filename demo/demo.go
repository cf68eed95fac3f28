// Package demo writes and reads Teeworlds demo files (world.md section 7):
// a 436-byte header, the map file, then chunks (tick markers and Huffman-
// compressed snapshot, snapshot-delta and message payloads).
//
// Encoder builds a version-4 0.7 demo in memory chunk by chunk (sans-IO);
// the server hands its bytes to a file writer goroutine and patches the
// header's length and markers when the file is complete (PatchFile).
// Reader parses demos of versions 3 to 6 (0.6, 0.7 and DDNet) into ticks,
// snapshots and messages; tests use it to check what Encoder writes against
// the reference recordings.
package demo

import (
	"encoding/binary"
	"errors"
)

// File format constants (world.md 7.1, 7.2).
const (
	// Magic starts every demo ("TWDEMO\0").
	Magic = "TWDEMO\x00"
	// Version is the version written (0.6.5 and 0.7.5 both write 4).
	Version = 4
	// NetVersion07 is the 0.7.5 network version string; the 0.7.5 player
	// rejects any other.
	NetVersion07 = "0.7 802f1be60a05665f"
	// NetVersion06 is the 0.6 network version string, the one the DDNet
	// client plays demos of.
	NetVersion06 = "0.6 626fce9a778df4d4"
	// HeaderSize is the size of a version 4 header (with timeline markers).
	HeaderSize = 436
	// HeaderSizeV3 is the size of a version 3 header (no timeline markers).
	HeaderSizeV3 = 176
	// MaxTimelineMarkers is the number of timeline marker slots.
	MaxTimelineMarkers = 64
	// MaxPayload bounds the raw (uncompressed) payload of one chunk.
	MaxPayload = 64 << 10
	// MaxMapSize bounds the embedded map the reader accepts.
	MaxMapSize = 32 << 20
	// KeyframeInterval is the largest distance in ticks between keyframes
	// (SERVER_TICK_SPEED*5).
	KeyframeInterval = 250
	// TickSpeed is SERVER_TICK_SPEED.
	TickSpeed = 50
)

// Chunk types (CHUNKTYPE_*).
const (
	ChunkSnapshot = 1
	ChunkMessage  = 2
	ChunkDelta    = 3
)

// Chunk header flags (CHUNKTYPEFLAG_TICKMARKER, CHUNKTICKFLAG_KEYFRAME, and
// the DDNet ≥ 5 CHUNKTICKFLAG_TICK_COMPRESSED).
const (
	flagTickMarker     = 0x80
	flagKeyframe       = 0x40
	flagInlineTickV5   = 0x20
	chunkSizeOneByte   = 30
	chunkSizeTwoBytes  = 31
	offNetVersion      = 8
	offMapName         = 72
	offMapSize         = 136
	offMapCRC          = 140
	offType            = 144
	offLength          = 152
	offTimestamp       = 156
	offNumMarkers      = 176
	offMarkers         = 180
	timestampLayout    = "2006-01-02_15-04-05"
	ddnetSHA256Ext     = "\x6b\xe6\xda\x4a\xce\xbd\x38\x0c\x9b\x5b\x12\x89\xc8\x42\xd7\x80"
	ddnetSHA256ExtSize = 16 + 32
)

// Header is a demo file header.
type Header struct {
	Version    int
	NetVersion string
	MapName    string
	MapSize    uint32
	MapCRC     uint32
	Type       string // "server" or "client"
	Length     int32  // seconds
	Timestamp  string
	Markers    []int32
	MapSHA256  []byte // DDNet version 6 only
}

// Errors returned by the reader.
var (
	ErrBadMagic   = errors.New("demo: not a demo file")
	ErrVersion    = errors.New("demo: unsupported version")
	ErrTruncated  = errors.New("demo: truncated")
	ErrMalformed  = errors.New("demo: malformed chunk")
	ErrTooLarge   = errors.New("demo: size over limit")
	ErrBadPayload = errors.New("demo: bad chunk payload")
)

// cstr returns the NUL-terminated string at the start of b.
func cstr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// putStr writes s NUL-padded into b (truncated to len(b)-1).
func putStr(b []byte, s string) {
	n := copy(b[:len(b)-1], s)
	clear(b[n:])
}

var be = binary.BigEndian
