package world

import (
	"twserver/world/vmath"
)

// Weapon data (content.py): fire delays in ticks (ms*50/1000), maximum ammo,
// ammo regeneration time in ticks, damage.
var (
	weaponFireDelay = [NumWeapons]int{125 * tickSpeed / 1000, 125 * tickSpeed / 1000, 500 * tickSpeed / 1000,
		500 * tickSpeed / 1000, 800 * tickSpeed / 1000, 800 * tickSpeed / 1000}
	weaponAmmoRegen = [NumWeapons]int32{0, 500 * tickSpeed / 1000, 0, 0, 0, 0}
	weaponDamage    = [NumWeapons]int{3, 1, 1, 6, 5, 9}
)

// Weapon and character constants.
const (
	maxAmmo          = 10
	maxHealth        = 10
	maxArmor         = 10
	ninjaDuration    = 15000 * tickSpeed / 1000 // ticks
	ninjaMoveTime    = 200 * tickSpeed / 1000   // ticks
	ninjaVelocity    = 50
	ninjaMaxHits     = 10
	noAmmoReload     = 125 * tickSpeed / 1000
	respawnDelay     = tickSpeed / 2
	explosionRadius  = 135
	explosionInner   = 48
	explosionMaxForc = 12
)

var shotgunSpread = [5]float32{-0.185, -0.070, 0, 0.070, 0.185}

type weaponSlot struct {
	got        bool
	ammo       int
	regenStart int32
}

// Character is a live tee (the reference CCharacter). Characters are stored
// per client slot in the World and reused across spawns.
type Character struct {
	w       *World
	p       *Player
	alive   bool
	inWorld bool // in the world's character list
	snapID  int
	pos     vmath.Vec2

	core      CharacterCore
	reckCore  CharacterCore
	sendCore  CharacterCore
	reckTick  int32
	triggered int32

	health, armor int
	weapons       [NumWeapons]weaponSlot
	active        int
	last          int
	queued        int
	reload        int
	attackTick    int32
	emote         int
	emoteStop     int32
	lastAction    int32
	lastNoAmmo    int32
	numInputs     int

	input      Input
	latest     Input
	latestPrev Input

	numHit int
	hit    [ninjaMaxHits]*Character
	ninja  struct {
		actDir   vmath.Vec2
		actTick  int32
		moveTime int
		oldVel   float32
	}
}

// spawn is CCharacter::Spawn followed by the controller's spawn hook.
func (c *Character) spawn(p *Player, pos vmath.Vec2) {
	w := c.w
	*c = Character{w: w, p: p}
	c.snapID = w.ids.alloc()
	c.emoteStop = -1
	c.lastAction = -1
	c.lastNoAmmo = -1
	c.active = WeaponGun
	c.last = WeaponHammer
	c.queued = -1
	c.pos = pos
	c.core.Init(&w.core, w.col)
	c.core.Reset()
	c.core.HookedPlayer = -1
	c.core.Pos = pos
	w.core.Characters[p.cid] = &c.core
	c.reckCore.Init(&w.reckWorld, w.col)
	w.insertChar(c)
	c.alive = true
	// OnCharacterSpawn
	c.increaseHealth(10)
	c.giveWeapon(WeaponHammer, -1)
	c.giveWeapon(WeaponGun, 10)
	if w.ctrl.isSurvival() {
		for _, wa := range survivalWeapons {
			c.giveWeapon(wa[0], wa[1])
		}
		p.respawnDisabled = w.ctrl.startRespawnState()
	}
}

// freeChar releases the snapshot id of a deleted character.
func (w *World) freeChar(c *Character) {
	if c.snapID >= 0 {
		w.ids.free(c.snapID)
	}
	c.snapID = -1
	if c.inWorld {
		c.destroy()
	}
}

// destroy takes the character out of the world silently (world reset).
func (c *Character) destroy() {
	c.w.core.Characters[c.p.cid] = nil
	c.alive = false
	c.inWorld = false
}

func (c *Character) setWeapon(wp int) {
	if wp == c.active {
		return
	}
	c.last = c.active
	c.queued = -1
	c.active = wp
	c.w.createSound(c.pos, SoundWeaponSwitch, maskAll)
	if c.active < 0 || c.active >= NumWeapons {
		c.active = 0
	}
	c.weapons[c.active].regenStart = -1
}

