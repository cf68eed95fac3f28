// Package twmap loads Teeworlds 0.7 map files into the model the server needs:
// the game layer (collision tiles and entities), map identity (name, CRC,
// SHA-256, size, bytes for download) and a summary of the rendering items
// (info, images, groups, layers). It also embeds the project's own default map.
//
// Layout and semantics follow the world specification, sections 1.1 to 1.5.
package twmap

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"twserver/world/datafile"
)

// Resource bounds of Load.
const (
	// MaxNameLen is the longest accepted map name, in bytes (the reference
	// keeps map names in 128-byte buffers including the NUL).
	MaxNameLen = 127
	// MaxLayerDim bounds the width and the height of every tile layer.
	MaxLayerDim = 1 << 15
	// MaxGameTiles bounds width*height of the game layer (16 Mi tiles).
	MaxGameTiles = 1 << 24
	// MaxStringLen bounds the info strings (author, version, credits, license)
	// and image names that Load decodes.
	MaxStringLen = 1 << 10
)

// Errors returned by Load. Returned errors wrap one of these (or a datafile
// error) with details; test with errors.Is.
var (
	// ErrName: the map name is empty, too long or contains a path separator.
	ErrName = errors.New("twmap: invalid map name")
	// ErrNoVersion: the VERSION item is missing or not version 1.
	ErrNoVersion = errors.New("twmap: missing or unsupported map version item")
	// ErrNoGameLayer: no tile layer carries the game flag.
	ErrNoGameLayer = errors.New("twmap: no game layer")
	// ErrBadItem: a map item is too short or references something out of range.
	ErrBadItem = errors.New("twmap: malformed map item")
	// ErrBadTiles: tile data does not match the layer's dimensions.
	ErrBadTiles = errors.New("twmap: malformed tile data")
	// ErrStandardMap: the name is one of the official map names but the file
	// is not a known official version, so 0.7.5 clients would refuse it.
	ErrStandardMap = errors.New("twmap: standard map name with non-standard content")
)

// Map is a loaded map. Everything is read-only after Load.
type Map struct {
	// Name is the map name as announced to clients (no ".map" suffix).
	Name string
	// Data is the whole map file, served to downloading clients.
	Data []byte
	// CRC is the zlib/IEEE crc32 of Data, as clients compute it.
	CRC uint32
	// SHA256 is the SHA-256 of Data.
	SHA256 [32]byte
	// Size is len(Data).
	Size int

	// Width and Height are the game layer dimensions in tiles.
	Width, Height int
	// Game holds the game-layer tile indices, row-major (index y*Width+x):
	// 0 air, 1 solid, 2 death, 3 unhookable solid, >= 192 entities
	// (EntityOffset + Entity*), see world spec 1.3.
	Game []byte
	// GameFlags holds the game-layer tile flags (TileFlag*), row-major.
	GameFlags []byte
	// Entities lists the game-layer entity tiles in reference scan order
	// (rows top to bottom, left to right); ENTITY_NULL and unknown entity
	// numbers are skipped.
	Entities []Entity

	// Info is the optional INFO item (zero when absent).
	Info Info
	// Images are the IMAGE items, in index order.
	Images []Image
	// Groups are the GROUP items with their layers, in drawing order.
	Groups []Group
	// Layers are all LAYER items, in index order.
	Layers []Layer
	// GameGroup and GameLayer are the indices of the game layer's group (in
	// Groups) and of the game layer itself (in Layers).
	GameGroup, GameLayer int
	// NumEnvelopes is the number of ENVELOPE items.
	NumEnvelopes int

	file *datafile.File
}

// Entity is one entity tile of the game layer.
type Entity struct {
	// Kind is the entity number (Entity* constants, tile index - EntityOffset).
	Kind int
	// X and Y are the tile coordinates; the world position is the tile
	// centre (X*32+16, Y*32+16).
	X, Y int
}

// Pos returns the entity's world position (tile centre), as the reference
// places it.
func (e Entity) Pos() (x, y float32) {
	return float32(e.X*TileSize + TileSize/2), float32(e.Y*TileSize + TileSize/2)
}

// Info is the optional INFO item's strings.
type Info struct {
	// Author, Version (the map's own version string), Credits and License
	// are the decoded strings, empty when the item stores -1 (absent).
	Author, Version, Credits, License string
}

// Image is an IMAGE item.
type Image struct {
	// Name is the image name (for external images, the mapres file name
	// without ".png").
	Name string
	// Width and Height are the stored pixel dimensions.
	Width, Height int
	// External reports whether the client loads the image from its own
	// mapres directory instead of the map.
	External bool
	// Data is the blob index of embedded pixel data, or -1.
	Data int
	// Format is 0 for RGB and 1 for RGBA (image item version 2+; version 1
	// images are RGBA).
	Format int
}

