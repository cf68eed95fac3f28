package map06

import (
	"errors"
	"os"
	"slices"
	"testing"

	"twserver/snap"
	"twserver/world/datafile"
	"twserver/world/twmap"
)

// testMap builds small maps item by item: one group holding a 4x3 game
// layer (raw tiles) followed by the layers a case adds.
type testMap struct {
	items  []testItem
	layers [][]int32
	blobs  [][]byte
	group  []int32 // group item words after start/num layers; nil: version 3 defaults
}

type testItem struct {
	typ, id int
	words   []int32
}

const tw, th = 4, 3

func newTestMap() *testMap {
	b := &testMap{}
	game := make([]byte, tw*th*4)
	game[4*5] = twmap.EntityOffset + twmap.EntitySpawn
	game[4*8] = twmap.TileSolid
	b.layer(tileLayer(3, tw, th, twmap.TilesLayerFlagGame, -1, b.blob(game))...)
	return b
}

func (b *testMap) blob(d []byte) int32 {
	b.blobs = append(b.blobs, d)
	return int32(len(b.blobs) - 1)
}

func (b *testMap) str(s string) int32 { return b.blob(append([]byte(s), 0)) }

func (b *testMap) item(typ int, words ...int32) {
	id := 0
	for _, it := range b.items {
		if it.typ == typ {
			id++
		}
	}
	b.items = append(b.items, testItem{typ, id, words})
}

func (b *testMap) layer(words ...int32) { b.layers = append(b.layers, words) }

func tileLayer(version, w, h, flags, image int, data int32) []int32 {
	out := []int32{0, twmap.LayerTypeTiles, 0, int32(version), int32(w), int32(h), int32(flags), 255, 255, 255, 255, -1, 0, int32(image), data}
	return append(out, snap.StrToInts(make([]int32, 3), "t")...)
}