func (c *Character) handleNinja() {
	if c.active != WeaponNinja {
		return
	}
	w := c.w
	if w.tick-c.ninja.actTick > ninjaDuration {
		c.weapons[WeaponNinja].got = false
		c.active = c.last
		if c.ninja.moveTime > 0 {
			c.core.Vel = c.ninja.actDir.Scale(c.ninja.oldVel)
		}
		c.setWeapon(c.active)
		return
	}
	c.setWeapon(WeaponNinja)
	c.ninja.moveTime--
	if c.ninja.moveTime == 0 {
		c.core.Vel = c.ninja.actDir.Scale(c.ninja.oldVel)
	}
	if c.ninja.moveTime > 0 {
		c.core.Vel = c.ninja.actDir.Scale(ninjaVelocity)
		oldPos := c.pos
		c.core.Pos, c.core.Vel, _ = w.col.MoveBox(c.core.Pos, c.core.Vel, vmath.V(PhysSize, PhysSize), 0)
		c.core.Vel = vmath.Vec2{}

		// The reference centres the search between two equal positions
		// (the entity position has not moved yet).
		dir := c.pos.Sub(oldPos)
		center := oldPos.Add(dir.Scale(0.5))
		radius := float32(PhysSize * 2)
		var buf [MaxClients]*Character
		for _, t := range w.findChars(buf[:0], center, radius) {
			if t == c {
				continue
			}
			already := false
			for j := 0; j < c.numHit; j++ {
				if c.hit[j] == t {
					already = true
				}
			}
			if already || vmath.Distance(t.pos, c.pos) > PhysSize*2 {
				continue
			}
			w.createSound(t.pos, SoundNinjaHit, maskAll)
			if c.numHit < ninjaMaxHits {
				c.hit[c.numHit] = t
				c.numHit++
			}
			t.takeDamage(vmath.V(0, -10), c.ninja.actDir.Scale(-1), weaponDamage[WeaponNinja], c.p.cid, WeaponNinja)
		}
	}
}

func (c *Character) doWeaponSwitch() {
	if c.reload != 0 || c.queued == -1 || c.weapons[WeaponNinja].got {
		return
	}
	c.setWeapon(c.queued)
}

func (c *Character) handleWeaponSwitch() {
	wanted := c.active
	if c.queued != -1 {
		wanted = c.queued
	}
	next := countPresses(c.latestPrev.NextWeapon, c.latest.NextWeapon)
	prev := countPresses(c.latestPrev.PrevWeapon, c.latest.PrevWeapon)
	// A counter step of at most 63 gives at most 32 presses, below the
	// reference's sanity bound of 128; a character always owns the hammer,
	// so the loops end.
	for next > 0 {
		wanted = (wanted + 1) % NumWeapons
		if c.weapons[wanted].got {
			next--
		}
	}
	for prev > 0 {
		wanted--
		if wanted < 0 {
			wanted = NumWeapons - 1
		}
		if c.weapons[wanted].got {
			prev--
		}
	}
	if c.latest.WantedWeapon != 0 {
		wanted = int(c.input.WantedWeapon) - 1
	}
	if wanted >= 0 && wanted < NumWeapons && wanted != c.active && c.weapons[wanted].got {
		c.queued = wanted
	}
	c.doWeaponSwitch()
}

