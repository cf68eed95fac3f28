package collision

import (
	"math"
	"math/rand/v2"
	"testing"

	"twserver/world/vmath"
)

// testRows is a small map used by the collision tables. Tile (2,2) is death,
// (3,2) unhookable, (2,4) a lone solid block for corner cases.
var testRows = []string{
	"########",
	"#......#",
	"#.xN...#",
	"#......#",
	"#.#....#",
	"#......#",
	"#......#",
	"########",
}

func TestNewTiles(t *testing.T) {
	game := []byte{0, 1, 2, 3, 4, 128, 129, 191, 192, 255}
	c := New(len(game), 1, game)
	want := []int{0, 1, 2, 5, 0, 0, 0, 0, 0, 0}
	for i, w := range want {
		if got := c.GetTile(i*TileSize, 0); got != w {
			t.Errorf("tile index %d: collision %d, want %d", game[i], got, w)
		}
	}
	// Degenerate input never panics and behaves as air.
	for _, tc := range []struct {
		w, h int
		game []byte
	}{{0, 0, nil}, {-3, 2, []byte{1}}, {4, 4, []byte{1}}} {
		c := New(tc.w, tc.h, tc.game)
		_ = c.GetTile(1000, -1000)
		if c.Width() < 1 || c.Height() < 1 {
			t.Errorf("New(%d,%d): size %dx%d", tc.w, tc.h, c.Width(), c.Height())
		}
	}
}

func TestGetTileClamp(t *testing.T) {
	c := FromRows(testRows...)
	tests := []struct {
		name string
		x, y int
		want int
	}{
		{"inside air", 40, 40, 0},
		{"death", 2*32 + 5, 2*32 + 31, FlagDeath},
		{"nohook", 3 * 32, 2 * 32, FlagSolid | FlagNoHook},
		{"negative x maps to column 0", -1000, 40, FlagSolid},
		{"-1/32 is 0 (truncation)", -1, 40, FlagSolid},
		{"far right repeats border", 1 << 20, 40, FlagSolid},
		{"below map repeats border", 40, 1 << 20, FlagSolid},
		{"minint", math.MinInt32, math.MinInt32, FlagSolid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.GetTile(tc.x, tc.y); got != tc.want {
				t.Errorf("GetTile(%d,%d) = %d, want %d", tc.x, tc.y, got, tc.want)
			}
		})
	}
}

