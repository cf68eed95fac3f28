package world

import (
	"twserver/world/collision"
	"twserver/world/vmath"
)

// Pickup and flag constants.
const (
	pickupPhysSize     = 14
	pickupRespawnTime  = 15 // seconds, every pickup but ninja
	ninjaRespawnTime   = 90 // seconds
	ninjaSpawnDelay    = 90 // seconds before the first ninja appears
	flagPhysSize       = 14
	flagReturnTime     = 30 // seconds a dropped flag lies before it returns
	pickupSearchRadius = 20
)

// Pickup is a health, armor, weapon or ninja pickup (CPickup).
type Pickup struct {
	id        int
	typ       int
	pos       vmath.Vec2
	spawnTick int32 // -1 = present
}

func (p *Pickup) init(w *World, typ int, pos vmath.Vec2) {
	p.id = w.ids.alloc()
	p.typ = typ
	p.pos = pos
	p.reset(w)
}

func (p *Pickup) reset(w *World) {
	if p.typ == PickupNinja {
		p.spawnTick = w.tick + tickSpeed*ninjaSpawnDelay
	} else {
		p.spawnTick = -1
	}
}

// tick is CPickup::Tick.
func (p *Pickup) tick(w *World) {
	if p.spawnTick > 0 {
		if w.tick > p.spawnTick {
			p.spawnTick = -1
			if p.typ == PickupGrenade || p.typ == PickupShotgun || p.typ == PickupLaser {
				w.createSound(p.pos, SoundWeaponSpawn, maskAll)
			}
		} else {
			return
		}
	}
	c := w.closestChar(p.pos, pickupSearchRadius)
	if c == nil || !c.alive {
		return
	}
	picked := false
	switch p.typ {
	case PickupHealth:
		if c.increaseHealth(1) {
			picked = true
			w.createSound(p.pos, SoundPickupHealth, maskAll)
		}
	case PickupArmor:
		if c.increaseArmor(1) {
			picked = true
			w.createSound(p.pos, SoundPickupArmor, maskAll)
		}
	case PickupGrenade, PickupShotgun, PickupLaser:
		wp, snd := WeaponGrenade, SoundPickupGrenade
		if p.typ == PickupShotgun {
			wp, snd = WeaponShotgun, SoundPickupShotgun
		} else if p.typ == PickupLaser {
			wp, snd = WeaponLaser, SoundPickupShotgun
		}
		if c.giveWeapon(wp, maxAmmo) {
			picked = true
			w.createSound(p.pos, snd, maskAll)
			w.emit(EvWeaponPickup, c.p.cid, int32(wp))
		}
	case PickupNinja:
		picked = true
		c.giveNinja()
		for i := len(w.chars) - 1; i >= 0; i-- {
			if o := w.chars[i]; o.inWorld && o != c {
				o.setEmote(EmoteSurprise, w.tick+tickSpeed)
			}
		}
		c.setEmote(EmoteAngry, w.tick+1200*tickSpeed/1000)
	}
	if picked {
		w.emit(EvPickup, -1, int32(c.p.cid), int32(p.typ))
		rt := int32(pickupRespawnTime)
		if p.typ == PickupNinja {
			rt = ninjaRespawnTime
		}
		p.spawnTick = w.tick + tickSpeed*rt
	}
}

func (p *Pickup) snap(w *World, viewer int, b SnapBuilder) error {
	if p.spawnTick != -1 || w.networkClipped(viewer, p.pos) {
		return nil
	}
	d, err := b.NewItem(ObjPickup, uint16(p.id), SizePickup)
	if err != nil {
		return err
	}
	d[0] = int32(p.pos.X)
	d[1] = int32(p.pos.Y)
	d[2] = int32(p.typ)
	return nil
}

// Flag is a CTF flag (CFlag).
type Flag struct {
	id       int
	team     int
	stand    vmath.Vec2
	pos      vmath.Vec2
	vel      vmath.Vec2
	atStand  bool
	carrier  *Character
	grabTick int32
	dropTick int32
}

func (f *Flag) init(w *World, team int, stand vmath.Vec2) {
	f.id = w.ids.alloc()
	f.team = team
	f.stand = stand
	f.reset()
}

func (f *Flag) reset() {
	f.carrier = nil
	f.atStand = true
	f.pos = f.stand
	f.vel = vmath.Vec2{}
	f.grabTick = 0
}

func (f *Flag) grab(w *World, c *Character) {
	f.carrier = c
	if f.atStand {
		f.grabTick = w.tick
	}
	f.atStand = false
}

func (f *Flag) drop(w *World) {
	f.carrier = nil
	f.vel = vmath.Vec2{}
	f.dropTick = w.tick
}

// tickDefered is CFlag::TickDefered.
func (f *Flag) tickDefered(w *World) {
	if f.carrier != nil {
		f.pos = f.carrier.pos
		return
	}
	if w.col.GetCollisionAt(f.pos.X, f.pos.Y)&collision.FlagDeath != 0 || w.col.Clipped(f.pos) {
		f.reset()
		w.emit(EvFlagReturn, -1, -1, int32(f.team))
		w.sendGameMsg(GameMsgCTFReturn, -1)
	}
	if !f.atStand {
		if w.tick > f.dropTick+tickSpeed*flagReturnTime {
			f.reset()
			w.emit(EvFlagReturn, -1, -1, int32(f.team))
			w.sendGameMsg(GameMsgCTFReturn, -1)
		} else {
			f.vel.Y += w.core.Tuning.Gravity.Float()
			f.pos, f.vel, _ = w.col.MoveBox(f.pos, f.vel, vmath.V(flagPhysSize, flagPhysSize), 0.5)
		}
	}
}

func (f *Flag) snap(w *World, viewer int, b SnapBuilder) error {
	if w.networkClipped(viewer, f.pos) {
		return nil
	}
	d, err := b.NewItem(ObjFlag, uint16(f.team), SizeFlag)
	if err != nil {
		return err
	}
	d[0] = int32(f.pos.X)
	d[1] = int32(f.pos.Y)
	d[2] = int32(f.team)
	return nil
}
