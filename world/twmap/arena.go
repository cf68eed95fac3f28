package twmap

import "fmt"

// DefaultName is the name of the embedded default map. It is our own map and
// deliberately not one of the standard names (StandardMaps), which 0.7.5
// clients only accept with the official content.
const DefaultName = "twsrv_arena"

// arenaLayout is the default map, one string per tile row (60x40).
//
//	#  solid, hookable          X  solid, unhookable      ^  death
//	.  air                      S  spawn (any team)       R/B  red/blue spawn
//	r/b  red/blue flag stand    s  shotgun   g  grenade   l  laser
//	h  health                   a  armor     n  ninja
//
// The arena is closed: hookable ceiling and floor, unhookable side walls, and
// a pit in the middle of the floor with a death strip near its bottom. The top
// and bottom rows are plain ground because the client repeats the edge
// tiles when drawing beyond the map. Each
// team's base is a walled shelf holding its flag stand; the layout is
// mirror-symmetric except for the single ninja at the top centre.
var arenaLayout = []string{
	"############################################################",
	"############################################################",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X............................n.............................X",
	"X...........................XXXX...........................X",
	"X......S.g.a................XXXX................a.g.S......X",
	"X....########..................................########....X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X...............s.S......................S.s...............X",
	"X............X#######..................#######X............X",
	"X............X................................X............X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X........................S.h....h.S........................X",
	"X......................X############X......................X",
	"X..........................................................X",
	"X.........X......................................X.........X",
	"X.........X......................................X.........X",
	"X.........X......................................X.........X",
	"X..R.r.R..X......................................X..B.b.B..X",
	"X##########......................................##########X",
	"X##########.....a.l......................l.a.....##########X",
	"X..............#######................#######..............X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X..........................................................X",
	"X.R.R.R.....S...........h..........h...........S.....B.B.B.X",
	"##########################X......X##########################",
	"##########################X......X##########################",
	"##########################X^^^^^^X##########################",
	"##########################X######X##########################",
}

// arenaLegend maps layout characters to game-layer tile indices.
var arenaLegend = map[byte]byte{
	'.': TileAir,
	'#': TileSolid,
	'X': TileNoHook,
	'^': TileDeath,
	'S': EntityOffset + EntitySpawn,
	'R': EntityOffset + EntitySpawnRed,
	'B': EntityOffset + EntitySpawnBlue,
	'r': EntityOffset + EntityFlagStandRed,
	'b': EntityOffset + EntityFlagStandBlue,
	'a': EntityOffset + EntityArmor1,
	'h': EntityOffset + EntityHealth1,
	's': EntityOffset + EntityWeaponShotgun,
	'g': EntityOffset + EntityWeaponGrenade,
	'n': EntityOffset + EntityPowerupNinja,
	'l': EntityOffset + EntityWeaponLaser,
}

// Tilesets of the default map: stock images every 0.7 client ships in its
// mapres directory, all 1024x1024 (16x16 tiles of 64 pixels).
const (
	imgGrass      = 0 // grass_main
	imgUnhookable = 1 // generic_unhookable
	imgDeath      = 2 // generic_deathtiles
)

// Tile indices within the tilesets, chosen as the stock maps use them.
const (
	grassFill        = 1  // dirt
	grassTop         = 16 // grass edge on top
	grassBottom      = 52 // dirt edge below
	grassLeft        = 20 // dirt edge to the left
	grassRight       = 21 // dirt edge to the right
	grassTopLeft     = 4
	grassTopRight    = 5
	grassBottomLeft  = 36
	grassBottomRight = 37
	unhookableBlock  = 1 // grey riveted block
	deathSpikesUp    = 3 // grey spikes pointing up
)