func TestCheckPointRounding(t *testing.T) {
	c := FromRows(testRows...)
	tests := []struct {
		x, y float32
		want bool
	}{
		{63.4, 140, false}, // rounds to 63: tile (1,4)
		{63.5, 140, true},  // rounds to 64: tile (2,4)
		{95.4, 140, true},
		{95.5, 140, false},
		{31.5, 40, false}, // 32 is column 1
		{31.49, 40, true},
		{float32(math.NaN()), 40, true},               // NaN -> MinInt32 -> column 0
		{float32(math.Inf(1)), 40, true},              // border
		{40, float32(math.Inf(-1)), true},             // border
		{40, 1e30, true},                              // out of int range -> border
		{2*32 + 16, 2*32 + 16, false},                 // death is not solid
		{3*32 + 16, 2*32 + 16, true},                  // nohook is solid
		{float32(math.Nextafter32(0.5, 0)), 40, true}, // 0.49999997 + 0.5 rounds up to 1 in float32 -> column 0 anyway
	}
	for _, tc := range tests {
		if got := c.CheckPoint(tc.x, tc.y); got != tc.want {
			t.Errorf("CheckPoint(%v,%v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
	if !c.IsDeath(vmath.V(2*32+16, 2*32+16)) || c.IsDeath(vmath.V(40, 40)) {
		t.Error("IsDeath wrong")
	}
}

func TestTestBox(t *testing.T) {
	c := FromRows(testRows...)
	size := vmath.V(28, 28)
	tests := []struct {
		name string
		pos  vmath.Vec2
		flag int
		want bool
	}{
		{"free", vmath.V(48, 48), FlagSolid, false},
		{"touching wall left", vmath.V(45, 48), FlagSolid, true}, // 45-14 = 31
		{"just clear of wall", vmath.V(46, 48), FlagSolid, false},
		{"bottom right corner in block", vmath.V(50, 114), FlagSolid, true}, // (64,128) tile (2,4)
		{"death flag", vmath.V(60, 60), FlagDeath, true},
		{"death not solid", vmath.V(50, 80), FlagSolid, false},
		{"nohook is solid", vmath.V(100, 70), FlagSolid, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.TestBoxFlag(tc.pos, size, tc.flag); got != tc.want {
				t.Errorf("TestBoxFlag(%v) = %v, want %v", tc.pos, got, tc.want)
			}
		})
	}
}

func TestIntersectLine(t *testing.T) {
	c := FromRows(testRows...)
	tests := []struct {
		name      string
		p0, p1    vmath.Vec2
		wantHit   int
		wantAt    vmath.Vec2 // checked when checkAt
		checkAt   bool
		wantTileX int // tile column of the hit point (when hit)
	}{
		{name: "free", p0: vmath.V(40, 40), p1: vmath.V(200, 40), wantHit: 0, wantAt: vmath.V(200, 40), checkAt: true},
		{name: "zero length free", p0: vmath.V(40, 40), p1: vmath.V(40, 40), wantHit: 0, wantAt: vmath.V(40, 40), checkAt: true},
		{name: "start inside solid", p0: vmath.V(10, 40), p1: vmath.V(40, 40), wantHit: FlagSolid, wantAt: vmath.V(10, 40), checkAt: true, wantTileX: 0},
		{name: "zero length inside", p0: vmath.V(10, 10), p1: vmath.V(10, 10), wantHit: FlagSolid, wantAt: vmath.V(10, 10), checkAt: true, wantTileX: 0},
		{name: "death does not stop, nohook hit", p0: vmath.V(48, 80), p1: vmath.V(120, 80), wantHit: FlagSolid | FlagNoHook, wantTileX: 3},
		{name: "right wall", p0: vmath.V(200, 48), p1: vmath.V(300, 48), wantHit: FlagSolid, wantTileX: 7},
		{name: "only end point solid", p0: vmath.V(200, 48), p1: vmath.V(224, 48), wantHit: FlagSolid, wantAt: vmath.V(224, 48), checkAt: true, wantTileX: 7},
		{name: "end point rounds into air", p0: vmath.V(200, 48), p1: vmath.V(223.4, 48), wantHit: 0, wantAt: vmath.V(223.4, 48), checkAt: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hit, at, before := c.IntersectLine(tc.p0, tc.p1)
			if hit != tc.wantHit {
				t.Fatalf("hit = %d, want %d (at %v)", hit, tc.wantHit, at)
			}
			if tc.checkAt && at != tc.wantAt {
				t.Errorf("at = %v, want %v", at, tc.wantAt)
			}
			if hit == 0 {
				if at != tc.p1 || before != tc.p1 {
					t.Errorf("no hit: at %v before %v, want both %v", at, before, tc.p1)
				}
				return
			}
			if !c.CheckPoint(at.X, at.Y) {
				t.Errorf("hit point %v is not solid", at)
			}
			if got := int(vmath.RoundToInt(at.X)) / TileSize; got != tc.wantTileX {
				t.Errorf("hit tile column %d, want %d", got, tc.wantTileX)
			}
			if before != tc.p0 && c.CheckPoint(before.X, before.Y) {
				t.Errorf("point before the hit %v is solid", before)
			}
			if before == tc.p0 && at != tc.p0 && c.CheckPoint(tc.p0.X, tc.p0.Y) {
				t.Errorf("started in solid but hit later")
			}
		})
	}
}

func TestMovePoint(t *testing.T) {
	c := FromRows(testRows...)
	tests := []struct {
		name        string
		pos, vel    vmath.Vec2
		e           float32
		wantPos     vmath.Vec2
		wantVel     vmath.Vec2
		wantBounces int
	}{
		{"free", vmath.V(40, 40), vmath.V(10, 5), 1, vmath.V(50, 45), vmath.V(10, 5), 0},
		{"wall in x", vmath.V(220, 40), vmath.V(10, 5), 1, vmath.V(220, 40), vmath.V(-10, 5), 1},
		{"floor in y", vmath.V(40, 220), vmath.V(5, 10), 0.5, vmath.V(40, 220), vmath.V(5, -5), 1},
		{"into corner, both axes", vmath.V(220, 220), vmath.V(10, 10), 1, vmath.V(220, 220), vmath.V(-10, -10), 2},
		// Only the diagonal enters the block (2,4) at x 64..95, y 128..159.
		{"pure diagonal corner", vmath.V(60, 124), vmath.V(8, 8), 1, vmath.V(60, 124), vmath.V(-8, -8), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, v, b := c.MovePoint(tc.pos, tc.vel, tc.e)
			if p != tc.wantPos || v != tc.wantVel || b != tc.wantBounces {
				t.Errorf("MovePoint = %v %v %d, want %v %v %d", p, v, b, tc.wantPos, tc.wantVel, tc.wantBounces)
			}
		})
	}
}

