package twmap

import (
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"twserver/internal/testenv"
	"twserver/snap"
	"twserver/world/datafile"
)

// systemMaps is where the Debian/Ubuntu teeworlds-data package installs the
// stock maps.
const systemMaps = "/usr/share/games/teeworlds/data/maps"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDM1 checks a real map against values computed independently of this
// package: the official crc/size/sha256 of dm1 and its game layer contents.
func TestDM1(t *testing.T) {
	m, err := Load("dm1", readFixture(t, "dm1.map"))
	if err != nil {
		t.Fatal(err)
	}
	if m.CRC != 0x64548818 || m.Size != 6793 {
		t.Errorf("crc %08x size %d", m.CRC, m.Size)
	}
	if got := hex.EncodeToString(m.SHA256[:]); got != "491af17a510214506270904f147a4c30ae0a85b91bb854395bef8c397fc078c3" {
		t.Errorf("sha256 %s", got)
	}
	if m.Width != 60 || m.Height != 50 {
		t.Fatalf("size %dx%d", m.Width, m.Height)
	}
	if v := m.Layers[m.GameLayer].Tiles.Version; v != 4 {
		t.Errorf("game layer tilemap version %d (fixture uses run-length tiles)", v)
	}
	var hist [256]int
	for _, idx := range m.Game {
		hist[idx]++
	}
	want := map[int]int{0: 1433, 1: 1535, 192: 8, 197: 9, 198: 10, 199: 2, 200: 2, 201: 1}
	for idx, n := range hist {
		if n != want[idx] {
			t.Errorf("tile %d appears %d times, want %d", idx, n, want[idx])
		}
	}
	if c := m.CountEntities(); c[EntitySpawn] != 8 || c[EntityHealth1] != 10 || c[EntityWeaponLaser] != 0 {
		t.Errorf("entities %v", c)
	}
	if m.Groups[m.GameGroup].Name != "Game" || !slices.ContainsFunc(m.Images, func(i Image) bool { return i.Name == "grass_main" }) {
		t.Errorf("groups/images not decoded: %+v", m.Groups[m.GameGroup])
	}
	// Entities are in scan order and agree with the game layer.
	for k, e := range m.Entities {
		if int(m.Tile(e.X, e.Y)) != EntityOffset+e.Kind {
			t.Errorf("entity %+v not at its tile", e)
		}
		if k > 0 {
			p := m.Entities[k-1]
			if p.Y > e.Y || (p.Y == e.Y && p.X >= e.X) {
				t.Errorf("entities out of scan order at %d", k)
			}
		}
	}
}

// TestSystemMaps loads every stock map the teeworlds-data package installs.
func TestSystemMaps(t *testing.T) {
	paths := testenv.Glob(t, filepath.Join(systemMaps, "*.map"), "teeworlds-data")
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".map")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Under its own name: accepted exactly when it is an official version.
			_, err = Load(name, b)
			official := CheckStandard(name, crc32.ChecksumIEEE(b), len(b)) == nil
			switch {
			case official && err != nil:
				t.Fatalf("official map refused: %v", err)
			case !official && !errors.Is(err, ErrStandardMap):
				t.Fatalf("non-official %s loaded under its standard name (err %v)", name, err)
			case !official:
				t.Logf("%s (%d bytes) is not an official 0.7.5 version; 0.7.5 clients refuse it under this name", name, len(b))
			}
			m, err := Load("stock_"+name, b)
			if err != nil {
				t.Fatal(err)
			}
			if m.Width < 10 || m.Height < 10 || m.Width > 1000 || m.Height > 1000 {
				t.Errorf("odd size %dx%d", m.Width, m.Height)
			}
			c := m.CountEntities()
			if c[EntitySpawn]+c[EntitySpawnRed]+c[EntitySpawnBlue] == 0 {
				t.Error("no spawn points")
			}
			if strings.HasPrefix(name, "ctf") && (c[EntityFlagStandRed] == 0 || c[EntityFlagStandBlue] == 0) {
				t.Errorf("ctf map without both flag stands: %v", c)
			}
			solid := 0
			for _, idx := range m.Game {
				if idx == TileSolid || idx == TileNoHook {
					solid++
				}
			}
			if solid == 0 {
				t.Error("no solid tiles")
			}
			for li, l := range m.Layers {
				if l.Tiles != nil {
					if _, err := m.LayerTiles(li); err != nil {
						t.Errorf("layer %d: %v", li, err)
					}
				}
			}
		})
	}
}

func TestLoadName(t *testing.T) {
	b := DefaultData()
	for _, name := range []string{"", "a/b", `a\b`, "..", "bad\x00name", strings.Repeat("x", MaxNameLen+1)} {
		if _, err := Load(name, b); !errors.Is(err, ErrName) {
			t.Errorf("name %q: err %v", name, err)
		}
	}
	if _, err := Load("dm1", b); !errors.Is(err, ErrStandardMap) {
		t.Errorf("custom map under a standard name: %v", err)
	}
	if _, err := Load("my arena 2", b); err != nil {
		t.Errorf("plain name: %v", err)
	}
}