func (b *testMap) bytes(t testing.TB) []byte {
	t.Helper()
	var w datafile.Writer
	add := func(typ, id int, words []int32) {
		if err := w.AddItemInts(typ, id, words); err != nil {
			t.Fatal(err)
		}
	}
	add(twmap.ItemTypeVersion, 0, []int32{1})
	for _, it := range b.items {
		add(it.typ, it.id, it.words)
	}
	g := b.group
	if g == nil {
		g = append([]int32{0, 0, 0, 0, 0}, snap.StrToInts(make([]int32, 3), "Game")...)
	}
	add(twmap.ItemTypeGroup, 0, append([]int32{3, 0, 0, 100, 100, 0, int32(len(b.layers))}, g...))
	for k, l := range b.layers {
		add(twmap.ItemTypeLayer, k, l)
	}
	for _, d := range b.blobs {
		if _, err := w.AddData(d); err != nil {
			t.Fatal(err)
		}
	}
	out, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rle encodes tiles as tilemap version 4: each stored tile repeats 1+skip.
func rle(tiles ...[2]byte) []byte { // {index, repeat-1}
	var out []byte
	for _, t := range tiles {
		out = append(out, t[0], 0, t[1], 0)
	}
	return out
}

func loadTest(t testing.TB, b *testMap) *twmap.Map {
	t.Helper()
	m, err := twmap.Load("test", b.bytes(t))
	if err != nil {
		t.Fatalf("test map does not load: %v", err)
	}
	return m
}

// TestHostile: maps our loader accepts but whose 0.6 variant cannot be made
// safely give an error, never a panic or an oversized allocation.
func TestHostile(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *testMap)
		want  error
	}{
		{"short run-length tiles", func(b *testMap) {
			b.layer(tileLayer(4, 8, 8, 0, -1, b.blob(rle([2]byte{1, 9})))...) // 10 of 64 tiles
		}, twmap.ErrBadTiles},
		{"short raw tiles", func(b *testMap) {
			b.layer(tileLayer(3, 8, 8, 0, -1, b.blob(make([]byte, 8*8*4-1)))...)
		}, ErrBadData},
		{"expansion over the budget", func(b *testMap) {
			// 8192x4096 tiles (128 MiB raw) from a few run-length bytes.
			var d []byte
			for range 8192 * 4096 / 256 {
				d = append(d, 1, 0, 255, 0)
			}
			b.layer(tileLayer(4, 8192, 4096, 0, -1, b.blob(d))...)
		}, ErrTooBig},
		{"image format 7", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 2, 2, 0, b.str("x"), b.blob(make([]byte, 16)), 7)
		}, ErrImageFormat},
		{"short RGB image", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 4, 4, 0, b.str("x"), b.blob(make([]byte, 4*4*3-1)), 0)
		}, ErrBadData},
		{"short RGBA image", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 1, 4, 4, 0, b.str("x"), b.blob(make([]byte, 4*4*4-1)))
		}, ErrBadData},
		{"empty embedded image", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 1, 0, 0, 0, b.str("x"), b.blob(nil))
		}, ErrBadItem},
		{"huge RGB image", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, MaxImageDim+1, 1, 0, b.str("x"), b.blob(make([]byte, 3*(MaxImageDim+1))), 0)
		}, ErrBadItem},
		{"too many images", func(b *testMap) {
			for range MaxImages + 1 {
				b.item(twmap.ItemTypeImage, 1, 1024, 1024, 1, b.str("grass_main"), -1)
			}
		}, ErrTooBig},
		{"blob read as tiles and as pixels", func(b *testMap) {
			d := b.blob(rle([2]byte{1, 15}, [2]byte{0, 255}))
			b.layer(tileLayer(4, 4, 4, 0, -1, d)...)
			b.item(twmap.ItemTypeImage, 1, 1, 1, 0, b.str("x"), d)
		}, ErrBadData},
		{"blob expanded to two sizes", func(b *testMap) {
			d := b.blob(rle([2]byte{1, 255}))
			b.layer(tileLayer(4, 4, 4, 0, -1, d)...)
			b.layer(tileLayer(4, 8, 8, 0, -1, d)...)
		}, ErrBadData},
		{"short quads", func(b *testMap) {
			b.layer(0, twmap.LayerTypeQuads, 0, 2, 2, b.blob(make([]byte, 38*4)), -1)
		}, ErrBadData},
		{"envelope past its points", func(b *testMap) {
			b.item(twmap.ItemTypeEnvelope, append([]int32{3, 4, 1, 2}, make([]int32, 9)...)...)
			b.item(twmap.ItemTypeEnvPoints, make([]int32, 2*22)...)
		}, ErrBadItem},
		{"envelope with negative start", func(b *testMap) {
			b.item(twmap.ItemTypeEnvelope, append([]int32{1, 4, -1, 1}, make([]int32, 8)...)...)
			b.item(twmap.ItemTypeEnvPoints, make([]int32, 6)...)
		}, ErrBadItem},
		{"envelope points without a point item", func(b *testMap) {
			b.item(twmap.ItemTypeEnvelope, append([]int32{3, 4, 0, 1}, make([]int32, 9)...)...)
		}, ErrBadItem},
		{"short envelope", func(b *testMap) {
			b.item(twmap.ItemTypeEnvelope, 3, 4)
		}, ErrBadItem},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newTestMap()
			c.build(b)
			m := loadTest(t, b)
			v, err := Derive(m)
			if !errors.Is(err, c.want) {
				t.Fatalf("got variant %v, error %v; want %v", v != nil, err, c.want)
			}
		})
	}
}