func (c *Character) fireWeapon() {
	if c.reload != 0 {
		return
	}
	w := c.w
	c.doWeaponSwitch()
	dir := vmath.Normalize(vmath.V(float32(c.latest.TargetX), float32(c.latest.TargetY)))

	fullAuto := c.active == WeaponGrenade || c.active == WeaponShotgun || c.active == WeaponLaser
	willFire := countPresses(c.latestPrev.Fire, c.latest.Fire) > 0
	if fullAuto && c.latest.Fire&1 != 0 && c.weapons[c.active].ammo != 0 {
		willFire = true
	}
	if !willFire {
		return
	}
	if c.weapons[c.active].ammo == 0 {
		c.reload = noAmmoReload
		if c.lastNoAmmo+tickSpeed <= w.tick {
			w.createSound(c.pos, SoundWeaponNoAmmo, maskAll)
			c.lastNoAmmo = w.tick
		}
		return
	}

	start := c.pos.Add(dir.Scale(PhysSize).Scale(0.75))
	cid := c.p.cid
	switch c.active {
	case WeaponHammer:
		c.numHit = 0
		w.createSound(c.pos, SoundHammerFire, maskAll)
		var buf [MaxClients]*Character
		hits := 0
		for _, t := range w.findChars(buf[:0], start, PhysSize*0.5) {
			if t == c {
				continue
			}
			if hit, _, _ := w.col.IntersectLine(start, t.pos); hit != 0 {
				continue
			}
			if vmath.Length(t.pos.Sub(start)) > 0 {
				w.createHammerHit(t.pos.Sub(vmath.Normalize(t.pos.Sub(start)).Scale(PhysSize * 0.5)))
			} else {
				w.createHammerHit(start)
			}
			d := vmath.V(0, -1)
			if vmath.Length(t.pos.Sub(c.pos)) > 0 {
				d = vmath.Normalize(t.pos.Sub(c.pos))
			}
			force := vmath.V(0, -1).Add(vmath.Normalize(d.Add(vmath.V(0, -1.1))).Scale(10))
			t.takeDamage(force, d.Scale(-1), weaponDamage[WeaponHammer], cid, c.active)
			hits++
		}
		if hits > 0 {
			c.reload = tickSpeed / 3
		}
	case WeaponGun:
		life := int(vmath.TruncToInt(float32(tickSpeed * w.tuning.GunLifetime.Float())))
		w.newProjectile(WeaponGun, cid, start, dir, life, weaponDamage[WeaponGun], false, 0, -1, WeaponGun)
		w.createSound(c.pos, SoundGunFire, maskAll)
	case WeaponShotgun:
		life := int(vmath.TruncToInt(float32(tickSpeed * w.tuning.ShotgunLifetime.Float())))
		for i := -2; i <= 2; i++ {
			a := vmath.Angle(dir) + shotgunSpread[i+2]
			ai := i
			if ai < 0 {
				ai = -ai
			}
			v := 1 - float32(float32(ai)/2)
			speed := vmath.Mix(w.tuning.ShotgunSpeeddiff.Float(), 1, v)
			w.newProjectile(WeaponShotgun, cid, start, vmath.Direction(a).Scale(speed), life,
				weaponDamage[WeaponShotgun], false, 0, -1, WeaponShotgun)
		}
		w.createSound(c.pos, SoundShotgunFire, maskAll)
	case WeaponGrenade:
		life := int(vmath.TruncToInt(float32(tickSpeed * w.tuning.GrenadeLifetime.Float())))
		w.newProjectile(WeaponGrenade, cid, start, dir, life, weaponDamage[WeaponGrenade], true, 0,
			SoundGrenadeExplode, WeaponGrenade)
		w.createSound(c.pos, SoundGrenadeFire, maskAll)
	case WeaponLaser:
		w.newLaser(c.pos, dir, w.tuning.LaserReach.Float(), cid)
		w.createSound(c.pos, SoundLaserFire, maskAll)
	case WeaponNinja:
		c.numHit = 0
		c.ninja.actDir = dir
		c.ninja.moveTime = ninjaMoveTime
		c.ninja.oldVel = vmath.Length(c.core.Vel)
		w.createSound(c.pos, SoundNinjaFire, maskAll)
	}
	c.attackTick = w.tick
	if c.weapons[c.active].ammo > 0 {
		c.weapons[c.active].ammo--
	}
	if c.reload == 0 {
		c.reload = weaponFireDelay[c.active]
	}
}

func (c *Character) handleWeapons() {
	c.handleNinja()
	if c.reload != 0 {
		c.reload--
		return
	}
	c.fireWeapon()
	regen := weaponAmmoRegen[c.active]
	ws := &c.weapons[c.active]
	if regen != 0 && ws.ammo >= 0 {
		if c.reload <= 0 {
			if ws.regenStart < 0 {
				ws.regenStart = c.w.tick
			}
			if c.w.tick-ws.regenStart >= regen {
				ws.ammo = min(ws.ammo+1, maxAmmo)
				ws.regenStart = -1
			}
		} else {
			ws.regenStart = -1
		}
	}
}

func (c *Character) giveWeapon(wp, ammo int) bool {
	if c.weapons[wp].ammo < maxAmmo || !c.weapons[wp].got {
		c.weapons[wp].got = true
		c.weapons[wp].ammo = min(maxAmmo, ammo)
		return true
	}
	return false
}

