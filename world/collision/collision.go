// Package collision answers collision queries on a map's game layer
// (world.md section 2): tile lookups, line intersection, and point and box
// movement against solid and death tiles. Values are float32 evaluated in the
// reference order (see package vmath).
package collision

import "twserver/world/vmath"

// Game-layer tile indices (world.md 1.3, TILE_*).
const (
	TileAir    = 0 // TILE_AIR
	TileSolid  = 1 // TILE_SOLID, hookable
	TileDeath  = 2 // TILE_DEATH
	TileNoHook = 3 // TILE_NOHOOK, solid and unhookable
)

// Collision flags (COLFLAG_*), the collision value of a tile is a set of these.
const (
	FlagSolid  = 1 // COLFLAG_SOLID
	FlagDeath  = 2 // COLFLAG_DEATH
	FlagNoHook = 4 // COLFLAG_NOHOOK
)

// TileSize is the width and height of one tile in world units.
const TileSize = 32

// MaxSubSteps bounds the number of sub-steps of IntersectLine, MoveBox and
// the player sweep of the world's CharacterCore.Move (one per world unit travelled). The
// reference has no bound; 65536 units in one tick is far beyond any reachable
// speed (the core caps velocity at 6000), so the bound only keeps absurd
// inputs from hanging the tick. Beyond it the steps get longer than one unit.
const MaxSubSteps = 1 << 16

// clipMargin is how many tiles beyond the map an entity may be before it is
// considered outside the game layer (GameLayerClipped).
const clipMargin = 200

// Map answers collision queries on the game layer (world.md section 2).
// It is immutable after New and safe for concurrent reads.
type Map struct {
	width, height int
	flags         []uint8 // collision value per tile, row-major
}

// New builds the collision map from the game-layer tile indices
// (row-major, width*height bytes). Indices 1, 2 and 3 become SOLID, DEATH and
// SOLID|NOHOOK; every other index is air. Missing tiles (game shorter than
// width*height) are air, and a width or height below 1 is treated as 1, so the
// result is always usable.
func New(width, height int, game []byte) *Map {
	width = max(width, 1)
	height = max(height, 1)
	c := &Map{width: width, height: height, flags: make([]uint8, width*height)}
	n := min(len(game), len(c.flags))
	for i, idx := range game[:n] {
		c.flags[i] = tileFlags(idx)
	}
	return c
}

// tileFlags maps a game-layer tile index to its collision value.
func tileFlags(index byte) uint8 {
	switch index {
	case TileSolid:
		return FlagSolid
	case TileDeath:
		return FlagDeath
	case TileNoHook:
		return FlagSolid | FlagNoHook
	}
	return 0
}

// Width returns the game-layer width in tiles.
func (c *Map) Width() int { return c.width }

// Height returns the game-layer height in tiles.
func (c *Map) Height() int { return c.height }

// GetTile returns the collision value at integer world coordinates. The tile
// coordinates are x/32 and y/32 (truncating division) clamped to the map, so
// outside the map the nearest border tile repeats forever.
func (c *Map) GetTile(x, y int) int {
	nx := min(max(x/TileSize, 0), c.width-1)
	ny := min(max(y/TileSize, 0), c.height-1)
	return int(c.flags[ny*c.width+nx])
}

// IsTile reports whether the tile at integer world coordinates has any of flag.
func (c *Map) IsTile(x, y, flag int) bool { return c.GetTile(x, y)&flag != 0 }

// CheckPoint reports whether the point (x, y), rounded to ints, is solid.
func (c *Map) CheckPoint(x, y float32) bool {
	return c.IsTile(int(vmath.RoundToInt(x)), int(vmath.RoundToInt(y)), FlagSolid)
}

// CheckPointFlag reports whether the point (x, y), rounded to ints, has any of flag.
func (c *Map) CheckPointFlag(x, y float32, flag int) bool {
	return c.IsTile(int(vmath.RoundToInt(x)), int(vmath.RoundToInt(y)), flag)
}

// GetCollisionAt returns the collision value at the point (x, y), rounded to ints.
func (c *Map) GetCollisionAt(x, y float32) int {
	return c.GetTile(int(vmath.RoundToInt(x)), int(vmath.RoundToInt(y)))
}