// TestConversions: each 0.7-only feature in a small map, converted and
// checked by the 0.6 reading.
func TestConversions(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *testMap)
		check func(t *testing.T, v *Variant, view *view06)
	}{
		{"already 0.6: served as is", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 1, 1024, 1024, 1, b.str("grass_main"), -1)
			b.layer(tileLayer(3, tw, th, 0, 0, b.blob(make([]byte, tw*th*4)))...)
		}, func(t *testing.T, v *Variant, _ *view06) {
			if !v.Same {
				t.Error("not served as is")
			}
		}},
		{"run-length tiles", func(b *testMap) {
			b.layer(tileLayer(4, 4, 4, 0, -1, b.blob(rle([2]byte{1, 2}, [2]byte{0, 0}, [2]byte{7, 11})))...)
		}, func(t *testing.T, v *Variant, view *view06) {
			l := view.layers[1]
			want := []byte{1, 1, 1, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}
			for i, idx := range want {
				if view.tile(1, i) != (twmap.Tile{Index: idx}) {
					t.Fatalf("tile %d: %+v", i, view.tile(1, i))
				}
			}
			if l.version != 3 || v.Same {
				t.Errorf("version %d same %v", l.version, v.Same)
			}
		}},
		{"RGB image widened", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 2, 1, 0, b.str("px"), b.blob([]byte{1, 2, 3, 4, 5, 6}), 0)
			b.layer(tileLayer(3, tw, th, 0, 0, b.blob(make([]byte, tw*th*4)))...)
		}, func(t *testing.T, _ *Variant, view *view06) {
			if img := view.images[0]; !slices.Equal(img.pixels, []byte{1, 2, 3, 255, 4, 5, 6, 255}) {
				t.Errorf("pixels %v", img.pixels)
			}
		}},
		{"absent stock image embedded for quads", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 256, 256, 1, b.str("light"), -1, 1)
			b.layer(0, twmap.LayerTypeQuads, 0, 2, 0, -1, 0)
		}, func(t *testing.T, v *Variant, view *view06) {
			if img := view.images[0]; img.external || img.width != 256 || !slices.Equal(v.Embedded, []string{"light"}) {
				t.Errorf("image %+v embedded %v", img.name, v.Embedded)
			}
		}},
		{"stock image kept when its tiles exist in 0.6", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 1024, 1024, 1, b.str("grass_main"), -1, 1)
			// Tile 1, the plain ground, is drawn by every release.
			b.layer(tileLayer(4, tw, th, 0, 0, b.blob(rle([2]byte{1, 0}, [2]byte{0, tw*th - 2})))...)
		}, func(t *testing.T, v *Variant, view *view06) {
			if !view.images[0].external || len(v.Embedded) != 0 {
				t.Errorf("embedded %v", v.Embedded)
			}
		}},
		{"stock image embedded for a tile 0.6 lacks", func(b *testMap) {
			b.item(twmap.ItemTypeImage, 2, 1024, 1024, 1, b.str("grass_main"), -1, 1)
			b.layer(tileLayer(4, tw, th, 0, 0, b.blob(rle([2]byte{14, 0}, [2]byte{0, tw*th - 2})))...)
		}, func(t *testing.T, v *Variant, view *view06) {
			if view.images[0].external || !slices.Equal(v.Embedded, []string{"grass_main"}) {
				t.Errorf("embedded %v", v.Embedded)
			}
		}},
		{"bezier envelope", func(b *testMap) {
			b.item(twmap.ItemTypeEnvelope, append([]int32{3, 4, 0, 2}, make([]int32, 9)...)...)
			p := make([]int32, 2*22)
			copy(p, []int32{0, 5, 1024, 0, 0, 1024})
			copy(p[22:], []int32{500, 1, 0, 1024, 0, 1024})
			b.item(twmap.ItemTypeEnvPoints, p...)
		}, func(t *testing.T, _ *Variant, view *view06) {
			if e := view.envs[0]; e.version != 2 || e.num != 2 || view.points[0] != [6]int32{0, 1, 1024, 0, 0, 1024} || view.points[1] != [6]int32{500, 1, 0, 1024, 0, 1024} {
				t.Errorf("envelope %+v points %v", e, view.points)
			}
		}},
		{"foreign items and layers", func(b *testMap) {
			b.item(7, 1, 2, 3)      // DDNet's sound item
			b.item(0xffff, 1, 2, 3) // DDNet's UUID index
			b.layer(0, 10, 0, 1, 2, 3)
			b.layer(tileLayer(3, tw, th, twmap.TilesLayerFlagGame|2, -1, b.blob(make([]byte, tw*th*4)))...)
		}, func(t *testing.T, _ *Variant, view *view06) {
			if view.layers[1].typ != twmap.LayerTypeInvalid || view.layers[2].tileFlags != twmap.TilesLayerFlagGame {
				t.Errorf("layers %+v", view.layers[1:])
			}
		}},
		{"short items padded", func(b *testMap) {
			b.group = []int32{0, 0} // version 3 group cut inside the clip rectangle
			b.item(twmap.ItemTypeEnvelope, 2, 4, 0, 0)
			b.item(twmap.ItemTypeEnvPoints)
			w := tileLayer(3, tw, th, 0, -1, b.blob(make([]byte, tw*th*4)))
			b.layer(w[:15]...)
		}, func(t *testing.T, v *Variant, view *view06) {
			if v.Same {
				t.Error("short items served as is")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newTestMap()
			c.build(b)
			m := loadTest(t, b)
			v := checkVariant(t, m)
			view, _ := read06(v.Data)
			c.check(t, v, view)
		})
	}
}

