package world

import (
	"testing"

	"twserver/world/vmath"
)

// duel returns a DM world with two characters standing 32 units apart on
// the floor, shooter (0) left of the target (1), the match running.
func duel(t *testing.T) (*World, *Character, *Character) {
	t.Helper()
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	cs := addChars(t, w, 2)
	place(cs[0], groundPos(8))
	place(cs[1], groundPos(9))
	for i := 0; i < 5; i++ { // settle on the ground
		w.Tick()
	}
	drain(w)
	return w, cs[0], cs[1]
}

func TestWeapons(t *testing.T) {
	tests := []struct {
		name       string
		weapon     int
		ticks      int // ticks to run after firing
		wantHealth int // target
		wantSelf   int // shooter health
		wantReload int // shooter reload timer right after firing
		wantAmmo   int // shooter ammo of the weapon right after firing
		wantProjs  int // projectiles right after firing
	}{
		{"hammer", WeaponHammer, 1, 7, 10, tickSpeed / 3, -1, 0},
		{"gun", WeaponGun, 2, 9, 10, 6, 9, 1},
		{"shotgun", WeaponShotgun, 2, 5, 10, 25, 9, 5},
		{"grenade", WeaponGrenade, 2, 4, 7, 25, 9, 1},
		{"laser", WeaponLaser, 1, 5, 10, 40, 9, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, a, b := duel(t)
			if tc.weapon != WeaponHammer && tc.weapon != WeaponGun {
				a.giveWeapon(tc.weapon, maxAmmo)
			}
			a.setWeapon(tc.weapon)
			fire(w, 0, aimInput(100, 0))
			if a.reload != tc.wantReload {
				t.Errorf("reload = %d, want %d", a.reload, tc.wantReload)
			}
			if got := a.weapons[tc.weapon].ammo; got != tc.wantAmmo {
				t.Errorf("ammo = %d, want %d", got, tc.wantAmmo)
			}
			if len(w.projs) != tc.wantProjs {
				t.Errorf("projectiles = %d, want %d", len(w.projs), tc.wantProjs)
			}
			if a.attackTick != w.tick {
				t.Errorf("attack tick = %d, want %d", a.attackTick, w.tick)
			}
			for i := 0; i < tc.ticks; i++ {
				w.Tick()
			}
			if b.health != tc.wantHealth {
				t.Errorf("target health = %d, want %d", b.health, tc.wantHealth)
			}
			if a.health != tc.wantSelf {
				t.Errorf("shooter health = %d, want %d", a.health, tc.wantSelf)
			}
		})
	}
}

func TestHammerKnockback(t *testing.T) {
	w, a, b := duel(t)
	a.setWeapon(WeaponHammer)
	before := b.core.Vel
	fire(w, 0, aimInput(100, 0))
	// force = (0,-1) + normalize((1,0) + (0,-1.1)) * 10
	want := before.Add(vmath.V(0, -1).Add(vmath.Normalize(vmath.V(1, -1.1)).Scale(10)))
	if b.core.Vel != want {
		t.Fatalf("target velocity %+v, want %+v", b.core.Vel, want)
	}
	if countSnapEvents(w, EventHammerHit) != 1 || countSnapEvents(w, EventDamage) != 1 {
		t.Fatalf("want one hammer hit and one damage event")
	}
}

func TestGrenadeKnockbackAndSelfDamage(t *testing.T) {
	w, a, b := duel(t)
	a.giveWeapon(WeaponGrenade, maxAmmo)
	a.setWeapon(WeaponGrenade)
	fire(w, 0, aimInput(100, 0))
	w.Tick()
	if countSnapEvents(w, EventExplosion) != 1 {
		t.Fatal("no explosion event")
	}
	if b.core.Vel.X <= 0 || a.core.Vel.X >= 0 {
		t.Fatalf("explosion should push target right and shooter left: %+v %+v", b.core.Vel, a.core.Vel)
	}
}

