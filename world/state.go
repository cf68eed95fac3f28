package world

import (
	sw "twserver/world/statewalk"
)

// StateVersion numbers the walk of VisitState. Bump it whenever the walk
// changes (a field added, removed, reordered or reinterpreted): a state of
// another version is refused (package worldstate), so a live upgrade to a
// binary that walks differently keeps the old process serving.
const StateVersion = 1

// StateVisitor visits the fields of VisitState's walk (statewalk.Visitor).
type StateVisitor = sw.Visitor

// VisitState walks the world's whole simulation state with v: tick, PRNG,
// tuning, snapshot ids, players, characters and their cores, projectiles,
// lasers, pickups, flags, controller, pending events; references pass as
// indices. The map and Config are not in it: a state is read into a World
// New made for the same map, and one read from bad input is not ticked.
func (w *World) VisitState(v StateVisitor) {
	sw.Vis(v, &w.tick, &w.rng.s, &w.paused, &w.resetRequested, &w.lockTeams)
	sc := sw.ScratchOf(v)
	a, b := w.tuning.Ptrs(), w.reckWorld.Tuning.Ptrs()
	for _, x := range a {
		v.I32((*int32)(x))
	}
	for _, x := range b {
		v.I32((*int32)(x))
	}
	w.core.Tuning = w.tuning
	ids := &w.ids
	for i := range ids.next { // as the distance to the initial link: mostly 0
		sc.I = int(ids.next[i] - int32(i+1))
		v.Int(&sc.I)
		ids.next[i] = int32(min(max(sc.I+i+1, -1), MaxSnapIDs-1))
	}
	sw.R32(v, -1, MaxSnapIDs-1, &ids.firstFree, &ids.firstFreed, &ids.lastFreed)
	v.Range(&ids.inUse, 0, MaxSnapIDs)
	for cid := range w.players {
		sw.Opt(v, &w.players[cid], &w.playerStore[cid])
		w.playerStore[cid].visit(v, w)
		w.charStore[cid].visit(v, w, cid)
		sw.Opt(v, &w.core.Characters[cid], &w.charStore[cid].core)
	}
	w.chars = sw.RefList(v, w.chars, w.charStore[:])
	sc.N = len(w.projs)
	v.Range(&sc.N, 0, MaxProjectiles)
	w.projs = w.projs[:sc.N]
	for i := range w.projs {
		p := &w.projs[i]
		sw.Ranges(v, 0, NumWeapons-1, &p.typ)
		sw.Ranges(v, -1, MaxClients-1, &p.owner)
		sw.Ranges(v, WeaponGame, NumWeapons-1, &p.weapon)
		sw.Vis(v, &p.id, &p.ownerTeam, &p.lifeSpan, &p.damage, &p.sound, &p.pos, &p.dir, &p.explosive, &p.dead,
			&p.force, &p.startTick)
	}
	sc.N = len(w.lasers)
	v.Range(&sc.N, 0, MaxLasers)
	w.lasers = w.lasers[:sc.N]
	for i := range w.lasers {
		l := &w.lasers[i]
		v.Range(&l.owner, -1, MaxClients-1)
		sw.Vis(v, &l.id, &l.bounces, &l.pos, &l.from, &l.dir, &l.energy, &l.evalTick, &l.dead)
	}
	sc.N = len(w.pickups) // made from the map: the count must match
	v.Range(&sc.N, len(w.pickups), len(w.pickups))
	for i := range w.pickups {
		p := &w.pickups[i]
		v.Range(&p.typ, 0, PickupNinja)
		sw.Vis(v, &p.id, &p.pos, &p.spawnTick)
	}
	for t := range w.flagArr {
		f := &w.flagArr[t]
		sw.Opt(v, &w.flags[t], f)
		v.Range(&f.team, TeamRed, TeamBlue)
		sw.Ref(v, &f.carrier, w.charStore[:])
		sw.Vis(v, &f.id, &f.stand, &f.pos, &f.vel, &f.atStand, &f.grabTick, &f.dropTick)
	}
	w.flagLst = sw.RefList(v, w.flagLst, w.flagArr[:])
	c := &w.ctrl
	gt := int(c.gameType) // a world of another game type refuses the state
	sc.I = gt
	v.Range(&sc.I, gt, gt)
	sw.Vis(v, &c.state, &c.matchCount, &c.roundCount, &c.sentMatch, &c.teamScore[0],
		&c.teamScore[1], &c.teamSize[0], &c.teamSize[1], &c.gameFlags, &c.stateTimer, &c.gameStartTick,
		&c.unbalancedTick, &c.suddenDeath)
	v.Range(&w.events.n, 0, MaxSnapEvents)
	for i := 0; i < w.events.n; i++ {
		e := &w.events.events[i]
		sc.I = int(e.typ)
		v.Range(&sc.I, 0, 0xffff)
		e.typ = uint16(sc.I)
		sc.I = int(e.size)
		v.Range(&sc.I, 0, maxEventWords)
		e.size = uint8(sc.I)
		sw.Vis(v, &e.mask)
		sw.I32s(v, e.data[:])
	}
	v.Range(&w.out.n, 0, MaxPendingEvents)
	v.Int(&w.out.dropped)
	for i := 0; i < w.out.n; i++ {
		e := &w.out.q[i]
		sc.I = int(e.Kind)
		v.Range(&sc.I, 0, 0xff)
		e.Kind = EventKind(sc.I)
		v.Range(&e.To, -1, MaxClients-1)
		sw.I32s(v, e.Args[:])
	}
}

