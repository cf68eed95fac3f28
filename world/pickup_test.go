package world

import (
	"slices"
	"testing"

	"twserver/world/vmath"
)

var pickupRows = []string{
	"########################",
	"#......................#",
	"#......................#",
	"#......................#",
	"#......................#",
	"#......................#",
	"#......................#",
	"#......................#",
	"#......................#",
	"#S..H..A..g..n..L..N...#",
	"########################",
}

func findPickup(t *testing.T, w *World, typ int) *Pickup {
	t.Helper()
	for i := range w.pickups {
		if w.pickups[i].typ == typ {
			return &w.pickups[i]
		}
	}
	t.Fatalf("no pickup of type %d", typ)
	return nil
}

func TestPickups(t *testing.T) {
	tests := []struct {
		name    string
		typ     int
		prepare func(c *Character)
		check   func(t *testing.T, c *Character)
		respawn int32 // seconds
		weapon  int   // expected Sv_WeaponPickup weapon, -1 none
		sound   int
	}{
		{"health", PickupHealth, func(c *Character) { c.health = 5 },
			func(t *testing.T, c *Character) {
				if c.health != 6 {
					t.Errorf("health %d, want 6", c.health)
				}
			}, 15, -1, SoundPickupHealth},
		{"armor", PickupArmor, func(c *Character) {},
			func(t *testing.T, c *Character) {
				if c.armor != 1 {
					t.Errorf("armor %d, want 1", c.armor)
				}
			}, 15, -1, SoundPickupArmor},
		{"shotgun", PickupShotgun, func(c *Character) {},
			func(t *testing.T, c *Character) {
				if !c.weapons[WeaponShotgun].got || c.weapons[WeaponShotgun].ammo != 10 {
					t.Errorf("shotgun %+v", c.weapons[WeaponShotgun])
				}
			}, 15, WeaponShotgun, SoundPickupShotgun},
		{"grenade", PickupGrenade, func(c *Character) {},
			func(t *testing.T, c *Character) {
				if !c.weapons[WeaponGrenade].got || c.weapons[WeaponGrenade].ammo != 10 {
					t.Errorf("grenade %+v", c.weapons[WeaponGrenade])
				}
			}, 15, WeaponGrenade, SoundPickupGrenade},
		{"laser refill", PickupLaser, func(c *Character) { c.giveWeapon(WeaponLaser, 3) },
			func(t *testing.T, c *Character) {
				if c.weapons[WeaponLaser].ammo != 10 {
					t.Errorf("laser %+v", c.weapons[WeaponLaser])
				}
			}, 15, WeaponLaser, SoundPickupShotgun},
		{"ninja", PickupNinja, func(c *Character) {},
			func(t *testing.T, c *Character) {
				if c.active != WeaponNinja || c.emote != EmoteAngry {
					t.Errorf("active %d emote %d", c.active, c.emote)
				}
			}, 90, -1, SoundPickupNinja},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newTestWorld(t, DefaultConfig(), pickupRows...)
			c := addChars(t, w, 1)[0]
			pk := findPickup(t, w, tc.typ)
			if tc.typ == PickupNinja {
				if pk.spawnTick != tickSpeed*ninjaSpawnDelay {
					t.Fatalf("ninja spawn tick %d", pk.spawnTick)
				}
				for w.tick <= pk.spawnTick {
					w.Tick()
				}
				if pk.spawnTick != -1 {
					t.Fatal("ninja did not appear")
				}
			}
			tc.prepare(c)
			drain(w)
			w.PostSnap()
			place(c, vmath.V(pk.pos.X, 305))
			w.Tick()
			tc.check(t, c)
			if want := w.tick + tickSpeed*tc.respawn; pk.spawnTick != want {
				t.Errorf("spawn tick %d, want %d", pk.spawnTick, want)
			}
			var b fakeBuilder
			if err := w.Snap(0, &b); err != nil {
				t.Fatal(err)
			}
			if b.find(ObjPickup, uint16(pk.id)) != nil {
				t.Error("taken pickup still in the snapshot")
			}
			sound := false
			for i := 0; i < w.events.n; i++ {
				e := w.events.events[i]
				if e.typ == EventSoundWorld && e.data[2] == int32(tc.sound) {
					sound = true
				}
			}
			if !sound {
				t.Errorf("no pickup sound %d", tc.sound)
			}
			evs := drain(w)
			if !slices.Contains(evs, Event{Kind: EvPickup, To: -1, Args: [5]int32{0, int32(tc.typ)}}) {
				t.Errorf("no pickup event for type %d: %+v", tc.typ, evs)
			}
			gotWeapon := -1
			for _, e := range evs {
				if e.Kind == EvWeaponPickup {
					if e.To != 0 {
						t.Errorf("weapon pickup sent to %d", e.To)
					}
					gotWeapon = int(e.Args[0])
				}
			}
			if gotWeapon != tc.weapon {
				t.Errorf("weapon pickup message %d, want %d", gotWeapon, tc.weapon)
			}
			// comes back after the respawn time
			place(c, groundPos(1))
			for w.tick <= pk.spawnTick {
				w.Tick()
			}
			if pk.spawnTick != -1 {
				t.Error("pickup did not respawn")
			}
		})
	}
}

func TestPickupRefused(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), pickupRows...)
	c := addChars(t, w, 1)[0]
	pk := findPickup(t, w, PickupHealth)
	place(c, vmath.V(pk.pos.X, 305))
	w.Tick()
	if pk.spawnTick != -1 || c.health != 10 {
		t.Fatalf("full-health character took health: spawn %d health %d", pk.spawnTick, c.health)
	}
	// out of reach (40 units)
	c.health = 3
	place(c, vmath.V(pk.pos.X+41, 305))
	w.Tick()
	if pk.spawnTick != -1 {
		t.Fatal("picked up from 41 units")
	}
}

func TestPowerupsOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Powerups = false
	w := newTestWorld(t, cfg, pickupRows...)
	for _, p := range w.pickups {
		if p.typ == PickupNinja {
			t.Fatal("ninja pickup with sv_powerups 0")
		}
	}
	if len(w.pickups) != 5 {
		t.Fatalf("pickups %d, want 5", len(w.pickups))
	}
}
