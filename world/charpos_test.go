package world

import (
	"testing"

	"twserver/world/tuning"
	"twserver/world/vmath"
)

// TestCharacterPos checks the position accessor against what a client
// reconstructs from the Character snapshot object (its core evolved from
// the object's tick to the current tick, as TestDeadReckoning does) while
// the tee walks back and forth and jumps, and its answers for clients
// without a live character.
func TestCharacterPos(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	addChars(t, w, 1)
	if err := w.AddPlayer(1, PlayerInfo{Spectator: true}); err != nil {
		t.Fatal(err)
	}
	var empty WorldCore
	empty.Tuning = tuning.Default()
	var minX, maxX, minY float32 = 1e9, -1e9, 1e9
	evolved := 0
	for k := 0; k < 120; k++ {
		in := Input{Direction: 1, TargetX: 100}
		if k%40 >= 20 {
			in.Direction = -1
		}
		in.Jump = int32(k % 30 / 29) // a jump every 30 ticks
		w.SetInput(0, in)
		w.Tick()
		pos, ok := w.CharacterPos(0)
		if !ok {
			t.Fatalf("tick %d: character lost", w.tick)
		}
		minX, maxX, minY = min(minX, pos.X), max(maxX, pos.X), min(minY, pos.Y)
		var b fakeBuilder
		if err := w.Snap(-1, &b); err != nil {
			t.Fatal(err)
		}
		d := b.find(ObjCharacter, 0)
		if d == nil {
			t.Fatalf("tick %d: no Character object", w.tick)
		}
		var sent NetCore
		sent.Get(d)
		var core CharacterCore
		core.Init(&empty, w.col)
		core.Reset()
		core.Read(&sent)
		for tick := sent.Tick; tick < w.tick; tick++ {
			core.Tick(false)
			core.Move()
			core.Quantize()
			evolved++
		}
		if core.Pos != pos {
			t.Fatalf("tick %d: CharacterPos %v, reconstructed from the tick %d core %v", w.tick, pos, sent.Tick, core.Pos)
		}
		w.PostSnap()
	}
	if maxX-minX < 100 || minY > 300 || evolved == 0 {
		t.Fatalf("x in [%v, %v], highest y %v, %d ticks evolved: the tee did not walk and jump", minX, maxX, minY, evolved)
	}

	for _, tc := range []struct {
		name string
		cid  int
	}{
		{"spectator", 1},
		{"no player", 2},
		{"negative id", -1},
		{"id beyond MaxClients", MaxClients},
		{"huge id", 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if pos, ok := w.CharacterPos(tc.cid); ok || pos != (vmath.Vec2{}) {
				t.Fatalf("CharacterPos(%d) = %v, %v; want zero, false", tc.cid, pos, ok)
			}
		})
	}
	w.Kill(0)
	if pos, ok := w.CharacterPos(0); ok {
		t.Fatalf("killed character still at %v", pos)
	}
}
