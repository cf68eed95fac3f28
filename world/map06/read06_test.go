package map06

import (
	"bytes"
	"fmt"

	"twserver/world/datafile"
	"twserver/world/twmap"
)

// This file reads a map the way a 0.6 client (vanilla 0.6.5 or DDNet 16.4)
// does, and is strict about everything those clients take on trust: item
// layouts and versions, raw tile blobs of width*height*4 bytes,
// image items of six words with RGBA pixels, 6-word envelope points.

// view06 is a map as a 0.6 client sees it.
type view06 struct {
	images []image06
	layers []layer06
	envs   []env06
	points [][6]int32
}

type image06 struct {
	name          string
	width, height int
	external      bool
	pixels        []byte // RGBA, embedded images only
}

type layer06 struct {
	typ, flags    int
	version       int // tilemap version (tile layers)
	width, height int
	tileFlags     int
	image         int
	tiles         []byte // width*height*4 raw tiles (tile layers)
}

type env06 struct{ version, channels, start, num int }

func (v *view06) tile(layer, i int) twmap.Tile {
	b := v.layers[layer].tiles[4*i:]
	return twmap.Tile{Index: b[0], Flags: b[1], Skip: b[2], Reserved: b[3]}
}

// read06 parses a 0.6 map and returns an error for anything a 0.6 client
// would misread.
func read06(data []byte) (*view06, error) {
	f, err := datafile.Load(data)
	if err != nil {
		return nil, err
	}
	if it, ok := f.Find(twmap.ItemTypeVersion, 0); !ok || it.NumInts() < 1 {
		return nil, fmt.Errorf("no version item")
	} else if v, _ := it.Int(0); v != 1 {
		return nil, fmt.Errorf("version item %d", v)
	}
	for _, t := range f.Types() {
		if t.Type > twmap.ItemTypeEnvPoints {
			return nil, fmt.Errorf("item type %d is not a 0.6 map item", t.Type)
		}
	}
	v := &view06{}
	str := func(idx int32) (string, error) {
		b, err := f.Data(int(idx))
		if err != nil {
			return "", err
		}
		n := bytes.IndexByte(b, 0)
		if n < 0 {
			return "", fmt.Errorf("string blob %d has no NUL", idx)
		}
		return string(b[:n]), nil
	}
	for i, it := range f.ItemsOfType(twmap.ItemTypeImage) {
		w := it.Ints()
		if len(w) != 6 || w[0] != 1 {
			return nil, fmt.Errorf("image %d: %d words, version %v; 0.6 has 6 words, version 1", i, len(w), w[:min(1, len(w))])
		}
		img := image06{width: int(w[1]), height: int(w[2]), external: w[3] != 0}
		if w[3] != 0 && w[3] != 1 {
			return nil, fmt.Errorf("image %d: external %d", i, w[3])
		}
		if img.name, err = str(w[4]); err != nil {
			return nil, fmt.Errorf("image %d name: %w", i, err)
		}
		if !img.external {
			if img.pixels, err = f.Data(int(w[5])); err != nil {
				return nil, fmt.Errorf("image %d pixels: %w", i, err)
			}
			if img.width < 1 || img.height < 1 || len(img.pixels) < img.width*img.height*4 {
				return nil, fmt.Errorf("image %d: %d bytes for %dx%d RGBA", i, len(img.pixels), img.width, img.height)
			}
		}
		v.images = append(v.images, img)
	}
	if len(v.images) > MaxImages {
		return nil, fmt.Errorf("%d images", len(v.images))
	}
	for k, it := range f.ItemsOfType(twmap.ItemTypeLayer) {
		w := it.Ints()
		if len(w) < 3 {
			return nil, fmt.Errorf("layer %d: %d words", k, len(w))
		}
		l := layer06{typ: int(w[1]), flags: int(w[2]), image: -1}
		switch l.typ {
		case twmap.LayerTypeTiles:
			if len(w) < 15 {
				return nil, fmt.Errorf("tile layer %d: %d words", k, len(w))
			}
			l.version, l.width, l.height, l.tileFlags = int(w[3]), int(w[4]), int(w[5]), int(w[6])
			l.image = int(w[13])
			switch {
			case l.version > 3:
				return nil, fmt.Errorf("tile layer %d: tilemap version %d", k, l.version)
			case l.version == 3 && len(w) < 18:
				return nil, fmt.Errorf("tile layer %d: version 3 without a name (%d words)", k, len(w))
			case l.tileFlags&^twmap.TilesLayerFlagGame != 0:
				return nil, fmt.Errorf("tile layer %d: flags %#x beyond the game bit", k, l.tileFlags)
			case l.image < -1 || l.image >= len(v.images):
				return nil, fmt.Errorf("tile layer %d: image %d of %d", k, l.image, len(v.images))
			case l.width < 1 || l.height < 1:
				return nil, fmt.Errorf("tile layer %d: %dx%d", k, l.width, l.height)
			}
			if l.tiles, err = f.Data(int(w[14])); err != nil {
				return nil, fmt.Errorf("tile layer %d: %w", k, err)
			}
			if len(l.tiles) < l.width*l.height*4 {
				return nil, fmt.Errorf("tile layer %d: %d bytes of tiles for %dx%d", k, len(l.tiles), l.width, l.height)
			}
		case twmap.LayerTypeQuads:
			if len(w) < 7 {
				return nil, fmt.Errorf("quads layer %d: %d words", k, len(w))
			}
			l.image = int(w[6])
			if l.image < -1 || l.image >= len(v.images) {
				return nil, fmt.Errorf("quads layer %d: image %d of %d", k, l.image, len(v.images))
			}
			if w[4] > 0 {
				q, err := f.Data(int(w[5]))
				if err != nil || len(q) < int(w[4])*38*4 {
					return nil, fmt.Errorf("quads layer %d: %d quads, %d bytes (%v)", k, w[4], len(q), err)
				}
			}
		case twmap.LayerTypeInvalid, twmap.LayerTypeGame:
		default:
			return nil, fmt.Errorf("layer %d: type %d", k, l.typ)
		}
		v.layers = append(v.layers, l)
	}
	game := false
	for g, it := range f.ItemsOfType(twmap.ItemTypeGroup) {
		w := it.Ints()
		if len(w) < 7 || w[0] > 3 || (w[0] >= 2 && len(w) < 12) || (w[0] >= 3 && len(w) < 15) {
			return nil, fmt.Errorf("group %d: %d words, version %d", g, len(w), w[0])
		}
		if w[5] < 0 || w[6] < 0 || int(w[5])+int(w[6]) > len(v.layers) {
			return nil, fmt.Errorf("group %d: layers [%d, +%d) of %d", g, w[5], w[6], len(v.layers))
		}
		for k := int(w[5]); k < int(w[5]+w[6]); k++ {
			game = game || (v.layers[k].typ == twmap.LayerTypeTiles && v.layers[k].tileFlags&twmap.TilesLayerFlagGame != 0)
		}
	}
	if !game {
		return nil, fmt.Errorf("no game layer in any group")
	}
	if pts := f.ItemsOfType(twmap.ItemTypeEnvPoints); len(pts) > 0 {
		w := pts[0].Ints()
		if len(w)%6 != 0 {
			return nil, fmt.Errorf("envelope points: %d words, not 6-word points", len(w))
		}
		for p := 0; p < len(w); p += 6 {
			v.points = append(v.points, [6]int32(w[p:]))
		}
	}
	for k, it := range f.ItemsOfType(twmap.ItemTypeEnvelope) {
		w := it.Ints()
		// The clients read any version below 2 as version 1.
		if len(w) < 12 || w[0] > 2 || (w[0] == 2 && len(w) < 13) {
			return nil, fmt.Errorf("envelope %d: %d words, version %v", k, len(w), w[:min(1, len(w))])
		}
		e := env06{version: int(w[0]), channels: int(w[1]), start: int(w[2]), num: int(w[3])}
		if e.start < 0 || e.num < 0 || e.start+e.num > len(v.points) {
			return nil, fmt.Errorf("envelope %d: points [%d, +%d) of %d", k, e.start, e.num, len(v.points))
		}
		v.envs = append(v.envs, e)
	}
	return v, nil
}

