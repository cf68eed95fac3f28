package twmap

import (
	"errors"
	"fmt"

	"twserver/snap"
	"twserver/world/datafile"
)

// ErrSpec is returned by Encode for an inconsistent Spec.
var ErrSpec = errors.New("twmap: invalid map spec")

// Spec describes a simple map for Encode: an optional background gradient
// group, then one "Game" group holding visible tile layers and the game
// layer, all of the same size. This is the layout the 0.7 editor writes for
// a one-group map (world spec 1.5).
type Spec struct {
	// Info fills the INFO item; empty strings are stored as "absent" (-1).
	Info Info
	// Images are external images (stock tilesets the client ships).
	Images []ExternalImage
	// Background, when non-nil, adds a group with parallax 0 holding one
	// untextured quad with a vertical colour gradient.
	Background *Gradient
	// Width and Height are the size of every tile layer, in tiles.
	Width, Height int
	// Game holds the game-layer tile indices, row-major (len Width*Height).
	Game []byte
	// Layers are visible tile layers, drawn in order before the game layer.
	Layers []TileLayerSpec
}

// ExternalImage is an image the client loads from its own mapres directory.
type ExternalImage struct {
	// Name is the file name without ".png", e.g. "grass_main".
	Name string
	// Width and Height are the PNG's pixel size.
	Width, Height int
}

// Gradient is a vertical colour gradient, colours as r, g, b, a (0..255).
type Gradient struct {
	// Top and Bottom are the colours of the upper and lower corners.
	Top, Bottom [4]int32
}

// TileLayerSpec is one visible tile layer of a Spec.
type TileLayerSpec struct {
	// Name is the layer name (at most 11 bytes are stored).
	Name string
	// Image is an index into Spec.Images, or -1 for untextured tiles.
	Image int
	// Color is the layer tint r, g, b, a (0..255).
	Color [4]int32
	// Tiles are row-major, len Width*Height.
	Tiles []Tile
}

// Item payload versions Encode writes.
const (
	encInfoVersion     = 1
	encImageVersion    = 2 // with the format field
	encImageFormatRGBA = 1
	encGroupVersion    = 3
	encTilemapVersion  = 3 // raw tiles: read by 0.6, 0.7 and DDNet clients
	encQuadsVersion    = 2
	quadInts           = 38
	fixedOne           = 1 << 10 // 22.10 fixed point used by quad points
)

// Encode writes s as a map file. Output is deterministic.
func Encode(s *Spec) ([]byte, error) {
	n := s.Width * s.Height
	switch {
	case s.Width < 1 || s.Height < 1 || s.Width > MaxLayerDim || s.Height > MaxLayerDim || n > MaxGameTiles:
		return nil, fmt.Errorf("%w: size %dx%d", ErrSpec, s.Width, s.Height)
	case len(s.Game) != n:
		return nil, fmt.Errorf("%w: %d game tiles for %dx%d", ErrSpec, len(s.Game), s.Width, s.Height)
	}
	for i, l := range s.Layers {
		if len(l.Tiles) != n {
			return nil, fmt.Errorf("%w: layer %d has %d tiles for %dx%d", ErrSpec, i, len(l.Tiles), s.Width, s.Height)
		}
		if l.Image < -1 || l.Image >= len(s.Images) {
			return nil, fmt.Errorf("%w: layer %d uses image %d of %d", ErrSpec, i, l.Image, len(s.Images))
		}
	}

	var w datafile.Writer
	var errs []error
	item := func(typ, id int, words ...int32) {
		errs = append(errs, w.AddItemInts(typ, id, words))
	}
	data := func(b []byte) int32 {
		idx, err := w.AddData(b)
		errs = append(errs, err)
		return int32(idx)
	}
	str := func(s string) int32 {
		if s == "" {
			return -1
		}
		return data(append([]byte(s), 0))
	}

	item(ItemTypeVersion, 0, MapVersion)
	item(ItemTypeInfo, 0, encInfoVersion, str(s.Info.Author), str(s.Info.Version), str(s.Info.Credits), str(s.Info.License))
	for i, img := range s.Images {
		item(ItemTypeImage, i, encImageVersion, int32(img.Width), int32(img.Height), 1, str(img.Name), -1, encImageFormatRGBA)
	}

	group, layer := 0, 0
	addGroup := func(name string, parallax int32, numLayers int) {
		g := []int32{encGroupVersion, 0, 0, parallax, parallax, int32(layer), int32(numLayers), 0, 0, 0, 0, 0}
		item(ItemTypeGroup, group, append(g, packName(name)...)...)
		group++
	}
	if bg := s.Background; bg != nil {
		addGroup("Background", 0, 1)
		q := gradientQuad(bg)
		item(ItemTypeLayer, layer, append([]int32{0, LayerTypeQuads, 0, encQuadsVersion, 1, data(q), -1}, packName("Sky")...)...)
		layer++
	}
	addGroup("Game", 100, len(s.Layers)+1)
	tileLayer := func(name string, flags int32, image int, color [4]int32, tiles []byte) {
		words := []int32{0, LayerTypeTiles, 0, encTilemapVersion, int32(s.Width), int32(s.Height), flags,
			color[0], color[1], color[2], color[3], -1, 0, int32(image), data(tiles)}
		item(ItemTypeLayer, layer, append(words, packName(name)...)...)
		layer++
	}
	for _, l := range s.Layers {
		b := make([]byte, 0, n*tileBytes)
		for _, t := range l.Tiles {
			b = append(b, t.Index, t.Flags, t.Skip, t.Reserved)
		}
		tileLayer(l.Name, 0, l.Image, l.Color, b)
	}
	game := make([]byte, 0, n*tileBytes)
	for _, idx := range s.Game {
		game = append(game, idx, 0, 0, 0)
	}
	tileLayer("Game", TilesLayerFlagGame, -1, [4]int32{255, 255, 255, 255}, game)
	item(ItemTypeEnvPoints, 0) // the editor always writes it, empty

	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return w.Bytes()
}

// packName packs a group or layer name into its nameInts words (world spec
// 1.2: the StrToInts encoding), cutting it to 4*nameInts-1 bytes.
func packName(name string) []int32 {
	return snap.StrToInts(make([]int32, nameInts), name)
}

// gradientQuad returns the data blob of one untextured quad spanning
// 1600x1200 units around the screen centre (as the editor's default
// background), top corners in g.Top and bottom corners in g.Bottom.
func gradientQuad(g *Gradient) []byte {
	const hw, hh = 800 * fixedOne, 600 * fixedOne
	q := make([]int32, 0, quadInts)
	// Points: top-left, top-right, bottom-left, bottom-right, pivot.
	q = append(q, -hw, -hh, hw, -hh, -hw, hh, hw, hh, 0, 0)
	for _, c := range [][4]int32{g.Top, g.Top, g.Bottom, g.Bottom} {
		q = append(q, c[:]...)
	}
	// Texture coordinates (unused without an image), then position and
	// colour envelopes (none) with their offsets.
	q = append(q, 0, 0, fixedOne, 0, 0, fixedOne, fixedOne, fixedOne)
	q = append(q, -1, 0, -1, 0)
	b := make([]byte, 0, 4*quadInts)
	for _, v := range q {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b
}
