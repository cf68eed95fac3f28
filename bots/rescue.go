package bots

import (
	"twserver/world"
	"twserver/world/collision"
)

// Falling into a death tile is the commonest way a move goes wrong (moves
// are simulated from rest; the bot may start one with some speed). When
// the bot is in the air above a death tile it simulates its own core a
// little ahead for a few inputs and keeps the first that does not die.
const (
	// rescueLook is how many ticks ahead a rescue input is simulated.
	rescueLook = 45
	// rescueHold is how long a chosen rescue input is kept before the bot
	// looks again.
	rescueHold = 8
	// dangerRows is how far below the bot death tiles are looked for.
	dangerRows = 30
)

// rescueInputs are the candidate inputs: direction, jump, hook elevation
// (0 none; the hook aims up and to the direction, or straight up).
var rescueInputs = [...]struct {
	dir, jump int32
	hook      bool
}{
	{0, 0, false}, {-1, 0, false}, {1, 0, false},
	{-1, 1, false}, {1, 1, false}, {0, 1, false},
	{-1, 0, true}, {1, 0, true}, {0, 0, true},
	{-1, 1, true}, {1, 1, true}, {0, 1, true},
}

// deathBelow reports whether a death tile lies under the bot (at its
// centre or either side) before a solid one.
func (b *Bot) deathBelow() bool {
	p := b.pos()
	col := b.nav.col
	for _, dx := range [3]float32{-world.PhysSize / 2, 0, world.PhysSize / 2} {
		x := int(p.X + dx)
		for r := 0; r < dangerRows; r++ {
			f := col.GetTile(x, int(p.Y)+r*collision.TileSize)
			if f&collision.FlagDeath != 0 {
				return true
			}
			if f&collision.FlagSolid != 0 {
				break
			}
		}
	}
	return false
}

// dies simulates the bot's core with input in held for rescueLook ticks
// (jump only on the first tick) and reports whether it touches death.
func (b *Bot) dies(in world.CoreInput) bool {
	c := b.tr[b.cid].core // a copy
	for t := 0; t < rescueLook; t++ {
		c.Input = in
		c.Tick(true)
		c.Move()
		c.Quantize()
		if c.Death {
			return true
		}
		in.Jump = 0
		if c.Grounded() && c.Vel.Y >= 0 {
			return false
		}
	}
	return false
}

// rescue overrides the input when the bot is falling towards death; it
// reports whether it did.
func (b *Bot) rescue() bool {
	in := &b.in
	if b.now < b.rescueUntil {
		in.Direction, in.Jump, in.Hook = b.rescueIn.Direction, 0, b.rescueIn.Hook
		if in.Hook != 0 {
			in.TargetX, in.TargetY = b.rescueIn.TargetX, b.rescueIn.TargetY
		}
		return true
	}
	t := &b.tr[b.cid]
	if t.core.Grounded() || !b.deathBelow() {
		return false
	}
	cur := world.CoreInput{Direction: in.Direction, TargetX: in.TargetX, TargetY: in.TargetY, Jump: in.Jump, Hook: in.Hook}
	if b.prevHook() {
		cur.Hook = 1
	}
	if !b.dies(cur) {
		return false
	}
	for _, r := range rescueInputs {
		ci := world.CoreInput{Direction: r.dir, Jump: r.jump, TargetX: r.dir * 50, TargetY: -100}
		if r.hook {
			ci.Hook = 1
		}
		if r.jump != 0 && t.core.Jumped&2 != 0 {
			continue // the air jump is used up
		}
		if !b.dies(ci) {
			in.Direction, in.Jump, in.Hook = ci.Direction, ci.Jump, ci.Hook
			in.TargetX, in.TargetY = ci.TargetX, ci.TargetY
			b.rescueIn, b.rescueUntil = ci, b.now+rescueHold
			b.curEdge = -1
			b.pl.plen, b.pl.pidx = 0, 0
			return true
		}
	}
	return false
}