// IsDeath reports whether the point p lies in a death tile.
func (c *Map) IsDeath(p vmath.Vec2) bool { return c.CheckPointFlag(p.X, p.Y, FlagDeath) }

// TestBox reports whether any corner of the box of the given full size
// centred at pos is solid.
func (c *Map) TestBox(pos, size vmath.Vec2) bool {
	return c.TestBoxFlag(pos, size, FlagSolid)
}

// TestBoxFlag reports whether any corner of the box of the given full size
// centred at pos has any of flag. Corners are tested in the order
// (-,-), (+,-), (-,+), (+,+).
func (c *Map) TestBoxFlag(pos, size vmath.Vec2, flag int) bool {
	hx, hy := float32(size.X*0.5), float32(size.Y*0.5)
	return c.CheckPointFlag(pos.X-hx, pos.Y-hy, flag) ||
		c.CheckPointFlag(pos.X+hx, pos.Y-hy, flag) ||
		c.CheckPointFlag(pos.X-hx, pos.Y+hy, flag) ||
		c.CheckPointFlag(pos.X+hx, pos.Y+hy, flag)
}

// IntersectLine walks from p0 to p1 in int(distance+1) equal steps (both ends
// included, at most MaxSubSteps) and stops at the first solid point. It returns the collision value
// there (FlagSolid, possibly with FlagNoHook), that point, and the
// previous point tested. Without a hit it returns (0, p1, p1). Death tiles do
// not stop a line.
func (c *Map) IntersectLine(p0, p1 vmath.Vec2) (hit int, at, before vmath.Vec2) {
	end := min(vmath.TruncToInt(vmath.Distance(p0, p1)+1), MaxSubSteps)
	last := p0
	for i := int32(0); i <= end; i++ {
		a := float32(i) / float32(end)
		p := vmath.MixVec(p0, p1, a)
		if c.CheckPoint(p.X, p.Y) {
			return c.GetCollisionAt(p.X, p.Y), p, last
		}
		last = p
	}
	return 0, p1, p1
}

// MovePoint moves a point by vel, bouncing off solid tiles with the given
// elasticity. On a collision the position is not moved; the velocity
// component(s) that hit are multiplied by -elasticity (both when only the
// diagonal is blocked). It returns the new position and velocity and the
// number of axis bounces.
func (c *Map) MovePoint(pos, vel vmath.Vec2, elasticity float32) (newPos, newVel vmath.Vec2, bounces int) {
	if !c.CheckPoint(pos.X+vel.X, pos.Y+vel.Y) {
		return pos.Add(vel), vel, 0
	}
	newVel = vel
	affected := 0
	if c.CheckPoint(pos.X+vel.X, pos.Y) {
		newVel.X = float32(newVel.X * -elasticity)
		bounces++
		affected++
	}
	if c.CheckPoint(pos.X, pos.Y+vel.Y) {
		newVel.Y = float32(newVel.Y * -elasticity)
		bounces++
		affected++
	}
	if affected == 0 {
		newVel.X = float32(newVel.X * -elasticity)
		newVel.Y = float32(newVel.Y * -elasticity)
	}
	return pos, newVel, bounces
}

// deathBoxScale is the factor applied to the box size for the death-tile test
// in MoveBox (2.0f/3.0f).
const deathBoxScale = float32(2.0) / float32(3.0)

// MoveBox moves a box of the given full size from pos by vel in
// int(|vel|)+1 sub-steps (at most MaxSubSteps), stopping and reflecting (times -elasticity) the
// velocity components that would enter a solid tile. death reports whether a
// box of 2/3 the size touched a death tile at any sub-step.
func (c *Map) MoveBox(pos, vel, size vmath.Vec2, elasticity float32) (newPos, newVel vmath.Vec2, death bool) {
	dist := vmath.Length(vel)
	steps := min(vmath.TruncToInt(dist), MaxSubSteps-1)
	if !(dist > 0.00001) {
		return pos, vel, false
	}
	// A test that can only find air is left out: its answer is known.
	return c.moveBox(pos, vel, size, elasticity, c.flagsNear(pos, vel, size, elasticity), steps)
}

