package world

import (
	"testing"

	"twserver/snap"
	"twserver/world/vmath"
)

var wideRows = []string{
	"##################################################################################",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#................................................................................#",
	"#.S..............................................................................#",
	"##################################################################################",
}

func TestSnapCharacterPrivateFields(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), wideRows...)
	cs := addChars(t, w, 3)
	place(cs[0], groundPos(5))
	place(cs[1], groundPos(8))
	place(cs[2], groundPos(70)) // 2080 units away
	tickN(w, 2)
	var b fakeBuilder
	if err := w.Snap(0, &b); err != nil {
		t.Fatal(err)
	}
	own := b.find(ObjCharacter, 0)
	other := b.find(ObjCharacter, 1)
	if own == nil || other == nil {
		t.Fatal("missing characters")
	}
	if own[CharHealth] != 10 || own[CharAmmoCount] != 10 || own[CharWeapon] != WeaponGun {
		t.Fatalf("own character %v", own)
	}
	if other[CharHealth] != 0 || other[CharArmor] != 0 || other[CharAmmoCount] != 0 {
		t.Fatalf("other character leaks private fields %v", other)
	}
	if b.find(ObjCharacter, 2) != nil {
		t.Fatal("far character not clipped")
	}
	for _, it := range b.items {
		if len(it.data) != ObjSizes[it.typ] {
			t.Fatalf("type %d size %d, want %d", it.typ, len(it.data), ObjSizes[it.typ])
		}
	}
	if b.count(ObjPlayerInfo) != 3 || b.find(ObjGameData, 0) == nil {
		t.Fatal("missing player infos or game data")
	}
	// the demo view sees everything, including private fields and demo objects
	var d fakeBuilder
	if err := w.Snap(-1, &d); err != nil {
		t.Fatal(err)
	}
	if c := d.find(ObjCharacter, 2); c == nil || c[CharHealth] != 10 {
		t.Fatal("demo snapshot lacks the far character's private fields")
	}
	if d.count(ObjDeClientInfo) != 3 || d.find(ObjDeGameInfo, 0) == nil {
		t.Fatal("demo snapshot lacks demo objects")
	}
}

func TestSnapSpectator(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), wideRows...)
	cs := addChars(t, w, 2)
	place(cs[0], groundPos(5))
	if err := w.AddPlayer(5, PlayerInfo{Spectator: true}); err != nil {
		t.Fatal(err)
	}
	// free view camera follows the input target
	in := Input{TargetX: 400, TargetY: 200}
	w.DirectInput(5, in)
	tickN(w, 2)
	var b fakeBuilder
	if err := w.Snap(5, &b); err != nil {
		t.Fatal(err)
	}
	si := b.find(ObjSpectatorInfo, 5)
	if si == nil || si[0] != SpecFreeview || si[2] != 400 || si[3] != 200 {
		t.Fatalf("spectator info %v", si)
	}
	if b.find(ObjSpectatorInfo, 0) != nil {
		t.Fatal("spectator info of another player")
	}
	// follow player 0: its private fields become visible
	tickN(w, tickSpeed)
	if !w.SetSpectatorMode(5, SpecPlayer, 0) {
		t.Fatal("follow refused")
	}
	tickN(w, 1)
	b = fakeBuilder{}
	w.Snap(5, &b)
	if c := b.find(ObjCharacter, 0); c == nil || c[CharHealth] != 10 {
		t.Fatalf("followed character %v", c)
	}
	b = fakeBuilder{}
	w.Snap(0, &b)
	if pi := b.find(ObjPlayerInfo, 5); pi == nil || pi[0]&PlayerFlagWatching == 0 {
		t.Fatalf("watching flag missing: %v", pi)
	}
	tickN(w, tickSpeed)
	if w.SetSpectatorMode(5, SpecPlayer, 5) {
		t.Fatal("following oneself accepted")
	}
}

