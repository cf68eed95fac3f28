package bots

import (
	"twserver/world"
	"twserver/world/twmap"
	"twserver/world/vmath"
)

// chooseGoal sets where the bot wants to go this tick, by game mode.
func (b *Bot) chooseGoal(w *world.World) {
	if b.gameType == world.GameCTF && b.nav.hasFlg[0] && b.nav.hasFlg[1] {
		if b.ctfGoal(w) {
			return
		}
	}
	me := &b.v.chars[b.cid]
	p := b.pos()
	// pick-ups when hurt or poorly armed
	if me.health <= 4 || (me.health < 8 && b.target < 0) {
		if b.itemGoal(p, twmap.EntityHealth1) {
			return
		}
	}
	if b.target >= 0 {
		if me.health < 4 && b.itemGoal(p, twmap.EntityHealth1) {
			return
		}
		b.setGoal(b.tr[b.target].pos, 25)
		return
	}
	if me.armor < 5 && b.itemGoal(p, twmap.EntityArmor1) {
		return
	}
	if !b.owned[world.WeaponShotgun] && !b.owned[world.WeaponGrenade] && !b.owned[world.WeaponLaser] {
		if b.itemGoal(p, twmap.EntityWeaponShotgun) || b.itemGoal(p, twmap.EntityWeaponGrenade) || b.itemGoal(p, twmap.EntityWeaponLaser) {
			return
		}
	}
	// an enemy in view but not in sight: go there
	best, bestD := -1, float32(1e9)
	for i := range b.tr {
		if b.enemy(w, i) {
			if d := vmath.Distance(p, b.tr[i].pos); d < bestD {
				best, bestD = i, d
			}
		}
	}
	if best >= 0 {
		b.setGoal(b.tr[best].pos, 25)
		return
	}
	b.wander()
}

// setGoal makes p the goal for at least ticks ticks.
func (b *Bot) setGoal(p vmath.Vec2, ticks int32) {
	b.goal = p
	b.goalNode = b.nav.nodeNear(p)
	b.goalUntil = b.now + ticks
}

// wander keeps the current goal until reached or timed out, then picks a
// random item of the map (or a random node) as the next one.
func (b *Bot) wander() {
	me := b.nav.landNode(b.pos())
	if b.goalNode >= 0 && b.now < b.goalUntil && me != b.goalNode {
		return
	}
	n := b.nav
	if len(n.items) > 0 && b.rng.intn(3) != 0 {
		it := &n.items[b.rng.intn(len(n.items))]
		b.setGoal(it.pos, wanderTicks)
		return
	}
	if len(n.nodes) > 0 {
		nd := int32(b.rng.intn(len(n.nodes)))
		b.goal, b.goalNode, b.goalUntil = n.nodePos(nd), nd, b.now+wanderTicks
	}
}

// itemGoal heads for the nearest item of kind believed to be there.
func (b *Bot) itemGoal(p vmath.Vec2, kind int) bool { return b.itemGoalWithin(p, kind, 1600) }

