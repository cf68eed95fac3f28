// Package replay re-simulates a teehistorian file written by twserver in a
// fresh world and compares every recorded character position with the
// simulation. It also holds what the server's recorder shares with the
// replay: the character positions of a World (Positions) and the mapping
// between world settings and the header's config object.
package replay

import (
	"errors"

	"twserver/world"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

var errItemTooLarge = errors.New("replay: snapshot item too large")

// MaxEvolveTicks bounds the ticks a character core is extrapolated; the
// world re-bases its dead reckoning at least every 3 s (151 ticks).
const MaxEvolveTicks = 4 * 50

// mirror tracks one character's dead-reckoning core.
type mirror struct {
	valid bool
	base  world.NetCore // the Character item's core (sendCore and its tick)
	steps int32         // ticks the core was advanced from base
	core  world.CharacterCore
	wc    world.WorldCore
}

// Positions reads the exact character positions of a World after each Tick.
//
// The World exposes character cores only through Snap, whose Character item
// holds the dead-reckoning core (its position at the item's tick) unless the
// item's tick is 0. The world re-sends that core whenever the reckoning core,
// advanced tick by tick in an empty world, differs from the real core in
// network form; so advancing the sent core the same way yields the real
// position. Positions keeps one such advanced core per client, so Update
// costs one core tick per character.
type Positions struct {
	alive [world.MaxClients]bool
	x, y  [world.MaxClients]int32
	seen  [world.MaxClients]bool
	items [world.MaxClients]world.NetCore
	m     [world.MaxClients]mirror
	cap   capture
}

// Update reads the positions of every character of w at its current tick.
func (p *Positions) Update(w *world.World) {
	p.seen = [world.MaxClients]bool{}
	p.cap.p = p
	_ = w.Snap(-1, &p.cap)
	p.cap.flush()
	tick := w.CurrentTick()
	for cid := range world.MaxClients {
		if !p.seen[cid] {
			p.alive[cid] = false
			p.m[cid].valid = false
			continue
		}
		n := p.items[cid]
		p.alive[cid] = true
		if n.Tick == 0 {
			p.x[cid], p.y[cid] = n.X, n.Y
			p.m[cid].valid = false
			continue
		}
		m := &p.m[cid]
		want := tick - n.Tick
		if !m.valid || m.base != n || m.steps > want {
			m.valid, m.base, m.steps = true, n, 0
			m.wc = world.WorldCore{Tuning: tuning.Default()}
			m.core = world.CharacterCore{}
			m.core.Init(&m.wc, w.Collision())
			m.core.Reset()
			m.core.Read(&n)
		}
		for m.steps < want && m.steps < MaxEvolveTicks {
			m.core.Tick(false)
			m.core.Move()
			m.core.Quantize()
			m.steps++
		}
		p.x[cid], p.y[cid] = vmath.RoundToInt(m.core.Pos.X), vmath.RoundToInt(m.core.Pos.Y)
	}
}

// Get returns the position of client cid's character after the last Update.
func (p *Positions) Get(cid int) (x, y int32, ok bool) {
	if cid < 0 || cid >= world.MaxClients || !p.alive[cid] {
		return 0, 0, false
	}
	return p.x[cid], p.y[cid], true
}

// capture hands out scratch item buffers and keeps Character cores.
type capture struct {
	p       *Positions
	scratch [256]int32
	last    int
	lastD   []int32
}

func (c *capture) NewItem(typ, id uint16, size int) ([]int32, error) {
	c.flush()
	if size < 0 || size > len(c.scratch) {
		return nil, errItemTooLarge
	}
	d := c.scratch[:size]
	clear(d)
	if typ == world.ObjCharacter && int(id) < world.MaxClients && size >= world.NetCoreSize {
		c.last, c.lastD = int(id), d
	}
	return d, nil
}

// flush stores the previous Character item once its data is filled (the
// world fills an item after NewItem returns, before asking for the next).
func (c *capture) flush() {
	if c.lastD != nil {
		c.p.seen[c.last] = true
		c.p.items[c.last].Get(c.lastD)
		c.lastD = nil
	}
}