func TestMoveBox(t *testing.T) {
	c := FromRows(testRows...)
	size := vmath.V(28, 28)
	tests := []struct {
		name      string
		pos, vel  vmath.Vec2
		e         float32
		wantPos   vmath.Vec2
		wantVel   vmath.Vec2
		wantDeath bool
	}{
		{"zero velocity", vmath.V(48, 48), vmath.V(0, 0), 0, vmath.V(48, 48), vmath.V(0, 0), false},
		{"below threshold", vmath.V(48, 48), vmath.V(0.000001, 0), 0, vmath.V(48, 48), vmath.V(0.000001, 0), false},
		// |vel| in [3,4): 4 sub-steps of vel/4, exact in float32.
		{"free move", vmath.V(170, 48), vmath.V(3, 0), 0, vmath.V(173, 48), vmath.V(3, 0), false},
		// Bottom border at y >= 224: the box bottom (y+14) must round below 224.
		{"land on floor", vmath.V(170, 207), vmath.V(0, 3), 0, vmath.V(170, 209.25), vmath.V(0, 0), false},
		{"bounce off floor", vmath.V(170, 207), vmath.V(0, 3), 0.5, vmath.V(170, 209.25), vmath.V(0, -1.5), false},
		{"slide along wall", vmath.V(207, 100), vmath.V(3, 0.5), 0, vmath.V(209.25, 100.5), vmath.V(0, 0.5), false},
		// Only the diagonal sub-step touches the lone block (2,4): both axes stop.
		{"pure corner", vmath.V(49, 113), vmath.V(1, 1), 0, vmath.V(49, 113), vmath.V(0, 0), false},
		{"pure corner bounce", vmath.V(49, 113), vmath.V(1, 1), 1, vmath.V(48.5, 112.5), vmath.V(-1, -1), false},
		// The death box is 2/3 of the size (half 9.333).
		{"death box reaches tile", vmath.V(60, 52), vmath.V(0, 3), 0, vmath.V(60, 55), vmath.V(0, 3), true},
		{"death box short of tile", vmath.V(60, 50), vmath.V(0, 3), 0, vmath.V(60, 53), vmath.V(0, 3), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, v, death := c.MoveBox(tc.pos, tc.vel, size, tc.e)
			if p != tc.wantPos || v != tc.wantVel || death != tc.wantDeath {
				t.Errorf("MoveBox = %v %v %v, want %v %v %v", p, v, death, tc.wantPos, tc.wantVel, tc.wantDeath)
			}
			if !c.TestBox(tc.pos, size) && c.TestBox(p, size) {
				t.Errorf("ended inside solid at %v", p)
			}
		})
	}
}

