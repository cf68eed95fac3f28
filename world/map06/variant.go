// Package map06 derives the 0.6 variant of a Teeworlds 0.7 map: the file a
// server sends to vanilla 0.6 and DDNet clients, which cannot read several
// 0.7-only parts of the map format.
//
// What changes (and why a 0.6 or DDNet 16.4 client needs it):
//
//   - Tile layers of tilemap version 4 (0.7 run-length "skip" tiles) are
//     expanded to version 3, width*height*4 raw bytes; 0.6 clients read the
//     blob as raw tiles whatever the version says.
//   - Tile layer flags keep only the game bit: DDNet reads the bits 0.7
//     ignores as tele/speedup/front/switch/tune layers.
//   - Image items become version 1 (6 words, RGBA): embedded RGB images are
//     widened to RGBA, since 0.6 clients upload every embedded image as RGBA.
//   - External images the 0.6 clients do not ship, or whose shipped copy
//     shows other tiles in a cell a tile layer of this map draws (0.7
//     redrew grass_main, grass_doodads, winter_main, desert_main,
//     generic_unhookable, ...), are embedded from the Teeworlds 0.7.5 data
//     (stock images only; the per-cell table comes from cmd gen, see
//     gen/main.go). Quad layers embed an external image only when the
//     clients lack it entirely: quads draw pictures (clouds, moon,
//     mountains) that 0.6 clients ship under the same names, some at other
//     resolutions, and embedding them would cost hundreds of kilobytes.
//   - Envelopes of version 3 (22-word bezier points) become version 2 with
//     6-word points; bezier curves become linear, the fallback 0.6 clients
//     use for any curve type they do not know.
//   - Layer types other than tiles and quads become invalid (type 0) layers,
//     and items of types other than the seven 0.7 map item types are
//     dropped: the 0.7 client ignores both, a DDNet client would not.
//
// Everything else (groups, quads, info, item ids, unchanged data blobs
// byte for byte) is kept. A map that needs none of these changes is served
// as is (Variant.Same, zero copy). The output is a pure function of the map
// bytes. Hostile maps give an error, never a panic, and every resource the
// conversion may use is bounded (MaxSize, MaxExpanded, MaxImages).
package map06

import (
	"crypto/sha256"
	"errors"
	"hash/crc32"

	"twserver/world/twmap"
)

// Resource bounds of Derive.
const (
	// MaxSize bounds the size of a variant file, in bytes. The 0.6 map
	// download moves one chunk per round trip for vanilla clients, so a
	// bigger file is not something a server should offer anyway.
	MaxSize = 16 << 20
	// MaxExpanded bounds the bytes of data blobs the conversion creates
	// before compression (expanded tiles, RGBA images, embedded images),
	// so a small hostile map cannot make the server allocate much more.
	MaxExpanded = 96 << 20
	// MaxImages is the number of images 0.6 clients load (the client's
	// texture array); a map with more cannot be drawn by them.
	MaxImages = 64
	// MaxImageDim bounds the width and height of an image the conversion
	// widens or embeds.
	MaxImageDim = 1 << 13
)

// Errors returned by Derive. Returned errors wrap one of these (or a
// datafile or twmap error) with details; test with errors.Is.
var (
	// ErrTooBig: the variant would exceed MaxSize or MaxExpanded, or the
	// map has more than MaxImages images.
	ErrTooBig = errors.New("map06: 0.6 variant exceeds a limit")
	// ErrBadItem: an item the conversion reads is too short or refers to
	// something out of range.
	ErrBadItem = errors.New("map06: malformed map item")
	// ErrBadData: a data blob does not hold what its item declares (short
	// tile, quad or image data, a blob used in two incompatible ways).
	ErrBadData = errors.New("map06: malformed map data")
	// ErrImageFormat: an image item declares a pixel format other than RGB
	// or RGBA.
	ErrImageFormat = errors.New("map06: unsupported image format")
)

// Variant is the 0.6 form of a map: the bytes, CRC-32, size and SHA-256 a
// server announces to 0.6 clients in MAP_CHANGE (SHA-256 in DDNet's
// map-details) and serves in MAP_DATA.
type Variant struct {
	// Data is the variant file. When Same is true it is the map's own
	// Data slice (shared, not copied); never modify it.
	Data []byte
	// CRC is the zlib/IEEE crc32 of Data, as 0.6 clients check it.
	CRC uint32
	// SHA256 is the SHA-256 of Data.
	SHA256 [32]byte
	// Size is len(Data).
	Size int
	// Same reports that the map needed no change: Data, CRC, SHA256 and
	// Size are the map's own.
	Same bool
	// Embedded lists, in image order, the names of the external images
	// this variant embeds from the Teeworlds 0.7.5 data.
	Embedded []string
}

// Derive returns the 0.6 variant of m. It reads m's datafile and never
// modifies m. It is safe to call concurrently, also on the same map.
//
// A server calls it once per map load, next to twmap.Load, and keeps the
// result: 0.6 clients get the variant's CRC and Size in MAP_CHANGE (and its
// SHA256 in DDNet's map-details) under the map's own name and download
// Variant.Data, while 0.7 clients keep getting the map itself. Stock
// images are embedded already compressed (package stockblob), so a variant
// costs the tile layers' conversion and a copy. When Derive
// fails the map is still fine for 0.7 clients; a server should then refuse
// 0.6 clients on that map with the error's text.
func Derive(m *twmap.Map) (*Variant, error) {
	c, err := plan(m)
	if err != nil {
		return nil, err
	}
	if !c.needed() {
		return &Variant{Data: m.Data, CRC: m.CRC, SHA256: m.SHA256, Size: m.Size, Same: true}, nil
	}
	data, err := c.build()
	if err != nil {
		return nil, err
	}
	return &Variant{
		Data:     data,
		CRC:      crc32.ChecksumIEEE(data),
		SHA256:   sha256.Sum256(data),
		Size:     len(data),
		Embedded: c.embeddedNames(),
	}, nil
}