// mapWith encodes a datafile from items given as (type, words) and blobs.
func mapWith(t testing.TB, items [][]int32, blobs ...[]byte) []byte {
	t.Helper()
	var w datafile.Writer
	ids := map[int32]int{}
	for _, it := range items {
		if err := w.AddItemInts(int(it[0]), ids[it[0]], it[1:]); err != nil {
			t.Fatal(err)
		}
		ids[it[0]]++
	}
	for _, b := range blobs {
		if _, err := w.AddData(b); err != nil {
			t.Fatal(err)
		}
	}
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tilesOf(idx ...byte) []byte {
	var b []byte
	for _, i := range idx {
		b = append(b, i, 0, 0, 0)
	}
	return b
}

func TestLoadMalformed(t *testing.T) {
	version := []int32{ItemTypeVersion, 1}
	group := []int32{ItemTypeGroup, 3, 0, 0, 100, 100, 0, 1, 0, 0, 0, 0, 0}
	game := func(w, h, ver, data int32) []int32 {
		return []int32{ItemTypeLayer, 0, LayerTypeTiles, 0, ver, w, h, TilesLayerFlagGame, 255, 255, 255, 255, -1, 0, -1, data}
	}
	ok := tilesOf(1, 1, 192, 0)
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"valid", mapWith(t, [][]int32{version, group, game(2, 2, 3, 0)}, ok), nil},
		{"not a datafile", []byte("hello"), datafile.ErrTruncated},
		{"no version", mapWith(t, [][]int32{group, game(2, 2, 3, 0)}, ok), ErrNoVersion},
		{"version 2", mapWith(t, [][]int32{{ItemTypeVersion, 2}, group, game(2, 2, 3, 0)}, ok), ErrNoVersion},
		{"group without its layer", mapWith(t, [][]int32{version, group}, ok), ErrBadItem},
		{"no game flag", mapWith(t, [][]int32{version, group,
			{ItemTypeLayer, 0, LayerTypeTiles, 0, 3, 2, 2, 0, 255, 255, 255, 255, -1, 0, -1, 0}}, ok), ErrNoGameLayer},
		{"no groups", mapWith(t, [][]int32{version, game(2, 2, 3, 0)}, ok), ErrNoGameLayer},
		{"zero width", mapWith(t, [][]int32{version, group, game(0, 2, 3, 0)}, ok), ErrBadItem},
		{"negative height", mapWith(t, [][]int32{version, group, game(2, -5, 3, 0)}, ok), ErrBadItem},
		{"absurd size", mapWith(t, [][]int32{version, group, game(1<<20, 1<<20, 3, 0)}, ok), ErrBadItem},
		{"too many tiles", mapWith(t, [][]int32{version, group, game(1<<15, 1<<15, 3, 0)}, ok), ErrBadTiles},
		{"data index", mapWith(t, [][]int32{version, group, game(2, 2, 3, 5)}, ok), ErrBadItem},
		{"short tiles", mapWith(t, [][]int32{version, group, game(3, 2, 3, 0)}, ok), ErrBadTiles},
		{"short run-length tiles", mapWith(t, [][]int32{version, group, game(3, 3, 4, 0)}, ok), ErrBadTiles},
		{"short layer item", mapWith(t, [][]int32{version, group, {ItemTypeLayer, 0, LayerTypeTiles, 0, 3}}, ok), ErrBadItem},
		{"group past layers", mapWith(t, [][]int32{version, {ItemTypeGroup, 3, 0, 0, 100, 100, 0, 2}, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"image index", mapWith(t, [][]int32{version, group,
			{ItemTypeLayer, 0, LayerTypeTiles, 0, 3, 2, 2, 1, 255, 255, 255, 255, -1, 0, 4, 0}}, ok), ErrBadItem},
		{"info string index", mapWith(t, [][]int32{version, {ItemTypeInfo, 1, 9, -1, -1, -1}, group, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"embedded image data", mapWith(t, [][]int32{version, {ItemTypeImage, 1, 4, 4, 0, -1, 7}, group, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"empty version item", mapWith(t, [][]int32{{ItemTypeVersion}, group, game(2, 2, 3, 0)}, ok), ErrNoVersion},
		{"short info item", mapWith(t, [][]int32{version, {ItemTypeInfo, 1, -1}, group, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"info string too long", mapWith(t, [][]int32{version, {ItemTypeInfo, 1, 1, -1, -1, -1}, group, game(2, 2, 3, 0)},
			ok, make([]byte, MaxStringLen+1)), ErrBadItem},
		{"short image item", mapWith(t, [][]int32{version, {ItemTypeImage, 1, 4, 4}, group, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"negative image size", mapWith(t, [][]int32{version, {ItemTypeImage, 1, -4, 4, 1, -1, -1}, group, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"short group item", mapWith(t, [][]int32{version, {ItemTypeGroup, 3, 0, 0}, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"negative group start", mapWith(t, [][]int32{version, {ItemTypeGroup, 3, 0, 0, 100, 100, -1, 1}, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"negative group layer count", mapWith(t, [][]int32{version, {ItemTypeGroup, 3, 0, 0, 100, 100, 0, -1}, game(2, 2, 3, 0)}, ok), ErrBadItem},
		{"short quads item", mapWith(t, [][]int32{version, group, {ItemTypeLayer, 0, LayerTypeQuads, 0, 2}}, ok), ErrBadItem},
		{"negative quad count", mapWith(t, [][]int32{version, group, {ItemTypeLayer, 0, LayerTypeQuads, 0, 2, -1, 0, -1}}, ok), ErrBadItem},
		{"quads data index", mapWith(t, [][]int32{version, group, {ItemTypeLayer, 0, LayerTypeQuads, 0, 2, 1, 9, -1}}, ok), ErrBadItem},
		{"quads image index", mapWith(t, [][]int32{version, group, {ItemTypeLayer, 0, LayerTypeQuads, 0, 2, 0, 0, 3}}, ok), ErrBadItem},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load("test", c.file)
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if m.Width != 2 || m.Height != 2 || !slices.Equal(m.Game, []byte{1, 1, 192, 0}) || len(m.Entities) != 1 {
					t.Fatalf("decoded %dx%d %v %v", m.Width, m.Height, m.Game, m.Entities)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
}

// TestRunLength: tilemap version 4 repeats each stored tile 1+skip times and
// clears skip; surplus stored tiles are ignored.
func TestRunLength(t *testing.T) {
	data := []byte{1, 0, 2, 0, 192, 4, 0, 0, 0, 0, 9, 0}
	f := mapWith(t, [][]int32{{ItemTypeVersion, 1}, {ItemTypeGroup, 3, 0, 0, 100, 100, 0, 1},
		{ItemTypeLayer, 0, LayerTypeTiles, 0, 4, 4, 2, TilesLayerFlagGame, 255, 255, 255, 255, -1, 0, -1, 0}}, data)
	m, err := Load("rle", f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Game, []byte{1, 1, 1, 192, 0, 0, 0, 0}) || m.GameFlags[3] != 4 {
		t.Fatalf("game %v flags %v", m.Game, m.GameFlags)
	}
	tiles, err := m.LayerTiles(0)
	if err != nil || tiles[1] != (Tile{Index: 1}) {
		t.Fatalf("tiles %v %v", tiles, err)
	}
}

func TestPackName(t *testing.T) {
	for _, s := range []string{"", "Game", "Background", "abcdefghijk", "abcdefghijkl-truncated"} {
		w := packName(s)
		want := s
		if len(want) > 4*nameInts-1 {
			want = want[:4*nameInts-1]
		}
		if got := snap.IntsToStr(w); got != want {
			t.Errorf("%q -> %q", s, got)
		}
	}
	// The value stock maps store for "Game".
	if w := packName("Game"); w[0] != -941494811 || w[1] != -2139062144 || w[2] != -2139062272 {
		t.Errorf("packName(Game) = %v", w)
	}
}

// FuzzLoad: Load never panics, and whatever it accepts is self-consistent.
func FuzzLoad(f *testing.F) {
	f.Add(DefaultData())
	f.Add(readFixture(f, "dm1.map"))
	f.Add(mapWith(f, [][]int32{{ItemTypeVersion, 1}, {ItemTypeGroup, 3, 0, 0, 100, 100, 0, 1},
		{ItemTypeLayer, 0, LayerTypeTiles, 0, 4, 4, 2, TilesLayerFlagGame, 255, 255, 255, 255, -1, 0, -1, 0}},
		[]byte{1, 0, 2, 0, 192, 4, 0, 0, 0, 0, 9, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Load("fuzz", b)
		if err != nil {
			return
		}
		if m.Width < 1 || m.Height < 1 || len(m.Game) != m.Width*m.Height || len(m.GameFlags) != len(m.Game) {
			t.Fatalf("inconsistent size %dx%d, %d tiles", m.Width, m.Height, len(m.Game))
		}
		if m.CRC != crc32.ChecksumIEEE(b) || m.Size != len(b) {
			t.Fatal("identity mismatch")
		}
		n := 0
		for _, idx := range m.Game {
			if k := int(idx) - EntityOffset; k > EntityNull && k < NumEntities {
				n++
			}
		}
		if n != len(m.Entities) {
			t.Fatalf("%d entity tiles, %d entities", n, len(m.Entities))
		}
		if l := m.Layers[m.GameLayer]; l.Tiles == nil || !l.Tiles.IsGame() {
			t.Fatal("game layer index wrong")
		}
	})
}

func BenchmarkLoadDefault(b *testing.B) {
	data := DefaultData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(DefaultName, data); err != nil {
			b.Fatal(err)
		}
	}
}
