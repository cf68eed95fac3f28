package world

import (
	"math"
	"math/rand/v2"
	"testing"

	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// tickPlayersFull is tickPlayers before it skipped the cores that cannot
// act: every other core gets the distance and both tests.
func (c *CharacterCore) tickPlayersFull() {
	w := c.world
	tu := &w.Tuning
	for i, o := range &w.Characters {
		if o == nil || o == c {
			continue
		}
		d := vmath.Distance(c.Pos, o.Pos)
		dir := vmath.Normalize(c.Pos.Sub(o.Pos))
		if tu.PlayerCollision != 0 && d < float32(PhysSize*1.25) && d > 0 {
			a := float32(PhysSize*1.45) - d
			v := float32(0.5)
			if float64(vmath.Length(c.Vel)) > 0.0001 {
				v = 1 - float32((vmath.Dot(vmath.Normalize(c.Vel), dir)+1)/2)
			}
			c.Vel = c.Vel.Add(dir.Scale(a).Scale(float32(v * 0.75)))
			c.Vel = c.Vel.Scale(0.85)
		}
		if int32(i) == c.HookedPlayer && tu.PlayerHooking != 0 && d > float32(PhysSize*1.5) {
			acc := float32(tu.HookDragAccel.Float() * (d / tu.HookLength.Float()))
			ds := tu.HookDragSpeed.Float()
			o.Vel.X = vmath.SaturatedAdd(-ds, ds, o.Vel.X, float32(float32(acc*dir.X)*1.5))
			o.Vel.Y = vmath.SaturatedAdd(-ds, ds, o.Vel.Y, float32(float32(acc*dir.Y)*1.5))
			c.Vel.X = vmath.SaturatedAdd(-ds, ds, c.Vel.X, float32(float32(-acc*dir.X)*0.25))
			c.Vel.Y = vmath.SaturatedAdd(-ds, ds, c.Vel.Y, float32(float32(-acc*dir.Y)*0.25))
		}
	}
}

// moveFull is Move before it left out the cores the sweep cannot meet:
// every step is tested against every other core.
func (c *CharacterCore) moveFull() {
	w := c.world
	tu := &w.Tuning
	ramp := vmath.VelocityRamp(float32(vmath.Length(c.Vel)*50), tu.VelrampStart.Float(), tu.VelrampRange.Float(), tu.VelrampCurvature.Float())
	c.Vel.X = float32(c.Vel.X * ramp)
	newPos, vel, death := c.collision.MoveBox(c.Pos, c.Vel, vmath.V(PhysSize, PhysSize), 0)
	c.Vel = vel
	c.Death = death
	c.Vel.X = float32(c.Vel.X * (1 / ramp))
	var others [MaxClients]*CharacterCore
	n := 0
	for _, o := range &w.Characters {
		if o != nil && o != c && tu.PlayerCollision != 0 {
			others[n], n = o, n+1
		}
	}
	if n > 0 {
		dist := vmath.Distance(c.Pos, newPos)
		end := min(vmath.TruncToInt(dist+1), collision.MaxSubSteps)
		last := c.Pos
		for i := int32(0); i < end; i++ {
			a := float32(i) / dist
			p := vmath.MixVec(c.Pos, newPos, a)
			for _, o := range others[:n] {
				d := vmath.Distance(p, o.Pos)
				if d < PhysSize && d >= 0 {
					if a > 0 {
						c.Pos = last
					} else if vmath.Distance(newPos, o.Pos) > d {
						c.Pos = newPos
					}
					return
				}
			}
			last = p
		}
	}
	c.Pos = newPos
}

// cloneCores returns a copy of wc whose cores are copies attached to it.
func cloneCores(wc *WorldCore) *WorldCore {
	cp := &WorldCore{Tuning: wc.Tuning}
	for i, c := range &wc.Characters {
		if c != nil {
			d := *c
			d.world = cp
			cp.Characters[i] = &d
		}
	}
	return cp
}

// coreBits is every core's position and velocity, bit for bit (NaN too).
func coreBits(wc *WorldCore) []uint32 {
	var out []uint32
	for _, c := range &wc.Characters {
		if c != nil {
			out = append(out, math.Float32bits(c.Pos.X), math.Float32bits(c.Pos.Y),
				math.Float32bits(c.Vel.X), math.Float32bits(c.Vel.Y))
			if c.Death {
				out = append(out, 1)
			}
		}
	}
	return out
}

// TestCoreSkipsMatchFullSweep checks that Move and tickPlayers, which leave
// out the other cores that cannot act on a core, give the same bits as the
// full sweeps they replace, on random crowds (on the map and far outside
// it, where float32 steps are coarse) with hooks, huge and NaN velocities.
func TestCoreSkipsMatchFullSweep(t *testing.T) {
	col := collision.FromRows(coreRows...)
	rng := rand.New(rand.NewPCG(7, 11))
	cmp := func(wc *WorldCore, id int, what string, fast, full func(*CharacterCore)) bool {
		a, b := cloneCores(wc), cloneCores(wc)
		fast(a.Characters[id])
		full(b.Characters[id])
		ga, gb := coreBits(a), coreBits(b)
		for i := range ga {
			if ga[i] != gb[i] {
				t.Errorf("%s of core %d: word %d is %#x, the full sweep gives %#x", what, id, i, ga[i], gb[i])
				return false
			}
		}
		return true
	}
	hits := 0
	for round := range 400 {
		wc := &WorldCore{Tuning: tuning.Default()}
		base, spread := float32(30), float32(200)
		switch round % 4 {
		case 1:
			base, spread = 3e7, 400 // steps of 2 units
		case 2:
			base, spread = -5e5, 120
		}
		for range 2 + rng.IntN(24) {
			id := rng.IntN(MaxClients)
			if wc.Characters[id] != nil {
				continue
			}
			c := newTestCore(wc, col, id, vmath.V(base+rng.Float32()*spread, base+rng.Float32()*spread))
			c.Vel = vmath.V(rng.Float32()*80-40, rng.Float32()*80-40)
			switch rng.IntN(20) {
			case 0:
				c.Vel = vmath.V(float32(rng.NormFloat64()*1e5), float32(rng.NormFloat64()*1e5))
			case 1:
				c.Vel.X = float32(math.NaN())
			}
			if rng.IntN(3) == 0 {
				c.HookedPlayer = int32(rng.IntN(MaxClients))
			}
		}
		for tick := range 30 {
			for id, c := range &wc.Characters {
				if c == nil {
					continue
				}
				if !cmp(wc, id, "tickPlayers", (*CharacterCore).tickPlayers, (*CharacterCore).tickPlayersFull) ||
					!cmp(wc, id, "Move", (*CharacterCore).Move, (*CharacterCore).moveFull) {
					t.Fatalf("round %d tick %d", round, tick)
				}
				if c.Vel.X == c.Vel.X {
					hits++
				}
			}
			for _, c := range &wc.Characters {
				if c != nil {
					c.Input = CoreInput{Direction: int32(rng.IntN(3)) - 1, TargetX: int32(rng.IntN(200)) - 100, TargetY: -50,
						Jump: int32(rng.IntN(2)), Hook: int32(rng.IntN(2))}
				}
			}
			step(wc)
		}
	}
	if hits == 0 {
		t.Fatal("no core compared")
	}
}