// moveBox is MoveBox's sub-steps, testing the corners for the flags in
// near only.
func (c *Map) moveBox(pos, vel, size vmath.Vec2, elasticity float32, near int, steps int32) (newPos, newVel vmath.Vec2, death bool) {
	frac := 1 / float32(steps+1)
	deathSize := size.Scale(deathBoxScale)
	testDeath, testSolid := near&FlagDeath != 0, near&FlagSolid != 0
	for i := int32(0); i <= steps; i++ {
		np := pos.Add(vel.Scale(frac))
		if testDeath && c.TestBoxFlag(np, deathSize, FlagDeath) {
			death = true
		}
		if testSolid && c.TestBox(np, size) {
			hits := 0
			if c.TestBox(vmath.V(pos.X, np.Y), size) {
				np.Y = pos.Y
				vel.Y = float32(vel.Y * -elasticity)
				hits++
			}
			if c.TestBox(vmath.V(np.X, pos.Y), size) {
				np.X = pos.X
				vel.X = float32(vel.X * -elasticity)
				hits++
			}
			if hits == 0 {
				np.Y = pos.Y
				vel.Y = float32(vel.Y * -elasticity)
				np.X = pos.X
				vel.X = float32(vel.X * -elasticity)
			}
		}
		pos = np
	}
	return pos, vel, death
}

// Bounds of flagsNear's answer: it answers for moves of at most
// nearMaxSteps sub-steps within nearMaxCoord units of the origin, where
// the rounding of the sub-steps' sums stays below nearSlack units.
const (
	nearMaxSteps = 1024
	nearMaxCoord = 1 << 16
	nearSlack    = 8
)

// flagsNear returns the union of the flags of every tile that a corner
// tested by MoveBox(pos, vel, size, elasticity) can fall on, or every flag
// when it cannot tell (a bounce that speeds up, absurd speeds or
// coordinates, NaN). With |elasticity| <= 1 the box moves at most |vel| per
// axis over all its sub-steps, bounces or not; the corners lie within half
// the size of it; float32 sums and RoundToInt are monotone, so the tiles
// from the lowest corner's to the highest corner's, with nearSlack units
// for the rounding of at most nearMaxSteps sums below nearMaxCoord (half
// an ulp, 1/256, each), hold every tile tested.
func (c *Map) flagsNear(pos, vel, size vmath.Vec2, elasticity float32) int {
	const all = FlagSolid | FlagDeath | FlagNoHook
	mx := vmath.Abs(vel.X) + vmath.Abs(size.X*0.5) + nearSlack
	my := vmath.Abs(vel.Y) + vmath.Abs(size.Y*0.5) + nearSlack
	if !(vmath.Abs(elasticity) <= 1 && vmath.Abs(pos.X)+mx < nearMaxCoord && vmath.Abs(pos.Y)+my < nearMaxCoord && vmath.Abs(vel.X)+vmath.Abs(vel.Y) < nearMaxSteps) {
		return all // also NaN
	}
	x0, x1 := c.tileX(pos.X-mx), c.tileX(pos.X+mx)
	y0, y1 := c.tileY(pos.Y-my), c.tileY(pos.Y+my)
	var f uint8
	for y := y0; y <= y1; y++ {
		for _, t := range c.flags[y*c.width+x0 : y*c.width+x1+1] {
			f |= t
		}
	}
	return int(f)
}

// tileX and tileY are GetTile's column and row of a coordinate, rounded.
func (c *Map) tileX(x float32) int {
	return min(max(int(vmath.RoundToInt(x))/TileSize, 0), c.width-1)
}

func (c *Map) tileY(y float32) int {
	return min(max(int(vmath.RoundToInt(y))/TileSize, 0), c.height-1)
}

// Clipped reports whether a point is far outside the game layer (more than
// 200 tiles beyond any edge; reference GameLayerClipped). Characters there die
// and projectiles vanish.
func (c *Map) Clipped(p vmath.Vec2) bool {
	rx := int(vmath.RoundToInt(p.X)) / TileSize
	ry := int(vmath.RoundToInt(p.Y)) / TileSize
	return rx < -clipMargin || rx >= c.width+clipMargin || ry < -clipMargin || ry >= c.height+clipMargin
}

// FromRows builds a map from rows of text (for tests and tools): '#' solid,
// 'x' death, 'N' solid+nohook, anything else air.
func FromRows(rows ...string) *Map {
	if len(rows) == 0 {
		return New(1, 1, nil)
	}
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
	return New(w, h, game)
}
