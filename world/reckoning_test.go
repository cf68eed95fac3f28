package world

import (
	"testing"
	"twserver/world/tuning"
)

// TestDeadReckoning checks that every Character object the world sends can
// be evolved the way a 0.7.5 client does (Tick(false), Move, Quantize in an
// empty default world from the object's tick to the snapshot tick) into the
// character's true current core.
func TestDeadReckoning(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), arenaRows...)
	var players [8]scriptPlayer
	for i := range players {
		players[i].r.s = uint32(0x1234567 * (i + 1))
		w.AddPlayer(i, PlayerInfo{})
	}
	var empty WorldCore
	empty.Tuning = tuning.Default()
	evolved, checked := 0, 0
	for k := 0; k < 1500; k++ {
		next := w.tick + 1
		for cid := range players {
			in := players[cid].step(w, cid, next)
			w.DirectInput(cid, in)
			w.SetInput(cid, in)
		}
		w.Tick()
		if w.tick%2 != 0 {
			continue
		}
		var b fakeBuilder
		if err := w.Snap(-1, &b); err != nil {
			t.Fatal(err)
		}
		for _, it := range b.items {
			if it.typ != ObjCharacter {
				continue
			}
			c := w.playerChar(int(it.id))
			var sent, want NetCore
			sent.Get(it.data)
			c.core.Write(&want)
			var core CharacterCore
			core.Init(&empty, w.col)
			core.Reset()
			core.Read(&sent)
			for tick := sent.Tick; sent.Tick != 0 && tick < w.tick; tick++ {
				core.Tick(false)
				core.Move()
				core.Quantize()
			}
			var got NetCore
			core.Write(&got)
			got.Direction, want.Direction = 0, 0 // the object carries the input direction
			if got != want {
				t.Fatalf("tick %d char %d: evolved from %d to %+v, true core %+v", w.tick, it.id, sent.Tick, got, want)
			}
			checked++
			if sent.Tick != 0 && sent.Tick != w.tick {
				evolved++
			}
		}
		w.PostSnap()
	}
	if checked < 1000 || evolved < checked/10 {
		t.Fatalf("checked %d characters, %d needed evolving", checked, evolved)
	}
	t.Logf("checked %d, evolved %d", checked, evolved)
}