func TestArmorAbsorbs(t *testing.T) {
	tests := []struct {
		armor, dmg            int
		wantHealth, wantArmor int
	}{
		{0, 3, 7, 0},
		{5, 1, 10, 4},
		{5, 3, 9, 3},
		{1, 6, 5, 0},
		{10, 9, 9, 2},
	}
	for _, tc := range tests {
		w, _, b := duel(t)
		b.armor = tc.armor
		b.takeDamage(vmath.Vec2{}, vmath.V(1, 0), tc.dmg, 0, WeaponGun)
		if b.health != tc.wantHealth || b.armor != tc.wantArmor {
			t.Errorf("armor %d dmg %d: health %d armor %d, want %d %d", tc.armor, tc.dmg, b.health, b.armor, tc.wantHealth, tc.wantArmor)
		}
		_ = w
	}
}

func TestNoAmmoClick(t *testing.T) {
	w, a, _ := duel(t)
	for w.tick < tickSpeed { // the first no-ammo sound needs last_noammo(-1)+50 <= tick
		w.Tick()
	}
	a.weapons[WeaponGun].ammo = 0
	fire(w, 0, aimInput(100, 0))
	if a.reload != 6 || len(w.projs) != 0 {
		t.Fatalf("reload %d projectiles %d", a.reload, len(w.projs))
	}
	if countSnapEvents(w, EventSoundWorld) == 0 {
		t.Fatal("no no-ammo sound")
	}
}

func TestGunAmmoRegen(t *testing.T) {
	w, a, _ := duel(t)
	a.weapons[WeaponGun].ammo = 5
	for i := 0; i < 27; i++ {
		w.Tick()
	}
	if got := a.weapons[WeaponGun].ammo; got != 6 {
		t.Fatalf("ammo after 27 ticks = %d, want 6", got)
	}
}

func TestFullAutoHold(t *testing.T) {
	w, a, _ := duel(t)
	a.giveWeapon(WeaponShotgun, maxAmmo)
	a.setWeapon(WeaponShotgun)
	in := aimInput(-100, 0) // away from the target
	fire(w, 0, in)
	for i := 0; i < 60; i++ { // keep holding
		w.Tick()
	}
	// fired at 0, then every 25 ticks while held: 3 shots
	if got := a.weapons[WeaponShotgun].ammo; got != 7 {
		t.Fatalf("shotgun ammo after holding 60 ticks = %d, want 7", got)
	}
	a.setWeapon(WeaponGun)
	a.reload = 0
	ammo := a.weapons[WeaponGun].ammo
	for i := 0; i < 30; i++ {
		w.Tick()
	}
	if a.weapons[WeaponGun].ammo != ammo {
		t.Fatal("gun must not auto-fire while held")
	}
}

func TestNinja(t *testing.T) {
	w, a, b := duel(t)
	place(b, groundPos(12))
	a.giveNinja()
	if a.active != WeaponNinja {
		t.Fatal("ninja not active")
	}
	fire(w, 0, aimInput(100, 0))
	if a.reload != 40 || a.ninja.moveTime != ninjaMoveTime {
		t.Fatalf("reload %d movetime %d", a.reload, a.ninja.moveTime)
	}
	for i := 0; i < 6; i++ {
		w.Tick()
	}
	if b.health != 1 {
		t.Fatalf("target health %d, want 1", b.health)
	}
	// switching is blocked while ninja is owned
	a.queued = WeaponGun
	a.reload = 0
	a.doWeaponSwitch()
	if a.active != WeaponNinja {
		t.Fatal("weapon switch while ninja")
	}
	for i := 0; i < ninjaDuration+2; i++ {
		w.Tick()
	}
	if a.active == WeaponNinja || a.weapons[WeaponNinja].got {
		t.Fatal("ninja did not expire")
	}
}