func (c *Character) giveNinja() {
	c.ninja.actTick = c.w.tick
	c.ninja.moveTime = -1
	c.weapons[WeaponNinja].got = true
	c.weapons[WeaponNinja].ammo = -1
	if c.active != WeaponNinja {
		c.last = c.active
	}
	c.active = WeaponNinja
	c.w.createSound(c.pos, SoundPickupNinja, maskAll)
}

func (c *Character) setEmote(emote int, stop int32) {
	c.emote = emote
	c.emoteStop = stop
}

func (c *Character) onPredictedInput(in *Input) {
	if *in != c.input {
		c.lastAction = c.w.tick
	}
	c.input = *in
	c.numInputs++
	if c.input.TargetX == 0 && c.input.TargetY == 0 {
		c.input.TargetY = -1
	}
}

func (c *Character) onDirectInput(in *Input) {
	c.latestPrev = c.latest
	c.latest = *in
	if c.latest.TargetX == 0 && c.latest.TargetY == 0 {
		c.latest.TargetY = -1
	}
	if c.numInputs > 2 && c.p.team != TeamSpectators {
		c.handleWeaponSwitch()
		c.fireWeapon()
	}
	c.latestPrev = c.latest
}

func (c *Character) resetInput() {
	c.input.Direction = 0
	c.input.Hook = 0
	if c.input.Fire&1 != 0 {
		c.input.Fire++
	}
	c.input.Fire &= InputStateMask
	c.input.Jump = 0
	c.latest = c.input
	c.latestPrev = c.input
}

func (c *Character) coreInput() CoreInput {
	return CoreInput{Direction: c.input.Direction, TargetX: c.input.TargetX, TargetY: c.input.TargetY,
		Jump: c.input.Jump, Hook: c.input.Hook}
}

// tick is CCharacter::Tick.
func (c *Character) tick() {
	c.core.Input = c.coreInput()
	c.core.Tick(true)
	if c.w.col.Clipped(c.pos) {
		c.die(c.p.cid, WeaponWorld)
	}
	if c.alive {
		c.handleWeapons()
	}
}

// tickDefered is CCharacter::TickDefered.
func (c *Character) tickDefered() {
	w := c.w
	c.reckCore.Tick(false)
	c.reckCore.Move()
	c.reckCore.Quantize()

	c.core.Move()
	c.core.Quantize()
	c.pos = c.core.Pos
	c.triggered |= c.core.TriggeredEvents

	if c.p.team == TeamSpectators {
		c.pos = vmath.V(float32(c.input.TargetX), float32(c.input.TargetY))
	} else if c.core.Death {
		c.die(c.p.cid, WeaponWorld)
	}

	var predicted, current NetCore
	c.reckCore.Write(&predicted)
	c.core.Write(&current)
	if c.reckTick+tickSpeed*3 < w.tick || predicted != current {
		c.reckTick = w.tick
		c.sendCore = c.core
		c.reckCore = c.core
		c.reckCore.Init(&w.reckWorld, w.col)
	}
}

// tickPaused is CCharacter::TickPaused.
func (c *Character) tickPaused() {
	c.attackTick++
	c.ninja.actTick++
	c.reckTick++
	if c.lastAction != -1 {
		c.lastAction++
	}
	if c.weapons[c.active].regenStart > -1 {
		c.weapons[c.active].regenStart++
	}
	if c.emoteStop > -1 {
		c.emoteStop++
	}
}

func (c *Character) increaseHealth(n int) bool {
	if c.health >= maxHealth {
		return false
	}
	c.health = min(max(c.health+n, 0), maxHealth)
	return true
}

func (c *Character) increaseArmor(n int) bool {
	if c.armor >= maxArmor {
		return false
	}
	c.armor = min(max(c.armor+n, 0), maxArmor)
	return true
}

// die is CCharacter::Die.
func (c *Character) die(killer, weapon int) {
	w := c.w
	p := c.p
	c.alive = false
	p.respawnTick = w.tick + respawnDelay
	var kp *Player
	if killer >= 0 {
		kp = w.player(killer)
	}
	special := w.ctrl.onCharacterDeath(c, kp, weapon)
	w.emit(EvKillMsg, -1, int32(killer), int32(p.cid), int32(weapon), int32(special), int32(p.team))
	w.createSound(c.pos, SoundPlayerDie, maskAll)
	p.dieTick = w.tick
	c.inWorld = false
	w.core.Characters[p.cid] = nil
	w.createDeath(c.pos, p.cid)
}