// itemGoalWithin is itemGoal for items closer than maxD.
func (b *Bot) itemGoalWithin(p vmath.Vec2, kind int, maxD float32) bool {
	best, bestD := -1, float32(1e9)
	for i := range b.nav.items {
		it := &b.nav.items[i]
		if it.kind != kind || b.taken[i] > b.now {
			continue
		}
		if d := vmath.Distance(p, it.pos); d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 || bestD > maxD {
		return false
	}
	if b.goalItem != best {
		b.goalItem, b.goalItemSince = best, b.now
	} else if b.now-b.goalItemSince > itemGiveUpTicks {
		// could not get it: treat it as gone for a while
		b.taken[best] = b.now + 15*50
		b.goalItem = -1
		return false
	}
	b.setGoal(b.nav.items[best].pos, 50)
	return true
}

// flagSightTicks: a bot hunting the carrier of its flag goes where it saw
// the flag last for at most this long, then to the enemy's stand.
const flagSightTicks = 10 * 50

// ctfGoal: carry the enemy flag home, return or chase the own flag, take
// the enemy flag; defenders stay near their stand. It reports whether it
// set a goal.
func (b *Bot) ctfGoal(w *world.World) bool {
	own, enemy := b.myTeam, 1-b.myTeam
	if own != world.TeamRed && own != world.TeamBlue {
		return false
	}
	v := &b.v
	b.clearing = false
	if v.carrier[enemy] == int32(b.cid) { // carrying: home
		b.setGoal(b.nav.stands[own], 50)
		return true
	}
	// own flag away: a carrier to chase, or a dropped flag to return
	if v.flagSeen[own] {
		b.ownFlagPos, b.ownFlagTick = v.flagPos[own], b.now
	}
	switch c := v.carrier[own]; {
	case c >= 0 && int(c) < world.MaxClients && b.tr[c].valid:
		b.ownFlagPos, b.ownFlagTick = b.tr[c].pos, b.now
		b.setGoal(b.tr[c].pos, 10)
		return true
	case c == world.FlagTaken:
		b.setGoal(b.ownFlagPos, 10) // where it was seen last
		return true
	case c >= 0:
		// the carrier runs to its base and waits there: hunt it (where the
		// flag was seen last, then at the enemy's stand; a place seen last
		// is forgotten once reached without the flag in view, else the bot
		// would turn back to it as soon as it left it, or after
		// flagSightTicks, in case the bot cannot get there)
		if vmath.Distance(b.pos(), b.ownFlagPos) <= 200 || b.now-b.ownFlagTick > flagSightTicks {
			b.ownFlagPos = b.nav.stands[own]
		}
		if b.ownFlagPos != b.nav.stands[own] {
			b.setGoal(b.ownFlagPos, 10)
		} else {
			b.setGoal(b.nav.stands[enemy], 50)
		}
		return true
	default:
		b.ownFlagPos = b.nav.stands[own]
	}
	me := &b.v.chars[b.cid]
	p := b.pos()
	if me.health <= 5 && b.itemGoal(p, twmap.EntityHealth1) {
		return true
	}
	if !b.owned[world.WeaponShotgun] && !b.owned[world.WeaponGrenade] && !b.owned[world.WeaponLaser] {
		for _, k := range [3]int{twmap.EntityWeaponGrenade, twmap.EntityWeaponShotgun, twmap.EntityWeaponLaser} {
			if b.itemGoalWithin(p, k, 500) {
				return true
			}
		}
	}
	if me.armor < 3 && b.itemGoalWithin(p, twmap.EntityArmor1, 400) {
		return true
	}
	if b.role == 1 {
		if b.target >= 0 && vmath.Distance(b.nav.stands[own], b.tr[b.target].pos) < 500 {
			b.setGoal(b.tr[b.target].pos, 10)
			return true
		}
		st := b.nav.stands[own]
		if vmath.Distance(b.pos(), st) > 250 || b.now >= b.goalUntil {
			// patrol around the stand
			off := vmath.V(b.rng.signed()*200, 0)
			b.setGoal(st.Add(off), 150)
		}
		return true
	}
	if v.flagSeen[enemy] {
		b.enemyFlagPos = v.flagPos[enemy]
	}
	// an enemy in sight near the enemy flag (its defender): fight it first,
	// hook included, rather than grab the flag under its fire
	if b.target >= 0 && v.carrier[enemy] < 0 && vmath.Distance(b.tr[b.target].pos, b.enemyFlagPos) < clearRadius {
		b.clearing = true
		b.setGoal(b.tr[b.target].pos, 10)
		return true
	}
	switch c := v.carrier[enemy]; {
	case c >= 0 && int(c) < world.MaxClients && b.tr[c].valid: // escort our carrier
		b.enemyFlagPos = b.tr[c].pos
		if b.target >= 0 {
			b.clearing = true // fight its pursuers, hook included
		}
		b.setGoal(b.tr[c].pos, 10)
	case c == world.FlagTaken: // dropped: where it was seen last
		b.setGoal(b.enemyFlagPos, 10)
	case c == world.FlagAtStand:
		b.enemyFlagPos = b.nav.stands[enemy]
		b.setGoal(b.nav.stands[enemy], 50)
	default:
		b.setGoal(b.nav.stands[enemy], 50)
	}
	return true
}
