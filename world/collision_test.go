package world

import (
	"math"
	"testing"
)

// mapFromRows builds a collision map from rows of text: '#' solid,
// 'x' death, 'N' solid+nohook, anything else air.
func mapFromRows(rows ...string) *Collision {
	h := len(rows)
	w := len(rows[0])
	game := make([]byte, w*h)
	for y, row := range rows {
		for x := 0; x < w && x < len(row); x++ {
			switch row[x] {
			case '#':
				game[y*w+x] = TileSolid
			case 'x':
				game[y*w+x] = TileDeath
			case 'N':
				game[y*w+x] = TileNoHook
			}
		}
	}
	return NewCollision(w, h, game)
}

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

func TestNewCollisionTiles(t *testing.T) {
	game := []byte{0, 1, 2, 3, 4, 128, 129, 191, 192, 255}
	c := NewCollision(len(game), 1, game)
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
		c := NewCollision(tc.w, tc.h, tc.game)
		_ = c.GetTile(1000, -1000)
		if c.Width() < 1 || c.Height() < 1 {
			t.Errorf("NewCollision(%d,%d): size %dx%d", tc.w, tc.h, c.Width(), c.Height())
		}
	}
}

func TestGetTileClamp(t *testing.T) {
	c := mapFromRows(testRows...)
	tests := []struct {
		name string
		x, y int
		want int
	}{
		{"inside air", 40, 40, 0},
		{"death", 2*32 + 5, 2*32 + 31, ColFlagDeath},
		{"nohook", 3 * 32, 2 * 32, ColFlagSolid | ColFlagNoHook},
		{"negative x maps to column 0", -1000, 40, ColFlagSolid},
		{"-1/32 is 0 (truncation)", -1, 40, ColFlagSolid},
		{"far right repeats border", 1 << 20, 40, ColFlagSolid},
		{"below map repeats border", 40, 1 << 20, ColFlagSolid},
		{"minint", math.MinInt32, math.MinInt32, ColFlagSolid},
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
	c := mapFromRows(testRows...)
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
	if !c.IsDeath(V(2*32+16, 2*32+16)) || c.IsDeath(V(40, 40)) {
		t.Error("IsDeath wrong")
	}
}

func TestTestBox(t *testing.T) {
	c := mapFromRows(testRows...)
	size := V(28, 28)
	tests := []struct {
		name string
		pos  Vec2
		flag int
		want bool
	}{
		{"free", V(48, 48), ColFlagSolid, false},
		{"touching wall left", V(45, 48), ColFlagSolid, true}, // 45-14 = 31
		{"just clear of wall", V(46, 48), ColFlagSolid, false},
		{"bottom right corner in block", V(50, 114), ColFlagSolid, true}, // (64,128) tile (2,4)
		{"death flag", V(60, 60), ColFlagDeath, true},
		{"death not solid", V(50, 80), ColFlagSolid, false},
		{"nohook is solid", V(100, 70), ColFlagSolid, true},
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
	c := mapFromRows(testRows...)
	tests := []struct {
		name      string
		p0, p1    Vec2
		wantHit   int
		wantAt    Vec2 // checked when checkAt
		checkAt   bool
		wantTileX int // tile column of the hit point (when hit)
	}{
		{name: "free", p0: V(40, 40), p1: V(200, 40), wantHit: 0, wantAt: V(200, 40), checkAt: true},
		{name: "zero length free", p0: V(40, 40), p1: V(40, 40), wantHit: 0, wantAt: V(40, 40), checkAt: true},
		{name: "start inside solid", p0: V(10, 40), p1: V(40, 40), wantHit: ColFlagSolid, wantAt: V(10, 40), checkAt: true, wantTileX: 0},
		{name: "zero length inside", p0: V(10, 10), p1: V(10, 10), wantHit: ColFlagSolid, wantAt: V(10, 10), checkAt: true, wantTileX: 0},
		{name: "death does not stop, nohook hit", p0: V(48, 80), p1: V(120, 80), wantHit: ColFlagSolid | ColFlagNoHook, wantTileX: 3},
		{name: "right wall", p0: V(200, 48), p1: V(300, 48), wantHit: ColFlagSolid, wantTileX: 7},
		{name: "only end point solid", p0: V(200, 48), p1: V(224, 48), wantHit: ColFlagSolid, wantAt: V(224, 48), checkAt: true, wantTileX: 7},
		{name: "end point rounds into air", p0: V(200, 48), p1: V(223.4, 48), wantHit: 0, wantAt: V(223.4, 48), checkAt: true},
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
			if got := int(RoundToInt(at.X)) / TileSize; got != tc.wantTileX {
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
	c := mapFromRows(testRows...)
	tests := []struct {
		name        string
		pos, vel    Vec2
		e           float32
		wantPos     Vec2
		wantVel     Vec2
		wantBounces int
	}{
		{"free", V(40, 40), V(10, 5), 1, V(50, 45), V(10, 5), 0},
		{"wall in x", V(220, 40), V(10, 5), 1, V(220, 40), V(-10, 5), 1},
		{"floor in y", V(40, 220), V(5, 10), 0.5, V(40, 220), V(5, -5), 1},
		{"into corner, both axes", V(220, 220), V(10, 10), 1, V(220, 220), V(-10, -10), 2},
		// Only the diagonal enters the block (2,4) at x 64..95, y 128..159.
		{"pure diagonal corner", V(60, 124), V(8, 8), 1, V(60, 124), V(-8, -8), 0},
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
	c := mapFromRows(testRows...)
	size := V(28, 28)
	tests := []struct {
		name      string
		pos, vel  Vec2
		e         float32
		wantPos   Vec2
		wantVel   Vec2
		wantDeath bool
	}{
		{"zero velocity", V(48, 48), V(0, 0), 0, V(48, 48), V(0, 0), false},
		{"below threshold", V(48, 48), V(0.000001, 0), 0, V(48, 48), V(0.000001, 0), false},
		// |vel| in [3,4): 4 sub-steps of vel/4, exact in float32.
		{"free move", V(170, 48), V(3, 0), 0, V(173, 48), V(3, 0), false},
		// Bottom border at y >= 224: the box bottom (y+14) must round below 224.
		{"land on floor", V(170, 207), V(0, 3), 0, V(170, 209.25), V(0, 0), false},
		{"bounce off floor", V(170, 207), V(0, 3), 0.5, V(170, 209.25), V(0, -1.5), false},
		{"slide along wall", V(207, 100), V(3, 0.5), 0, V(209.25, 100.5), V(0, 0.5), false},
		// Only the diagonal sub-step touches the lone block (2,4): both axes stop.
		{"pure corner", V(49, 113), V(1, 1), 0, V(49, 113), V(0, 0), false},
		{"pure corner bounce", V(49, 113), V(1, 1), 1, V(48.5, 112.5), V(-1, -1), false},
		// The death box is 2/3 of the size (half 9.333).
		{"death box reaches tile", V(60, 52), V(0, 3), 0, V(60, 55), V(0, 3), true},
		{"death box short of tile", V(60, 50), V(0, 3), 0, V(60, 53), V(0, 3), false},
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
	c := mapFromRows(testRows...) // 8x8
	tests := []struct {
		p    Vec2
		want bool
	}{
		{V(100, 100), false},
		{V(-200*32, 0), false},   // rx = -200
		{V(-200*32-32, 0), true}, // rx = -201
		{V(-200*32-1, 0), false}, // -6401/32 = -200 (truncation)
		{V(0, 208*32-1), false},  // ry = 207 < 8+200
		{V(0, 208*32), true},
	}
	for _, tc := range tests {
		if got := c.Clipped(tc.p); got != tc.want {
			t.Errorf("Clipped(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestSubStepBound(t *testing.T) {
	c := mapFromRows(testRows...)
	size := V(PhysSize, PhysSize)
	// A velocity of 1e9 units per tick would take 1e9 sub-steps unbounded.
	p, v, _ := c.MoveBox(V(48, 48), V(1e9, 3e8), size, 0)
	if c.TestBox(p, size) || isNaN32(p.X) || isNaN32(v.X) {
		t.Fatalf("MoveBox with huge velocity ended at %v vel %v", p, v)
	}
	if hit, at, _ := c.IntersectLine(V(48, 48), V(1e9, 48)); hit != ColFlagSolid || !c.CheckPoint(at.X, at.Y) {
		t.Fatalf("IntersectLine to a far point: hit %d at %v", hit, at)
	}
	wc := &WorldCore{Tuning: DefaultTuning()}
	a := newTestCore(wc, c, 0, V(48, 48))
	newTestCore(wc, c, 1, V(200, 200))
	a.Vel = V(1e9, 1e9) // set after Tick, so the 6000 cap does not apply
	a.Move()
	if c.TestBox(a.Pos, size) {
		t.Fatalf("Move with huge velocity ended inside solid at %v", a.Pos)
	}
}