// takeDamage is CCharacter::TakeDamage; it reports whether the character
// survived a damaging hit.
func (c *Character) takeDamage(force, source vmath.Vec2, dmg, from, weapon int) bool {
	w := c.w
	c.core.Vel = c.core.Vel.Add(force)
	if from >= 0 {
		if w.ctrl.isFriendlyFire(c.p.cid, from) {
			return false
		}
	} else {
		team := TeamRed
		if from == playerTeamBlue {
			team = TeamBlue
		}
		if w.ctrl.isFriendlyTeamFire(c.p.team, team) {
			return false
		}
	}
	if from == c.p.cid {
		dmg = max(1, dmg/2)
	}
	oldHealth, oldArmor := c.health, c.armor
	if dmg != 0 {
		if c.armor != 0 {
			if dmg > 1 {
				c.health--
				dmg--
			}
			if dmg > c.armor {
				dmg -= c.armor
				c.armor = 0
			} else {
				c.armor -= dmg
				dmg = 0
			}
		}
		c.health -= dmg
	}
	w.createDamage(c.pos, c.p.cid, source, oldHealth-c.health, oldArmor-c.armor, from == c.p.cid)

	if from >= 0 && from != c.p.cid {
		if fp := w.player(from); fp != nil {
			mask := uint64(1) << uint(from)
			for i, o := range w.players {
				if o != nil && o.spectating() && o.spectatorID == from {
					mask |= uint64(1) << uint(i)
				}
			}
			w.createSound(fp.viewPos, SoundHit, mask)
		}
	}

	if c.health <= 0 {
		c.die(from, weapon)
		if from >= 0 && from != c.p.cid {
			if kc := w.playerChar(from); kc != nil {
				kc.setEmote(EmoteHappy, w.tick+tickSpeed)
			}
		}
		return false
	}
	if dmg > 2 {
		w.createSound(c.pos, SoundPlayerPainLong, maskAll)
	} else {
		w.createSound(c.pos, SoundPlayerPainShort, maskAll)
	}
	c.setEmote(EmotePain, w.tick+500*tickSpeed/1000)
	return true
}

// snap writes the Character object for viewer (CCharacter::Snap).
func (c *Character) snap(viewer int, b SnapBuilder) error {
	w := c.w
	if w.networkClipped(viewer, c.pos) {
		return nil
	}
	d, err := b.NewItem(ObjCharacter, uint16(c.p.cid), SizeCharacter)
	if err != nil {
		return err
	}
	c.fill(d, w.privileged(viewer, c.p.cid))
	return nil
}

// privileged reports whether viewer sees the health, armor and ammo of
// client cid's character: the demo (-1) and cid itself do, and a spectator
// watching cid unless spectating is strict.
func (w *World) privileged(viewer, cid int) bool {
	return viewer == -1 || viewer == cid || (!w.cfg.StrictSpectate && w.players[viewer].spectatorID == cid)
}

// fill writes c's Character item into d (zeroed), with health, armor and
// ammo when private.
func (c *Character) fill(d []int32, private bool) {
	w := c.w
	var n NetCore
	if c.reckTick == 0 || w.paused {
		c.core.Write(&n)
		n.Tick = 0
	} else {
		c.sendCore.Write(&n)
		n.Tick = c.reckTick
	}
	n.Put(d)
	emote := c.emote
	if c.emoteStop < w.tick {
		emote = EmoteNormal
	}
	d[CharEmote] = int32(emote)
	d[CharTriggeredEvent] = c.triggered
	d[CharWeapon] = int32(c.active)
	d[CharAttackTick] = c.attackTick
	d[CharDirection] = c.input.Direction
	if private {
		d[CharHealth] = int32(c.health)
		d[CharArmor] = int32(c.armor)
		if c.active == WeaponNinja {
			d[CharAmmoCount] = c.ninja.actTick + ninjaDuration
		} else if c.weapons[c.active].ammo > 0 {
			d[CharAmmoCount] = int32(c.weapons[c.active].ammo)
		}
	}
	if emote == EmoteNormal && 250-((w.tick-c.lastAction)%250) < 5 {
		d[CharEmote] = EmoteBlink
	}
}
