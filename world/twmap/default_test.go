package twmap

import (
	"bytes"
	"crypto/sha256"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"twserver/internal/testenv"
)

// TestDefaultDeterministic: the committed default.map is exactly what the
// generator produces (run `go generate ./world/twmap` after changing it).
func TestDefaultDeterministic(t *testing.T) {
	b, err := GenerateDefault()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, defaultMapData) {
		t.Fatalf("generated map (%d bytes, crc %08x) differs from embedded default.map (%d bytes, crc %08x); run go generate",
			len(b), crc32.ChecksumIEEE(b), len(defaultMapData), crc32.ChecksumIEEE(defaultMapData))
	}
	if len(b) > 8<<10 {
		t.Errorf("default map is %d bytes; expected a few KB", len(b))
	}
}

func TestDefaultMap(t *testing.T) {
	m := Default()
	if m != Default() {
		t.Error("Default is not shared")
	}
	if m.Name != DefaultName || IsStandardName(m.Name) || !ValidName(m.Name) {
		t.Errorf("name %q", m.Name)
	}
	if m.Width != 60 || m.Height != 40 || len(m.Game) != 60*40 {
		t.Fatalf("size %dx%d, %d tiles", m.Width, m.Height, len(m.Game))
	}
	if m.CRC != crc32.ChecksumIEEE(defaultMapData) || m.SHA256 != sha256.Sum256(defaultMapData) || m.Size != len(defaultMapData) {
		t.Error("identity does not match the embedded bytes")
	}
	if d := DefaultData(); !bytes.Equal(d, m.Data) || &d[0] == &m.Data[0] {
		t.Error("DefaultData is not an equal copy")
	}

	want := [NumEntities]int{
		EntitySpawn:         8,
		EntitySpawnRed:      5,
		EntitySpawnBlue:     5,
		EntityFlagStandRed:  1,
		EntityFlagStandBlue: 1,
		EntityArmor1:        4,
		EntityHealth1:       4,
		EntityWeaponShotgun: 2,
		EntityWeaponGrenade: 2,
		EntityPowerupNinja:  1,
		EntityWeaponLaser:   2,
	}
	if got := m.CountEntities(); got != want {
		t.Errorf("entities %v, want %v", got, want)
	}
	red := m.EntitiesOf(EntityFlagStandRed)
	blue := m.EntitiesOf(EntityFlagStandBlue)
	if len(red) != 1 || len(blue) != 1 || red[0].X >= m.Width/2 || blue[0].X < m.Width/2 {
		t.Errorf("flag stands red %v blue %v", red, blue)
	}
	if x, y := red[0].Pos(); x != float32(red[0].X*32+16) || y != float32(red[0].Y*32+16) {
		t.Errorf("Pos = %v,%v", x, y)
	}

	// Closed arena: the border is solid everywhere except the death strip.
	var counts [4]int
	for y := range m.Height {
		for x := range m.Width {
			tile := m.Tile(x, y)
			if tile <= TileNoHook {
				counts[tile]++
			}
			if x == 0 || y == 0 || x == m.Width-1 || y == m.Height-1 {
				if tile != TileSolid && tile != TileNoHook && tile != TileDeath {
					t.Errorf("border tile (%d,%d) = %d is open", x, y, tile)
				}
			}
		}
	}
	for k, name := range []string{"air", "solid", "death", "unhookable"} {
		if counts[k] == 0 {
			t.Errorf("no %s tiles", name)
		}
	}
	// Every entity has room: it is not boxed in by solid tiles on all sides.
	for _, e := range m.Entities {
		open := 0
		for _, d := range [][2]int{{0, -1}, {-1, 0}, {1, 0}, {0, 1}} {
			if tile := m.Tile(e.X+d[0], e.Y+d[1]); tile != TileSolid && tile != TileNoHook {
				open++
			}
		}
		if open == 0 {
			t.Errorf("entity %+v is enclosed", e)
		}
	}
}

// TestDefaultRenderable checks what the 0.7.5 client needs to draw the map
// (world spec 1.5): stock external images, a visible textured tile layer in
// the game group, and a game group with parallax 100 and no offset.
func TestDefaultRenderable(t *testing.T) {
	m := Default()
	stock := []string{"bg_cloud1", "bg_cloud2", "bg_cloud3", "desert_doodads", "desert_main", "desert_mountains",
		"desert_mountains2", "desert_sun", "easter", "generic_deathtiles", "generic_lamps", "generic_shadows",
		"generic_unhookable", "grass_doodads", "grass_main", "jungle_background", "jungle_deathtiles",
		"jungle_doodads", "jungle_main", "jungle_midground", "jungle_unhookables", "light", "moon", "mountains",
		"snow", "stars", "sun", "winter_doodads", "winter_main", "winter_mountains", "winter_mountains2",
		"winter_mountains3"}
	mapres := "/usr/share/games/teeworlds/data/mapres"
	_, err := os.Stat(mapres)
	haveMapres := testenv.Partly(t, mapres+" (Debian package teeworlds-data; the image names are checked against the stock list only)", err)
	for _, img := range m.Images {
		if !img.External || !slices.Contains(stock, img.Name) {
			t.Errorf("image %+v is not a stock external image", img)
		}
		if haveMapres {
			if _, err := os.Stat(filepath.Join(mapres, img.Name+".png")); err != nil {
				t.Errorf("installed client data lacks %s.png", img.Name)
			}
		}
	}
	g := m.Groups[m.GameGroup]
	if g.Name != "Game" || g.ParallaxX != 100 || g.ParallaxY != 100 || g.OffsetX != 0 || g.OffsetY != 0 || g.UseClipping {
		t.Errorf("game group %+v", g)
	}
	visible := 0
	for li := g.StartLayer; li < g.StartLayer+g.NumLayers; li++ {
		l := m.Layers[li]
		if l.Tiles == nil || l.Tiles.IsGame() || l.Tiles.Image < 0 {
			continue
		}
		tiles, err := m.LayerTiles(li)
		if err != nil {
			t.Fatal(err)
		}
		for i, tile := range tiles {
			if tile.Index != 0 {
				visible++
				if m.Game[i] < TileSolid || m.Game[i] > TileNoHook {
					t.Errorf("layer %q draws over game tile %d at %d", l.Name, m.Game[i], i)
				}
			}
		}
	}
	if visible == 0 {
		t.Error("no visible tiles")
	}
	if m.Info.Author != "twserver" {
		t.Errorf("info %+v", m.Info)
	}
	if len(m.Groups) != 2 || m.Layers[0].Quads == nil || m.Layers[0].Quads.NumQuads != 1 {
		t.Errorf("background group missing: %d groups", len(m.Groups))
	}
}

func TestArenaLayoutErrors(t *testing.T) {
	cases := map[string][]string{
		"empty":        nil,
		"ragged":       {"###", "##"},
		"unknown tile": {"#?#"},
	}
	for name, layout := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, _, err := arenaGame(layout); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
