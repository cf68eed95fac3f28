package world

import (
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// Projectile owners after the shooter left or changed team
// (PLAYER_TEAM_RED / PLAYER_TEAM_BLUE).
const (
	playerTeamRed  = -1
	playerTeamBlue = -2
)

// Projectile is a gun bullet, shotgun pellet or grenade (CProjectile).
type Projectile struct {
	id        int
	typ       int
	owner     int
	ownerTeam int
	pos       vmath.Vec2 // start position
	dir       vmath.Vec2
	lifeSpan  int
	damage    int
	explosive bool
	force     float32
	sound     int
	weapon    int
	startTick int32
	dead      bool
}

// newProjectile creates a projectile at the head of the projectile list. It
// is dropped when MaxProjectiles or the snapshot ids are exhausted.
func (w *World) newProjectile(typ, owner int, pos, dir vmath.Vec2, span, damage int, explosive bool,
	force float32, sound, weapon int) {
	if len(w.projs) == cap(w.projs) {
		return
	}
	id := w.ids.alloc()
	if id < 0 {
		return
	}
	team := TeamRed
	if p := w.player(owner); p != nil {
		team = p.team
	}
	w.projs = append(w.projs, Projectile{
		id: id, typ: typ, owner: owner, ownerTeam: team, pos: pos, dir: dir,
		lifeSpan: span, damage: damage, explosive: explosive, force: force,
		sound: sound, weapon: weapon, startTick: w.tick,
	})
}

func (p *Projectile) loseOwner() {
	if p.ownerTeam == TeamBlue {
		p.owner = playerTeamBlue
	} else {
		p.owner = playerTeamRed
	}
}

// posAt returns the projectile position t seconds after its start.
func (p *Projectile) posAt(tu *tuning.Params, t float32) vmath.Vec2 {
	var curvature, speed float32
	switch p.typ {
	case WeaponGrenade:
		curvature, speed = tu.GrenadeCurvature.Float(), tu.GrenadeSpeed.Float()
	case WeaponShotgun:
		curvature, speed = tu.ShotgunCurvature.Float(), tu.ShotgunSpeed.Float()
	case WeaponGun:
		curvature, speed = tu.GunCurvature.Float(), tu.GunSpeed.Float()
	}
	return vmath.CalcPos(p.pos, p.dir, curvature, speed, t)
}

// tick is CProjectile::Tick. The projectile pointer stays valid: nothing
// appends projectiles while projectiles tick.
func (p *Projectile) tick(w *World) {
	pt := float32(w.tick-p.startTick-1) / float32(tickSpeed)
	ct := float32(w.tick-p.startTick) / float32(tickSpeed)
	prevPos := p.posAt(&w.tuning, pt)
	curPos := p.posAt(&w.tuning, ct)
	collide, at, _ := w.col.IntersectLine(prevPos, curPos)
	curPos = at
	ownerChar := w.playerChar(p.owner)
	target, hitPos := w.intersectCharacter(prevPos, curPos, 6, ownerChar)
	if target != nil {
		curPos = hitPos
	}
	p.lifeSpan--
	if target != nil || collide != 0 || p.lifeSpan < 0 || w.col.Clipped(curPos) {
		if p.lifeSpan >= 0 || p.weapon == WeaponGrenade {
			w.createSound(curPos, p.sound, maskAll)
		}
		if p.explosive {
			w.createExplosion(curPos, p.owner, p.weapon, p.damage)
		} else if target != nil {
			target.takeDamage(p.dir.Scale(max(0.001, p.force)), p.dir.Scale(-1), p.damage, p.owner, p.weapon)
		}
		p.dead = true
	}
}

// snap writes the Projectile object (CProjectile::Snap).
func (p *Projectile) snap(w *World, viewer int, b SnapBuilder) error {
	ct := float32(w.tick-p.startTick) / float32(tickSpeed)
	if w.networkClipped(viewer, p.posAt(&w.tuning, ct)) {
		return nil
	}
	d, err := b.NewItem(ObjProjectile, uint16(p.id), SizeProjectile)
	if err != nil {
		return err
	}
	d[0] = int32(p.pos.X)
	d[1] = int32(p.pos.Y)
	d[2] = int32(p.dir.X * 100)
	d[3] = int32(p.dir.Y * 100)
	d[4] = int32(p.typ)
	d[5] = p.startTick
	return nil
}

// createExplosion is CGameContext::CreateExplosion.
func (w *World) createExplosion(pos vmath.Vec2, owner, weapon, maxDamage int) {
	w.createExplosionEvent(pos)
	const radius = float32(explosionRadius)
	const inner = float32(explosionInner)
	var buf [MaxClients]*Character
	for _, c := range w.findChars(buf[:0], pos, radius) {
		diff := c.pos.Sub(pos)
		force := vmath.V(0, explosionMaxForc)
		l := vmath.Length(diff)
		if l != 0 {
			force = vmath.Normalize(diff).Scale(explosionMaxForc)
		}
		factor := 1 - vmath.Clamp((l-inner)/(radius-inner), 0, 1)
		if dmg := int(float32(factor * float32(maxDamage))); dmg != 0 {
			c.takeDamage(force.Scale(factor), diff.Scale(-1), dmg, owner, weapon)
		}
	}
}

// Laser is a laser beam segment (CLaser).
type Laser struct {
	id       int
	owner    int
	pos      vmath.Vec2
	from     vmath.Vec2
	dir      vmath.Vec2
	energy   float32
	bounces  int
	evalTick int32
	dead     bool
}

// newLaser creates a laser at the head of the laser list and bounces it once
// immediately, as the reference constructor does.
func (w *World) newLaser(pos, dir vmath.Vec2, energy float32, owner int) {
	if len(w.lasers) == cap(w.lasers) {
		return
	}
	id := w.ids.alloc()
	if id < 0 {
		return
	}
	w.lasers = append(w.lasers, Laser{id: id, owner: owner, pos: pos, dir: dir, energy: energy})
	w.lasers[len(w.lasers)-1].doBounce(w)
}

func (l *Laser) hitCharacter(w *World, from, to vmath.Vec2) bool {
	ownerChar := w.playerChar(l.owner)
	hit, at := w.intersectCharacter(l.pos, to, 0, ownerChar)
	if hit == nil {
		return false
	}
	l.from = from
	l.pos = at
	l.energy = -1
	hit.takeDamage(vmath.Vec2{}, vmath.Normalize(to.Sub(from)), weaponDamage[WeaponLaser], l.owner, WeaponLaser)
	return true
}

func (l *Laser) doBounce(w *World) {
	l.evalTick = w.tick
	if l.energy < 0 {
		l.dead = true
		return
	}
	to := l.pos.Add(l.dir.Scale(l.energy))
	hit, _, before := w.col.IntersectLine(l.pos, to)
	if hit != 0 {
		to = before
		if !l.hitCharacter(w, l.pos, to) {
			l.from = l.pos
			l.pos = to
			np, nv, _ := w.col.MovePoint(l.pos, l.dir.Scale(4), 1)
			l.pos = np
			l.dir = vmath.Normalize(nv)
			l.energy -= vmath.Distance(l.from, l.pos) + w.tuning.LaserBounceCost.Float()
			l.bounces++
			if float32(l.bounces) > w.tuning.LaserBounceNum.Float() {
				l.energy = -1
			}
			w.createSound(l.pos, SoundLaserBounce, maskAll)
		}
	} else if !l.hitCharacter(w, l.pos, to) {
		l.from = l.pos
		l.pos = to
		l.energy = -1
	}
}

func (l *Laser) tick(w *World) {
	if float32(w.tick-l.evalTick) > float32(float32(tickSpeed)*w.tuning.LaserBounceDelay.Float())/1000 {
		l.doBounce(w)
	}
}

func (l *Laser) snap(w *World, viewer int, b SnapBuilder) error {
	if w.networkClipped(viewer, l.pos) && w.networkClipped(viewer, l.from) {
		return nil
	}
	d, err := b.NewItem(ObjLaser, uint16(l.id), SizeLaser)
	if err != nil {
		return err
	}
	d[0] = int32(l.pos.X)
	d[1] = int32(l.pos.Y)
	d[2] = int32(l.from.X)
	d[3] = int32(l.from.Y)
	d[4] = l.evalTick
	return nil
}