func TestSnapEvents(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), wideRows...)
	cs := addChars(t, w, 3)
	w.PostSnap()
	place(cs[0], groundPos(5))
	place(cs[1], groundPos(6))
	place(cs[2], groundPos(70))
	tickN(w, 2)
	w.PostSnap()
	cs[1].takeDamage(vmath.Vec2{}, vmath.V(1, 0), 2, 0, WeaponGun)
	var b fakeBuilder
	w.Snap(0, &b)
	if b.find(EventDamage, 0) == nil {
		t.Fatal("damage event missing or not id 0")
	}
	hit := false
	for _, it := range b.items {
		if it.typ == EventSoundWorld && it.data[2] == SoundHit {
			hit = true
		}
	}
	if !hit {
		t.Fatal("attacker does not hear the hit sound")
	}
	b = fakeBuilder{}
	w.Snap(1, &b)
	for _, it := range b.items {
		if it.typ == EventSoundWorld && it.data[2] == SoundHit {
			t.Fatal("victim hears the attacker's hit sound")
		}
	}
	b = fakeBuilder{}
	w.Snap(2, &b)
	if b.count(EventDamage) != 0 {
		t.Fatal("event beyond 1500 units sent")
	}
	w.PostSnap()
	b = fakeBuilder{}
	w.Snap(0, &b)
	if b.count(EventDamage) != 0 {
		t.Fatal("event survived PostSnap")
	}
}

func TestSnapRealBuilder(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameCTF
	w := newTestWorld(t, cfg, teamRows...)
	addChars(t, w, 4)
	var b snap.Builder
	b.Sizes = snap.Sizes7
	var s snap.Snapshot
	for v := -1; v < 4; v++ {
		b.Reset()
		if err := w.Snap(v, &b); err != nil {
			t.Fatalf("viewer %d: %v", v, err)
		}
		b.Finish(&s)
		if s.NumItems() < 4+4+2 {
			t.Fatalf("viewer %d: %d items", v, s.NumItems())
		}
	}
}

func TestDecodeInput(t *testing.T) {
	good := []int32{1, 100, -50, 1, 3, 0, PlayerFlagScoreboard, 2, 4, 0}
	in, err := DecodeInput(good)
	if err != nil || in.Direction != 1 || in.TargetY != -50 || in.WantedWeapon != 2 {
		t.Fatalf("decode %+v %v", in, err)
	}
	var back [SizePlayerInput]int32
	in.Encode(back[:])
	for i := range back {
		if back[i] != good[i] {
			t.Fatalf("round trip %v != %v", back, good)
		}
	}
	bad := [][]int32{
		good[:9],
		{2, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 2, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, -1, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 6, 0, 0},
	}
	for i, b := range bad {
		if _, err := DecodeInput(b); err == nil {
			t.Errorf("bad input %d accepted", i)
		}
	}
}

func FuzzDecodeInput(f *testing.F) {
	f.Add(int32(1), int32(100), int32(-50), int32(1), int32(3), int32(0), int32(4), int32(2), int32(4), int32(0))
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h, i, j, k int32) {
		src := []int32{a, b, c, d, e, g, h, i, j, k}
		in, err := DecodeInput(src)
		if err != nil {
			return
		}
		var back [SizePlayerInput]int32
		in.Encode(back[:])
		for n := range back {
			if back[n] != src[n] {
				t.Fatalf("round trip %v != %v", back, src)
			}
		}
		if !in.Valid() {
			t.Fatal("decoded input not valid")
		}
	})
}

// refusingBuilder refuses items of one type.
type refusingBuilder struct {
	fakeBuilder
	refuse uint16
}

func (b *refusingBuilder) NewItem(typ, id uint16, size int) ([]int32, error) {
	if typ == b.refuse {
		return nil, errDup
	}
	return b.fakeBuilder.NewItem(typ, id, size)
}

func TestSnapContinuesAfterRefusedItem(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	addChars(t, w, 2)
	b := &refusingBuilder{refuse: ObjCharacter}
	if err := w.Snap(0, b); err == nil {
		t.Fatal("refused item not reported")
	}
	if b.count(ObjPlayerInfo) != 2 || b.find(ObjGameData, 0) == nil {
		t.Fatal("items after the refused one are missing")
	}
}