// Group is a GROUP item.
type Group struct {
	// Name is the packed group name (group version 3+, else empty).
	Name string
	// OffsetX and OffsetY shift the group's layers, in world units.
	OffsetX, OffsetY int32
	// ParallaxX and ParallaxY are percentages: 100 moves with the camera.
	ParallaxX, ParallaxY int32
	// StartLayer and NumLayers select the group's layers in Map.Layers.
	StartLayer, NumLayers int
	// UseClipping and the Clip rectangle (group version 2+) limit drawing
	// to a world-space rectangle.
	UseClipping  bool
	ClipX, ClipY int32
	ClipW, ClipH int32
}

// Layer is a LAYER item: a tile layer or a quads layer.
type Layer struct {
	// Type is LayerTypeTiles or LayerTypeQuads (others are kept but unused).
	Type int
	// Flags are the layer header flags (LayerFlagDetail).
	Flags int
	// Name is the packed layer name (empty for old layer versions).
	Name string
	// Tiles describes a tile layer (nil otherwise).
	Tiles *TileLayer
	// Quads describes a quads layer (nil otherwise).
	Quads *QuadLayer
}

// TileLayer is the tilemap part of a tile LAYER item.
type TileLayer struct {
	// Version is the tilemap version: 3 raw tiles, 4 run-length tiles.
	Version int
	// Width and Height are the layer size in tiles.
	Width, Height int
	// Flags are the tile layer flags (TilesLayerFlagGame).
	Flags int
	// Color is r, g, b, a (0..255).
	Color [4]int32
	// ColorEnv is the ENVELOPE index animating Color, or -1; ColorEnvOffset
	// is its time offset.
	ColorEnv       int
	ColorEnvOffset int32
	// Image is the IMAGE index or -1 for untextured.
	Image int
	// Data is the blob index of the tiles.
	Data int
}

// IsGame reports whether the layer is flagged as the game layer.
func (t *TileLayer) IsGame() bool { return t.Flags&TilesLayerFlagGame != 0 }

// QuadLayer is the quads part of a quads LAYER item.
type QuadLayer struct {
	// Version is the quads layer version.
	Version int
	// NumQuads is the number of quads in Data.
	NumQuads int
	// Data is the blob index of the quads (38 int32 each).
	Data int
	// Image is the IMAGE index or -1.
	Image int
}

// Tile is one stored tile of a tile layer.
type Tile struct {
	// Index is the tile index in the layer's image (game layer: Tile*
	// constants and entities); Flags are TileFlag* bits; Skip is the
	// run-length repeat count of tilemap version 4 (0 once expanded);
	// Reserved is unused.
	Index, Flags, Skip, Reserved byte
}

// Tile returns the game-layer tile index at (x, y), or TileAir outside.
func (m *Map) Tile(x, y int) byte {
	if x < 0 || y < 0 || x >= m.Width || y >= m.Height {
		return TileAir
	}
	return m.Game[y*m.Width+x]
}

// EntitiesOf returns the entities of one kind in scan order.
func (m *Map) EntitiesOf(kind int) []Entity {
	var out []Entity
	for _, e := range m.Entities {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// CountEntities returns how many entities of each kind the map holds,
// indexed by entity number.
func (m *Map) CountEntities() [NumEntities]int {
	var n [NumEntities]int
	for _, e := range m.Entities {
		n[e.Kind]++
	}
	return n
}

// LayerTiles decodes the tiles of tile layer i (index into Layers),
// expanding run-length data of tilemap version 4.
func (m *Map) LayerTiles(i int) ([]Tile, error) {
	if i < 0 || i >= len(m.Layers) || m.Layers[i].Tiles == nil {
		return nil, fmt.Errorf("%w: layer %d is not a tile layer", ErrBadItem, i)
	}
	return decodeTiles(m.file, m.Layers[i].Tiles)
}

// File returns the underlying datafile.
func (m *Map) File() *datafile.File { return m.file }

// ValidName reports whether name is acceptable as a map name: non-empty, at
// most MaxNameLen bytes, no path separators and no control characters.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return false
		}
	}
	return true
}

// Load parses a map file. name is the map name announced to clients. It
// fails when the name is invalid, when a standard map name (StandardMaps)
// carries content that is not an official version, and on any structural
// problem; it never panics on malformed input. data is retained as Map.Data
// and must not be modified afterwards.
func Load(name string, data []byte) (*Map, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("%w: %q", ErrName, name)
	}
	m := &Map{
		Name:   name,
		Data:   data,
		CRC:    crc32.ChecksumIEEE(data),
		SHA256: sha256.Sum256(data),
		Size:   len(data),
	}
	if err := CheckStandard(name, m.CRC, m.Size); err != nil {
		return nil, err
	}
	f, err := datafile.Load(data)
	if err != nil {
		return nil, fmt.Errorf("twmap: map %q: %w", name, err)
	}
	m.file = f
	if err := m.parse(); err != nil {
		return nil, fmt.Errorf("twmap: map %q: %w", name, err)
	}
	return m, nil
}
