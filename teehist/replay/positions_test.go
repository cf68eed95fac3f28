package replay

import (
	"math/rand/v2"
	"testing"

	"twserver/world"
	"twserver/world/tuning"
	"twserver/world/twmap"
	"twserver/world/vmath"
)

// TestPositionsExact checks the dead-reckoning mirror against the world's
// own re-basing: when the world re-sends a character core only because 3 s
// passed (its reckoning still matched), the core it sends is the real
// position at that tick, and the mirror, advanced from the previous base,
// must have predicted exactly that position.
func TestPositionsExact(t *testing.T) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 77)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	for cid := range n {
		if err := w.AddPlayer(cid, world.PlayerInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var p Positions
	var prev [n]world.NetCore
	timerRebases, matched := 0, 0
	for range 9000 {
		for cid := range n {
			// long stretches of steady input so that reckoning holds for 3 s
			if rng.IntN(300) == 0 {
				w.SetInput(cid, world.Input{Direction: int32(rng.IntN(3) - 1), TargetX: 1, TargetY: 1})
			}
		}
		w.Tick()
		w.DrainEvents(func(world.Event) {})
		p.Update(w)
		for cid := range n {
			_, _, ok := p.Get(cid)
			it := p.items[cid]
			old := prev[cid]
			prev[cid] = it
			if !ok || it.Tick == 0 || old.Tick == 0 || it.Tick != w.CurrentTick() || it.Tick-old.Tick != 151 {
				continue
			}
			// re-based by the 3 s timer: the new core is the real one, and
			// advancing the old base 151 ticks must give its position
			timerRebases++
			wc := world.WorldCore{Tuning: tuning.Default()}
			var c world.CharacterCore
			c.Init(&wc, w.Collision())
			c.Reset()
			c.Read(&old)
			for range 151 {
				c.Tick(false)
				c.Move()
				c.Quantize()
			}
			if x, y := vmath.RoundToInt(c.Pos.X), vmath.RoundToInt(c.Pos.Y); x != it.X || y != it.Y {
				t.Errorf("tick %d cid %d: predicted (%d,%d), real (%d,%d)", it.Tick, cid, x, y, it.X, it.Y)
			} else {
				matched++
			}
		}
		if w.CurrentTick()%2 == 0 {
			w.PostSnap()
		}
	}
	if timerRebases < 20 {
		t.Fatalf("only %d timer re-bases seen", timerRebases)
	}
	t.Logf("%d timer re-bases, %d predicted exactly", timerRebases, matched)
}