// VisitRecordedState is VisitState with the latency samples of every slot
// as a teehistorian holds them (a player's PendingLatency, a free slot's 0):
// the samples since the last per-second update are the server's own, which
// the file records only as the updates show them (a checkpoint, package
// record). v must only read; the samples are put back after the walk.
func (w *World) VisitRecordedState(v StateVisitor) {
	var keep [MaxClients][2]int32
	for i := range w.playerStore {
		p, l := &w.playerStore[i], int32(0)
		if keep[i] = [2]int32{p.latencyCur, p.latencyAccMin}; w.players[i] != nil {
			l = min(p.latencyAccMin, p.latencyCur)
		}
		p.latencyCur, p.latencyAccMin = l, l
	}
	w.VisitState(v)
	for i := range w.playerStore {
		w.playerStore[i].latencyCur, w.playerStore[i].latencyAccMin = keep[i][0], keep[i][1]
	}
}

// visit walks one player slot (present or not: a removed player's fields
// stay, as they do in the world).
func (p *Player) visit(v StateVisitor, w *World) {
	sw.Opt(v, &p.w, w) // set once the slot was first used
	in := &p.info
	sw.Vis(v, &in.Spectator, &in.Bot, &in.Name, &in.Clan, &in.Country)
	for i := range in.SkinPartNames {
		sw.Vis(v, &in.SkinPartNames[i], &in.UseCustomColors[i], &in.SkinPartColors[i])
	}
	v.Range(&p.team, TeamSpectators, TeamBlue)
	v.Range(&p.spectatorID, -1, MaxClients-1)
	sw.Opt(v, &p.char, &w.charStore[p.cid])
	sw.Ref(v, &p.specFlag, w.flagArr[:])
	sw.Vis(v, &p.score, &p.specMode, &p.viewPos, &p.respawnTick, &p.dieTick, &p.scoreStartTick, &p.playerFlags,
		&p.activity.targetX, &p.activity.targetY, &p.lastActionTick, &p.teamChangeTick, &p.inactivity,
		&p.lastSetTeam, &p.lastKill, &p.lastSetSpec, &p.latencyCur, &p.latencyMin, &p.latencyAccMin,
		&p.lastReadyChange)
	sw.I32s(v, p.actLatency[:]) // a slice passed as an interface would be allocated
	sw.Vis(v, &p.spawning, &p.activeSwitch, &p.authed, &p.hasInput, &p.kicked,
		&p.ingame, &p.ready, &p.respawnDisabled, &p.deadSpecMode)
	p.pendingInput.visit(v)
}

// visit walks the character slot of client cid. Its cores' worlds are the
// game's (core, and sendCore, a copy of it) and the dead reckoning's.
func (c *Character) visit(v StateVisitor, w *World, cid int) {
	c.w = w
	sw.Opt(v, &c.p, &w.playerStore[cid])
	for i, core := range []*CharacterCore{&c.core, &c.reckCore, &c.sendCore} {
		sw.Opt(v, &core.world, []*WorldCore{&w.core, &w.reckWorld, &w.core}[i])
		sw.Opt(v, &core.collision, w.col)
		sw.R32(v, -1, MaxClients-1, &core.HookedPlayer)
		sw.Vis(v, &core.Pos, &core.Vel, &core.HookPos, &core.HookDir, &core.HookTick, &core.HookState, &core.Jumped,
			&core.Direction, &core.Angle, &core.Input.Direction, &core.Input.TargetX, &core.Input.TargetY,
			&core.Input.Jump, &core.Input.Hook, &core.TriggeredEvents, &core.Death)
	}
	for i := range c.weapons {
		sw.Vis(v, &c.weapons[i].got, &c.weapons[i].ammo, &c.weapons[i].regenStart)
	}
	sw.Ranges(v, -1, MaxSnapIDs-1, &c.snapID)
	sw.Ranges(v, 0, NumWeapons-1, &c.active, &c.last)
	sw.Ranges(v, -1, NumWeapons-1, &c.queued)
	sw.Ranges(v, 0, ninjaMaxHits, &c.numHit)
	sw.Vis(v, &c.alive, &c.inWorld, &c.pos, &c.ninja.actDir, &c.health, &c.armor, &c.reload, &c.emote, &c.numInputs,
		&c.ninja.moveTime, &c.reckTick, &c.triggered, &c.attackTick, &c.emoteStop, &c.lastAction, &c.lastNoAmmo,
		&c.ninja.actTick, &c.ninja.oldVel)
	for _, in := range []*Input{&c.input, &c.latest, &c.latestPrev} {
		in.visit(v)
	}
	for i := range c.hit {
		sw.Ref(v, &c.hit[i], w.charStore[:])
	}
}

func (in *Input) visit(v StateVisitor) {
	sw.Vis(v, &in.Direction, &in.TargetX, &in.TargetY, &in.Jump, &in.Fire, &in.Hook, &in.PlayerFlags,
		&in.WantedWeapon, &in.NextWeapon, &in.PrevWeapon)
}