func TestClipped(t *testing.T) {
	c := FromRows(testRows...) // 8x8
	tests := []struct {
		p    vmath.Vec2
		want bool
	}{
		{vmath.V(100, 100), false},
		{vmath.V(-200*32, 0), false},   // rx = -200
		{vmath.V(-200*32-32, 0), true}, // rx = -201
		{vmath.V(-200*32-1, 0), false}, // -6401/32 = -200 (truncation)
		{vmath.V(0, 208*32-1), false},  // ry = 207 < 8+200
		{vmath.V(0, 208*32), true},
	}
	for _, tc := range tests {
		if got := c.Clipped(tc.p); got != tc.want {
			t.Errorf("Clipped(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestSubStepBound(t *testing.T) {
	c := FromRows(testRows...)
	size := vmath.V(28, 28) // the character box
	// A velocity of 1e9 units per tick would take 1e9 sub-steps unbounded.
	p, v, _ := c.MoveBox(vmath.V(48, 48), vmath.V(1e9, 3e8), size, 0)
	if c.TestBox(p, size) || isNaN32(p.X) || isNaN32(v.X) {
		t.Fatalf("MoveBox with huge velocity ended at %v vel %v", p, v)
	}
	if hit, at, _ := c.IntersectLine(vmath.V(48, 48), vmath.V(1e9, 48)); hit != FlagSolid || !c.CheckPoint(at.X, at.Y) {
		t.Fatalf("IntersectLine to a far point: hit %d at %v", hit, at)
	}
}

// moveBoxTestingAll is MoveBox testing every corner of every sub-step, as
// the reference does (MoveBox leaves out the tests that can only find air).
func moveBoxTestingAll(c *Map, pos, vel, size vmath.Vec2, elasticity float32) (vmath.Vec2, vmath.Vec2, bool) {
	dist := vmath.Length(vel)
	if !(dist > 0.00001) {
		return pos, vel, false
	}
	return c.moveBox(pos, vel, size, elasticity, FlagSolid|FlagDeath, min(vmath.TruncToInt(dist), MaxSubSteps-1))
}

// sameVec reports whether a and b hold the same float32 bits.
func sameVec(a, b vmath.Vec2) bool {
	return math.Float32bits(a.X) == math.Float32bits(b.X) && math.Float32bits(a.Y) == math.Float32bits(b.Y)
}

// TestMoveBoxSkipsOnlyAir: MoveBox, which leaves out the corner tests that
// can only find air, gives the bits of testing every corner, over random
// moves of tees and flags on random maps with air, solid, death and
// unhookable tiles: slow and fast, near edges and far outside the map,
// bouncing (elasticity up to 1 and beyond, negative), and huge moves that
// take the full path.
func TestMoveBoxSkipsOnlyAir(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	skipped := 0
	for range 20000 {
		w, h := 1+rng.IntN(40), 1+rng.IntN(40)
		game := make([]byte, w*h)
		density := rng.IntN(20)
		for i := range game {
			if rng.IntN(100) < density {
				game[i] = byte(1 + rng.IntN(3))
			}
		}
		c := New(w, h, game)
		span := float32(max(w, h)*TileSize) * 1.5
		pos := vmath.V((rng.Float32()*2-0.5)*span, (rng.Float32()*2-0.5)*span)
		speed := float32(30)
		switch rng.IntN(10) {
		case 0:
			speed = 3000
		case 1:
			speed = 0.5
		}
		vel := vmath.V((rng.Float32()*2-1)*speed, (rng.Float32()*2-1)*speed)
		e := [...]float32{0, 0.5, 1, 1.5, -0.5}[rng.IntN(5)]
		size := vmath.V(28, 28)
		if rng.IntN(4) == 0 {
			size = vmath.V(rng.Float32()*80, rng.Float32()*80)
		}
		if c.flagsNear(pos, vel, size, e)&(FlagSolid|FlagDeath) != FlagSolid|FlagDeath {
			skipped++
		}
		gp, gv, gd := c.MoveBox(pos, vel, size, e)
		wp, wv, wd := moveBoxTestingAll(c, pos, vel, size, e)
		if !sameVec(gp, wp) || !sameVec(gv, wv) || gd != wd {
			t.Fatalf("map %dx%d, MoveBox(%v, %v, %v, e=%v) = %v %v %v, testing every corner gives %v %v %v",
				w, h, pos, vel, size, e, gp, gv, gd, wp, wv, wd)
		}
	}
	if skipped < 5000 {
		t.Errorf("only %d of 20000 moves left a test out: the comparison says little", skipped)
	}
}
