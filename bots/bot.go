package bots

import (
	"math"

	"twserver/world"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// Timing constants of a bot's behaviour, in ticks (50 a second).
const (
	// StuckTicks: a living bot that has not moved StuckTicksDist units in
	// this many ticks re-plans its path (avoiding the move it was on) and
	// tries to get loose with a jump and a hook in a random direction.
	StuckTicks = 75
	// StuckTicksDist is the distance a bot must cover to count as moving.
	StuckTicksDist = 40
	// replanTicks is the least time between two path searches of one bot
	// (except after reaching a node off the path).
	replanTicks = 10
	// wanderTicks: a bot without anything better to do picks a new place to
	// go after this long.
	wanderTicks = 8 * 50
	// itemGiveUpTicks: a bot that has gone for the same pickup this long
	// without getting it gives up on it for a while.
	itemGiveUpTicks = 8 * 50
	// detourTicks: a bot whose goal the graph cannot get it closer to goes
	// somewhere else at random this long.
	detourTicks = 3 * 50
)

// Bot is the brain of one bot player. It sees the world only through the
// snapshot the world builds for its client id (what a client at its place
// would receive) plus what every client knows: the map, the game type and
// the players' teams. A Bot is not safe for concurrent use; distinct bots
// may think concurrently.
type Bot struct {
	nav   *Nav
	cid   int
	skill Skill
	sp    *skillParams
	rng   rng

	buf snapBuf
	v   view
	tr  [world.MaxClients]tracked
	wc  world.WorldCore
	pl  *planner

	in       world.Input
	alive    bool
	now      int32
	myTeam   int
	teams    bool
	gameType world.GameType

	// movement
	goal       vmath.Vec2
	goalNode   int32
	goalUntil  int32
	planGoal   int32
	planTick   int32
	curEdge    int32
	edgeStart  int32
	stuckRef   vmath.Vec2
	stuckTick  int32
	unstickTil int32
	unstickDir int32
	role       int  // CTF: 0 attacker, 1 defender
	clearing   bool // CTF attacker fighting: enemies near their flag, or its carrier's pursuers

	// fighting
	target     int
	aimErr     float32
	aimErrTick int32
	lastFire   int32
	hookTil    int32
	hookRest   int32
	owned      [world.NumWeapons]bool
	ammo       [world.NumWeapons]int32
	wantWeapon int32
	wantSince  int32

	taken         []int32 // per nav item: tick until which it is believed gone
	goalItem      int     // nav item the bot is going for, -1 none
	goalItemSince int32
	detourUntil   int32
	rescueIn      world.CoreInput
	rescueUntil   int32
	ownFlagPos    vmath.Vec2 // where the bot last knew its team's flag
	ownFlagTick   int32      // when it saw it there
	enemyFlagPos  vmath.Vec2 // where the bot last knew the enemy flag
	seenTick      int32      // tick of the last snapshot the bot looked at
	alignSince    int32      // first tick the bot was lined up for its next move

	failed   [maxFailed]failedEdge
	nfail    int
	edgeTry  [NumEdgeKinds]int
	edgeDone [NumEdgeKinds]int
}

// maxFailed is how many failed moves a bot remembers (and avoids).
const maxFailed = 8

// failTicks is how long a bot avoids a move that failed.
const failTicks = 20 * 50

type failedEdge struct {
	edge  int32
	until int32
}

// EdgeStats returns per edge kind how many moves the bot started and how
// many ended on their target node.
func (b *Bot) EdgeStats() (tried, done [NumEdgeKinds]int) { return b.edgeTry, b.edgeDone }

// fail remembers that move ei did not work, so plans avoid it for a while.
func (b *Bot) fail(ei int32) {
	slot := b.nfail % maxFailed
	for i := range b.failed {
		if b.failed[i].until < b.now {
			slot = i
			break
		}
	}
	b.failed[slot] = failedEdge{edge: ei, until: b.now + failTicks}
	b.nfail++
}

// avoided reports whether move ei failed recently.
func (b *Bot) avoided(ei int32) bool {
	for i := range b.failed {
		if b.failed[i].edge == ei && b.failed[i].until >= b.now {
			return true
		}
	}
	return false
}

// New returns a bot for client id cid playing on nav's map; its random
// choices (aim error, wandering) come from seed only. With a nil nav (the
// map's graph could not be built) the bot still fights, moving straight at
// its goals over the world's collision map.
func New(nav *Nav, cid int, skill Skill, seed uint64) *Bot {
	if nav == nil {
		nav = &Nav{}
	}
	b := &Bot{nav: nav, cid: cid, skill: skill, sp: skill.params(), rng: rng{s: seed ^ uint64(cid)*0x9e3779b97f4a7c15}}
	b.wc.Tuning = tuning.Default()
	b.wc.Tuning.PlayerCollision = 0
	b.wc.Tuning.PlayerHooking = 0
	b.pl = newPlanner(len(nav.nodes))
	b.taken = make([]int32, len(nav.items))
	b.curEdge, b.goalNode, b.planGoal = -1, -1, -1
	b.target = -1
	b.goalItem = -1
	return b
}

// ctfRole is the CTF role of bot cid on team: from its rank among the
// team's bots by client id, every third defends (the third, sixth, ...),
// the others attack, so that a team of bots has its share of defenders
// whatever client ids its bots got (by cid%3 four bots with ids 2, 5, 8
// and 11 all defended, and a team never attacked).
func ctfRole(w *world.World, cid, team int) int {
	rank := 0
	for i := range cid {
		if w.IsBot(i) && w.Team(i) == team {
			rank++
		}
	}
	if rank%3 == 2 {
		return 1
	}
	return 0
}

// CID returns the bot's client id.
func (b *Bot) CID() int { return b.cid }

// Skill returns the bot's skill.
func (b *Bot) Skill() Skill { return b.skill }

// Think looks at the world's snapshot for the bot and returns its input for
// the next tick. Call it once per tick after the world ticked; apply the
// input like a client's (DirectInput now, SetInput before the next Tick).
func (b *Bot) Think(w *world.World) world.Input {
	b.now = w.CurrentTick()
	if b.nav.col == nil {
		b.nav = &Nav{col: w.Collision()} // no graph: no nodes, the world's collision
	}
	if b.alive && b.now%2 != 0 && b.seenTick == b.now-1 {
		return b.between()
	}
	b.seenTick = b.now
	b.buf.reset()
	if err := w.Snap(b.cid, &b.buf); err == world.ErrNoPlayer {
		return b.in
	}
	b.v.parse(&b.buf)
	b.gameType = w.Config().GameType
	b.teams = b.gameType == world.GameTDM || b.gameType == world.GameCTF || b.gameType == world.GameLTS
	b.myTeam = w.Team(b.cid)
	if b.gameType == world.GameCTF {
		b.role = ctfRole(w, b.cid, b.myTeam)
	}
	for i := range b.tr {
		if b.v.chars[i].seen {
			b.tr[i].update(&b.v.chars[i], b.now, &b.wc, b, i == b.cid)
		} else {
			b.tr[i].valid = false
		}
	}
	in := &b.in
	in.Jump, in.Hook = 0, 0
	me := &b.v.chars[b.cid]
	if !me.seen {
		b.alive = false
		in.Direction = 0
		in.Fire = (in.Fire + 1) & world.InputStateMask // press and release fire: respawn
		return *in
	}
	if !b.alive {
		b.spawned()
	}
	b.observe(me)
	b.pickTarget(w)
	if b.now >= b.detourUntil {
		b.chooseGoal(w)
	}
	b.move()
	b.fight(me)
	b.rescue()
	return *in
}

// between plays the bot's current intentions on a tick without a snapshot:
// like a client, a bot gets a snapshot every second tick (the server's
// default snapshot rate), and in between it goes on with the move it is
// making, its hook and its trigger.
func (b *Bot) between() world.Input {
	in := &b.in
	in.Jump = 0
	switch {
	case b.now < b.rescueUntil:
		in.Direction, in.Hook = b.rescueIn.Direction, b.rescueIn.Hook
	case b.now < b.unstickTil:
		in.Direction = b.unstickDir
		in.Jump = int32((b.unstickTil - b.now) / 5 % 2)
	case b.curEdge >= 0:
		e := &b.nav.edges[b.curEdge]
		pr := &prims[e.prim]
		tk := int(b.now - b.edgeStart)
		ci := pr.input(int32(e.dir), tk)
		in.Direction, in.Jump, in.Hook = ci.Direction, ci.Jump, ci.Hook
		if pr.kind == EdgeWalk && pr.dirUntil < 0 {
			in.Direction = int32(e.dir)
		}
		if pr.hookDeg != 0 && tk <= 1 {
			in.TargetX, in.TargetY = ci.TargetX, ci.TargetY
		}
	default:
		in.Hook = 0
		if b.now < b.hookTil {
			in.Hook = 1
		}
	}
	return *in
}

// spawned resets the per-life state.
func (b *Bot) spawned() {
	b.alive = true
	b.owned = [world.NumWeapons]bool{world.WeaponHammer: true, world.WeaponGun: true}
	b.ammo = [world.NumWeapons]int32{world.WeaponGun: 10}
	b.curEdge, b.goalNode, b.planGoal = -1, -1, -1
	b.pl.plen, b.pl.pidx = 0, 0
	b.stuckRef, b.stuckTick = b.tr[b.cid].pos, b.now
	b.target = -1
	b.goalUntil = 0
	b.wantWeapon = -1
	b.detourUntil = 0
}

func (b *Bot) pos() vmath.Vec2 { return b.tr[b.cid].pos }

// observe updates what the bot knows from its own character and the
// pickups around it.
func (b *Bot) observe(me *charView) {
	if me.weapon >= 0 && me.weapon < world.NumWeapons {
		b.ammo[me.weapon] = me.ammo
		if me.weapon != world.WeaponHammer && me.weapon != world.WeaponNinja && me.ammo == 0 {
			b.owned[me.weapon] = false
		}
	}
	if b.wantWeapon >= 0 && me.weapon != b.wantWeapon && b.now-b.wantSince > 15 {
		b.owned[b.wantWeapon] = false // the switch did not happen: we do not have it
		b.wantWeapon = -1
	}
	if me.weapon != world.WeaponNinja {
		b.owned[world.WeaponNinja] = false
	}
	p := b.pos()
	for i := 0; i < b.v.npickups; i++ {
		pk := &b.v.pickups[i]
		if vmath.Distance(pk.pos, p) > 40 {
			continue
		}
		switch pk.typ {
		case world.PickupShotgun, world.PickupGrenade, world.PickupLaser:
			wp := pk.typ - world.PickupGrenade + world.WeaponGrenade
			if pk.typ == world.PickupShotgun {
				wp = world.WeaponShotgun
			}
			b.owned[wp] = true
			b.ammo[wp] = max(b.ammo[wp], 10)
		}
	}
	if b.now%5 == 0 {
		b.checkItems(p)
	}
}

// checkItems marks the map's pickups in view that the snapshot does not
// show as taken (they respawn later).
func (b *Bot) checkItems(p vmath.Vec2) {
	for i := range b.nav.items {
		it := &b.nav.items[i]
		if it.kind < 6 || math.Abs(float64(it.pos.X-p.X)) > 900 || math.Abs(float64(it.pos.Y-p.Y)) > 700 {
			continue
		}
		found := false
		for j := 0; j < b.v.npickups; j++ {
			if vmath.Distance(b.v.pickups[j].pos, it.pos) < 2 {
				found = true
				break
			}
		}
		if found {
			b.taken[i] = 0
		} else if b.taken[i] < b.now {
			b.taken[i] = b.now + 10*50
		}
	}
}

// enemy reports whether client i is an enemy of the bot.
func (b *Bot) enemy(w *world.World, i int) bool {
	if i == b.cid || !b.tr[i].valid || !b.v.players[i] {
		return false
	}
	return !b.teams || w.Team(i) != b.myTeam
}

// visible reports whether the line from the bot to p is free of solid
// tiles. It samples the line every sightStep units (the world's
// IntersectLine takes one step per unit, which is exact but eight times
// dearer than a bot's judgement needs).
func (b *Bot) visible(p vmath.Vec2) bool {
	a := b.pos()
	d := vmath.Distance(a, p)
	n := int(d/sightStep) + 1
	col := b.nav.col
	for i := 1; i < n; i++ {
		q := vmath.MixVec(a, p, float32(i)/float32(n))
		if col.CheckPoint(q.X, q.Y) {
			return false
		}
	}
	return true
}

// sightStep is the sampling step of visible, in world units.
const sightStep = 8

// pickTarget chooses the enemy to fight: the nearest one in sight, keeping
// the current one while it stays in sight.
func (b *Bot) pickTarget(w *world.World) {
	p := b.pos()
	if b.target >= 0 && (!b.enemy(w, b.target) || !b.visible(b.tr[b.target].pos)) {
		b.target = -1
	}
	best, bestD := b.target, float32(math.MaxFloat32)
	if best >= 0 {
		bestD = vmath.Distance(p, b.tr[best].pos) * 0.7
	}
	for i := range b.tr {
		if !b.enemy(w, i) {
			continue
		}
		if b.passesBy(w, i) {
			continue
		}
		d := vmath.Distance(p, b.tr[i].pos)
		if d < bestD && b.visible(b.tr[i].pos) {
			best, bestD = i, d
		}
	}
	b.target = best
}

// passesBy reports whether the bot, a CTF attacker on its way to the enemy
// flag (not carrying it), leaves enemy i alone: an attacker fights only
// the enemies within clearRadius of the enemy flag stand. Trading kills on
// the way (in the middle of the map, or at its own base, which is the
// defender's job) only sent the enemy back to its base, where it respawns
// rested, and left the attacker to arrive there hurt (docs/bots.md, "CTF
// captures"). A human enemy is never passed by: a player who shoots at an
// attacker gets an answer (every client sees who is a bot: the player
// info's bot flag), so the rule shapes bot-against-bot play only.
func (b *Bot) passesBy(w *world.World, i int) bool {
	if b.gameType != world.GameCTF || b.role != 0 || !b.nav.hasFlg[0] || !b.nav.hasFlg[1] {
		return false
	}
	if !w.IsBot(i) {
		return false
	}
	if b.myTeam != world.TeamRed && b.myTeam != world.TeamBlue {
		return false
	}
	enemy := 1 - b.myTeam
	if b.v.carrier[enemy] == int32(b.cid) {
		return false // the carrier defends itself
	}
	return vmath.Distance(b.tr[i].pos, b.nav.stands[enemy]) > clearRadius
}

// weaponFor returns the weapon to use at distance d.
func (b *Bot) weaponFor(d float32) int32 {
	if b.owned[world.WeaponNinja] {
		return world.WeaponNinja
	}
	has := func(wp int32) bool { return b.owned[wp] && b.ammo[wp] != 0 }
	switch {
	case d < 70:
		return world.WeaponHammer
	case d < 260 && has(world.WeaponShotgun):
		return world.WeaponShotgun
	case d >= 260 && d < 750 && has(world.WeaponLaser):
		return world.WeaponLaser
	case d < 550 && has(world.WeaponGrenade):
		return world.WeaponGrenade
	case has(world.WeaponLaser) && d < 800:
		return world.WeaponLaser
	case has(world.WeaponGun):
		return world.WeaponGun
	case has(world.WeaponShotgun):
		return world.WeaponShotgun
	}
	return world.WeaponHammer
}

// projectile speeds (units per second) and curvature of the default tuning.
func weaponBallistics(t *tuning.Params, wp int32) (speed, curvature float32) {
	switch wp {
	case world.WeaponGun:
		return t.GunSpeed.Float(), t.GunCurvature.Float()
	case world.WeaponShotgun:
		return t.ShotgunSpeed.Float(), t.ShotgunCurvature.Float()
	case world.WeaponGrenade:
		return t.GrenadeSpeed.Float(), t.GrenadeCurvature.Float()
	}
	return 0, 0
}

// fight aims, switches weapons, fires and hooks at the target.
func (b *Bot) fight(me *charView) {
	in := &b.in
	if b.target < 0 {
		if in.Fire&1 != 0 {
			in.Fire = (in.Fire + 1) & world.InputStateMask
		}
		return
	}
	t := &b.tr[b.target]
	p := b.pos()
	d := vmath.Distance(p, t.pos)
	wp := b.weaponFor(d)
	if wp != me.weapon && wp != world.WeaponNinja {
		if b.wantWeapon != wp {
			b.wantWeapon, b.wantSince = wp, b.now
		}
		in.WantedWeapon = wp + 1
	}
	// aim: lead the target by its velocity over the projectile's flight
	aim := t.pos
	speed, curv := weaponBallistics(&b.wc.Tuning, me.weapon)
	if speed > 0 {
		flight := d / speed * 50 // ticks
		aim = aim.Add(t.vel.Scale(flight * b.sp.lead))
		if curv > 0 {
			ft := vmath.Distance(p, aim) / speed // seconds
			dist := speed * ft
			aim.Y -= curv / 10000 * dist * dist
		}
	} else if me.weapon == world.WeaponHammer || me.weapon == world.WeaponNinja {
		aim = aim.Add(t.vel.Scale(2 * b.sp.lead))
	}
	if b.now >= b.aimErrTick {
		b.aimErr = b.rng.signed() * b.sp.aimNoise
		b.aimErrTick = b.now + 8 + int32(b.rng.intn(8))
	}
	dir := aim.Sub(p)
	a := vmath.Angle(dir) + b.aimErr
	l := max(vmath.Length(dir), 64)
	if b.curEdge < 0 || !b.edgeAims() {
		in.TargetX = int32(float32(math.Cos(float64(a))) * l)
		in.TargetY = int32(float32(math.Sin(float64(a))) * l)
	}
	// fire once the bot has reacted to this enemy
	if b.now-t.seenFrom < b.sp.reaction || me.weapon != wp && wp != world.WeaponNinja {
		if in.Fire&1 != 0 {
			in.Fire = (in.Fire + 1) & world.InputStateMask
		}
	} else if in.Fire&1 != 0 || b.now-b.lastFire >= b.sp.fireGap {
		in.Fire = (in.Fire + 1) & world.InputStateMask
		if in.Fire&1 != 0 {
			b.lastFire = b.now
		}
	}
	// hook to pull the enemy close (shotgun, hammer) when the skill allows
	if b.curEdge < 0 && b.sp.hookFight > 0 && d > 90 && d < 340 && !b.running() {
		if b.now < b.hookTil {
			in.Hook = 1
		} else if b.now > b.hookRest && b.rng.intn(100) < b.sp.hookFight {
			b.hookTil = b.now + 20
			b.hookRest = b.now + 60
		} else if b.now > b.hookRest {
			b.hookRest = b.now + 25
		}
	}
}

// edgeAims reports whether the current move needs the aim (to launch a hook).
func (b *Bot) edgeAims() bool {
	e := &b.nav.edges[b.curEdge]
	p := &prims[e.prim]
	return p.hookDeg != 0 && b.now-b.edgeStart <= 1
}

// running reports whether the bot is on a CTF errand (an attacker, or
// carrying the flag) and so does not stop to hook enemies.
func (b *Bot) running() bool {
	return b.gameType == world.GameCTF && b.role == 0 && !b.clearing
}

// clearRadius: a CTF attacker fights the enemies it sees this close to the
// enemy flag before it takes the flag.
const clearRadius = 450