// points07 returns envelope k's points of a 0.7 map as the 0.7 client reads
// them (22 words per point for version 3 envelopes, else 6).
func points07(m *twmap.Map, k int) [][]int32 {
	f := m.File()
	env := f.ItemsOfType(twmap.ItemTypeEnvelope)[k].Ints()
	var pts []int32
	if items := f.ItemsOfType(twmap.ItemTypeEnvPoints); len(items) > 0 {
		pts = items[0].Ints()
	}
	stride := 6
	if env[0] >= 3 {
		stride = 22
	}
	var out [][]int32
	for p := int(env[2]); p < int(env[2]+env[3]); p++ {
		out = append(out, pts[p*stride:p*stride+6])
	}
	return out
}

// compare06 checks that the 0.6 view of a variant draws what the 0.7 client
// draws from m: every tile of every layer, every envelope point, every image.
// stock returns the RGBA pixels of a stock 0.7.5 image (nil when unknown).
func compare06(m *twmap.Map, v *view06, stock func(name string) (w, h int, px []byte)) error {
	if len(v.layers) != len(m.Layers) || len(v.images) != len(m.Images) {
		return fmt.Errorf("%d layers, %d images; the map has %d, %d", len(v.layers), len(v.images), len(m.Layers), len(m.Images))
	}
	for k, l := range m.Layers {
		if l.Tiles == nil {
			continue
		}
		want, err := m.LayerTiles(k)
		if err != nil {
			return fmt.Errorf("0.7 layer %d: %w", k, err)
		}
		vl := v.layers[k]
		if vl.typ != twmap.LayerTypeTiles || vl.width != l.Tiles.Width || vl.height != l.Tiles.Height || vl.image != l.Tiles.Image {
			return fmt.Errorf("layer %d: %+v, the map has %+v", k, vl, *l.Tiles)
		}
		if vl.tileFlags != l.Tiles.Flags&twmap.TilesLayerFlagGame {
			return fmt.Errorf("layer %d: tile flags %d, the map has %d", k, vl.tileFlags, l.Tiles.Flags)
		}
		for i, wt := range want {
			got := v.tile(k, i)
			if l.Tiles.Version > 3 {
				wt.Skip = 0
			}
			if got != wt {
				return fmt.Errorf("layer %d tile %d (%d,%d): %+v, the 0.7 client reads %+v", k, i, i%vl.width, i/vl.width, got, wt)
			}
		}
	}
	for k := range v.envs {
		want := points07(m, k)
		e := v.envs[k]
		if e.num != len(want) {
			return fmt.Errorf("envelope %d: %d points, the map has %d", k, e.num, len(want))
		}
		for p, wp := range want {
			gp := v.points[e.start+p]
			curveOK := gp[1] == wp[1] || (wp[1] == 5 && gp[1] == 1) // bezier drawn as linear
			if gp[0] != wp[0] || !curveOK || [4]int32(gp[2:]) != [4]int32(wp[2:6]) {
				return fmt.Errorf("envelope %d point %d: %v, the map has %v", k, p, gp, wp)
			}
		}
	}
	for i, img := range m.Images {
		vi := v.images[i]
		if vi.name != img.Name {
			return fmt.Errorf("image %d: name %q, the map has %q", i, vi.name, img.Name)
		}
		switch {
		case vi.external && !img.External:
			return fmt.Errorf("image %d %q: embedded image became external", i, img.Name)
		case !vi.external && img.External:
			if stock == nil {
				continue
			}
			w, h, px := stock(img.Name)
			if px == nil {
				continue
			}
			if vi.width != w || vi.height != h || !bytes.Equal(vi.pixels[:w*h*4], px) {
				return fmt.Errorf("image %d %q: embedded %dx%d pixels differ from the 0.7.5 image (%dx%d)", i, img.Name, vi.width, vi.height, w, h)
			}
		case !vi.external:
			src, err := m.File().Data(img.Data)
			if err != nil {
				return err
			}
			n := img.Width * img.Height
			for p := range n {
				var want [4]byte
				if img.Format == 0 {
					want = [4]byte{src[3*p], src[3*p+1], src[3*p+2], 0xff}
				} else {
					want = [4]byte(src[4*p:])
				}
				if [4]byte(vi.pixels[4*p:]) != want {
					return fmt.Errorf("image %d pixel %d: %v, want %v", i, p, vi.pixels[4*p:4*p+4], want)
				}
			}
		}
	}
	return nil
}