// FuzzDerive: for any map our loader accepts, Derive either fails with an
// error or returns a variant that the strict 0.6 reading accepts and that
// draws the same tiles, envelopes and images as the map.
func FuzzDerive(f *testing.F) {
	for _, p := range []string{"testdata/dm1.map"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(twmap.DefaultData())
	b := newTestMap()
	b.item(twmap.ItemTypeImage, 2, 2, 1, 0, b.str("px"), b.blob([]byte{1, 2, 3, 4, 5, 6}), 0)
	b.item(twmap.ItemTypeEnvelope, append([]int32{3, 4, 0, 1}, make([]int32, 9)...)...)
	b.item(twmap.ItemTypeEnvPoints, make([]int32, 22)...)
	b.layer(tileLayer(4, 4, 4, 2, 0, b.blob(rle([2]byte{1, 2}, [2]byte{0, 0}, [2]byte{7, 11})))...)
	f.Add(b.bytes(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := twmap.Load("fuzz", data)
		if err != nil {
			return
		}
		v, err := Derive(m)
		if err != nil {
			return
		}
		view, err := read06(v.Data)
		if err != nil {
			t.Fatalf("variant fails the 0.6 reading: %v", err)
		}
		if err := compare06(m, view, nil); err != nil {
			t.Fatalf("variant differs: %v", err)
		}
	})
}

// FuzzDeriveItems fuzzes the fields the conversion reads rather than the
// container: a map that loads, with one extra tile layer, one image, one
// envelope and its points built from the fuzzer's words and bytes. The
// same property as FuzzDerive must hold.
func FuzzDeriveItems(f *testing.F) {
	f.Add(int32(4), int32(4), int32(4), int32(2), int32(0), int32(2), int32(2), int32(1), int32(0), int32(0), int32(3), int32(0), int32(2), rle([2]byte{1, 2}, [2]byte{0, 0}, [2]byte{7, 11}), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(int32(3), int32(2), int32(2), int32(0), int32(-1), int32(1), int32(1024), int32(1024), int32(1), int32(1), int32(1), int32(0), int32(1), make([]byte, 16), []byte("grass_main"))
	f.Fuzz(func(t *testing.T, tver, tw2, th2, tflags, timg, iver, iw, ih, iext, ifmt, ever, estart, enum int32, tiles, pixels []byte) {
		if tw2 < 1 || th2 < 1 || tw2 > 64 || th2 > 64 || iw > 64 && iext == 0 || ih > 64 && iext == 0 {
			return // keep allocations small; the bounds have their own table tests
		}
		b := newTestMap()
		name := "px"
		if iext != 0 {
			name = string(pixels)
		}
		img := []int32{iver, iw, ih, iext, b.str(name), b.blob(pixels)}
		if iver >= 2 {
			img = append(img, ifmt)
		}
		b.item(twmap.ItemTypeImage, img...)
		b.layer(tileLayer(int(tver), int(tw2), int(th2), int(tflags), int(timg), b.blob(tiles))...)
		b.item(twmap.ItemTypeEnvelope, append([]int32{ever, 4, estart, enum}, make([]int32, 9)...)...)
		pts := make([]int32, 3*22)
		for i := range pts {
			if i < len(pixels) {
				pts[i] = int32(pixels[i])
			}
		}
		b.item(twmap.ItemTypeEnvPoints, pts...)
		m, err := twmap.Load("fuzz", b.bytes(t))
		if err != nil {
			return
		}
		v, err := Derive(m)
		if err != nil {
			return
		}
		view, err := read06(v.Data)
		if err != nil {
			t.Fatalf("variant fails the 0.6 reading: %v", err)
		}
		if err := compare06(m, view, nil); err != nil {
			t.Fatalf("variant differs: %v", err)
		}
	})
}