// arenaGame converts a layout to game-layer indices.
func arenaGame(layout []string) (w, h int, game []byte, err error) {
	h = len(layout)
	if h == 0 {
		return 0, 0, nil, fmt.Errorf("%w: empty layout", ErrSpec)
	}
	w = len(layout[0])
	game = make([]byte, 0, w*h)
	for y, row := range layout {
		if len(row) != w {
			return 0, 0, nil, fmt.Errorf("%w: layout row %d has %d tiles, want %d", ErrSpec, y, len(row), w)
		}
		for x := 0; x < len(row); x++ {
			idx, ok := arenaLegend[row[x]]
			if !ok {
				return 0, 0, nil, fmt.Errorf("%w: layout (%d,%d) has unknown tile %q", ErrSpec, x, y, row[x])
			}
			game = append(game, idx)
		}
	}
	return w, h, game, nil
}

// isSolid reports whether a game tile is drawn as ground (solid or
// unhookable); outside the layer counts as ground, so the map border
// gets no edge decoration.
func isSolid(game []byte, w, h, x, y int) bool {
	if x < 0 || y < 0 || x >= w || y >= h {
		return true
	}
	t := game[y*w+x]
	return t == TileSolid || t == TileNoHook
}

// grassTile picks the grass_main tile for a hookable tile from which of its
// four neighbours are open.
func grassTile(game []byte, w, h, x, y int) Tile {
	up := !isSolid(game, w, h, x, y-1)
	down := !isSolid(game, w, h, x, y+1)
	left := !isSolid(game, w, h, x-1, y)
	right := !isSolid(game, w, h, x+1, y)
	idx := byte(grassFill)
	switch {
	case up && left && !right:
		idx = grassTopLeft
	case up && right && !left:
		idx = grassTopRight
	case up:
		idx = grassTop
	case down && left && !right:
		idx = grassBottomLeft
	case down && right && !left:
		idx = grassBottomRight
	case down:
		idx = grassBottom
	case left:
		idx = grassLeft
	case right:
		idx = grassRight
	}
	t := Tile{Index: idx}
	if idx == grassFill {
		t.Flags = TileFlagOpaque
	}
	return t
}

// ArenaSpec returns the Spec of the default map.
func ArenaSpec() (*Spec, error) {
	w, h, game, err := arenaGame(arenaLayout)
	if err != nil {
		return nil, err
	}
	grass := make([]Tile, w*h)
	unhook := make([]Tile, w*h)
	death := make([]Tile, w*h)
	for i, t := range game {
		x, y := i%w, i/w
		switch t {
		case TileSolid:
			grass[i] = grassTile(game, w, h, x, y)
		case TileNoHook:
			unhook[i] = Tile{Index: unhookableBlock}
		case TileDeath:
			death[i] = Tile{Index: deathSpikesUp}
		}
	}
	white := [4]int32{255, 255, 255, 255}
	return &Spec{
		Info: Info{Author: "twserver", Version: "1"},
		Images: []ExternalImage{
			imgGrass:      {Name: "grass_main", Width: 1024, Height: 1024},
			imgUnhookable: {Name: "generic_unhookable", Width: 1024, Height: 1024},
			imgDeath:      {Name: "generic_deathtiles", Width: 1024, Height: 1024},
		},
		Background: &Gradient{Top: [4]int32{94, 132, 174, 255}, Bottom: [4]int32{204, 232, 255, 255}},
		Width:      w,
		Height:     h,
		Game:       game,
		Layers: []TileLayerSpec{
			{Name: "Grass", Image: imgGrass, Color: white, Tiles: grass},
			{Name: "Unhookable", Image: imgUnhookable, Color: white, Tiles: unhook},
			{Name: "Death", Image: imgDeath, Color: white, Tiles: death},
		},
	}, nil
}

// GenerateDefault encodes the default map. Its bytes are committed as
// default.map (see go:generate in default.go) and must stay identical.
func GenerateDefault() ([]byte, error) {
	s, err := ArenaSpec()
	if err != nil {
		return nil, err
	}
	return Encode(s)
}