func TestWeaponSwitch(t *testing.T) {
	w, a, _ := duel(t)
	a.giveWeapon(WeaponLaser, maxAmmo)
	a.numInputs = 3
	// next weapon once from gun: shotgun, grenade are not owned -> laser
	in := aimInput(1, 0)
	in.NextWeapon = 2 // press + release
	w.DirectInput(0, in)
	if a.active != WeaponLaser {
		t.Fatalf("next weapon: active %d, want laser", a.active)
	}
	in.PrevWeapon = 1 // press: laser -> gun
	w.DirectInput(0, in)
	if a.active != WeaponGun {
		t.Fatalf("prev weapon: active %d, want gun", a.active)
	}
	// wanted weapon comes from the predicted input
	in.WantedWeapon = WeaponHammer + 1
	w.SetInput(0, in)
	w.Tick()
	w.DirectInput(0, in)
	if a.active != WeaponHammer {
		t.Fatalf("wanted weapon: active %d, want hammer", a.active)
	}
}

func TestCountPresses(t *testing.T) {
	tests := []struct {
		prev, cur int32
		want      int
	}{
		{0, 0, 0}, {0, 1, 1}, {0, 2, 1}, {1, 2, 0}, {0, 5, 3}, {63, 0, 0}, {63, 1, 1}, {62, 1, 2},
	}
	for _, tc := range tests {
		if got := countPresses(tc.prev, tc.cur); got != tc.want {
			t.Errorf("countPresses(%d,%d) = %d, want %d", tc.prev, tc.cur, got, tc.want)
		}
	}
}

func TestSelfKillAndDeathTile(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(),
		"##########",
		"#........#",
		"#.S......#",
		"#........#",
		"#xxxxxxxx#",
		"##########")
	cs := addChars(t, w, 2)
	drain(w)
	// fall into the death tiles
	place(cs[1], tileCenter(5, 3))
	for i := 0; i < 20 && cs[1].alive; i++ {
		w.Tick()
	}
	if cs[1].alive {
		t.Fatal("character survived the death tile")
	}
	if w.Score(1) != -1 {
		t.Fatalf("score after death tile %d, want -1", w.Score(1))
	}
	evs := drain(w)
	if len(evs) != 1 || evs[0].Kind != EvKillMsg || evs[0].Args != [5]int32{1, 1, WeaponWorld, 0, 0} {
		t.Fatalf("kill events %+v", evs)
	}
	w.Tick()
	w.Kill(0)
	if w.Alive(0) || w.Score(0) != -1 {
		t.Fatalf("self kill: alive %v score %d", w.Alive(0), w.Score(0))
	}
	evs = drain(w)
	if len(evs) != 1 || evs[0].Args[2] != WeaponSelf {
		t.Fatalf("self kill events %+v", evs)
	}
	// self kill respawns after 3 s, not 0.5 s
	for i := 0; i < 100; i++ {
		w.Tick()
	}
	if w.Alive(0) {
		t.Fatal("respawned before 3 s after self kill")
	}
	for i := 0; i < 60; i++ {
		w.Tick()
	}
	if !w.Alive(0) {
		t.Fatal("not respawned 3 s after self kill")
	}
}

// TestDeadTeeFiresUntilPlayerTick: a character killed between ticks (here
// by a hammer in another client's direct input) stays its player's
// character until the next player tick, and the reference passes direct
// input to it without an alive check, so a fire press in that window
// still shoots (from where it died).
func TestDeadTeeFiresUntilPlayerTick(t *testing.T) {
	w, a, b := duel(t)
	a.setWeapon(WeaponHammer)
	b.health, b.armor = 1, 0
	fire(w, 0, aimInput(100, 0))
	if w.Alive(1) {
		t.Fatal("the hammer did not kill")
	}
	b.numInputs = 3
	in := aimInput(100, 0) // away from the killer
	in.Fire = (b.latest.Fire | 1) + 2
	w.DirectInput(1, in)
	if len(w.projs) != 1 || w.projs[0].owner != 1 || countSnapEvents(w, EventSoundWorld) == 0 {
		t.Fatalf("dead tee did not fire: %d projectiles", len(w.projs))
	}
	w.Tick()
	if w.players[1].char != nil || len(w.projs) != 1 {
		t.Fatalf("after the tick: character %v, %d projectiles", w.players[1].char != nil, len(w.projs))
	}
}
