package world

import (
	"math"

	"twserver/world/collision"
)

// An empty world mostly waits: once its last player has left, the
// entities have settled (projectiles gone, pickups respawned, flags home)
// and the controller has reached a state whose timers do not run, a tick
// changes nothing but the tick number. IdleTicks tells how many of the
// coming ticks are such no-ops and SkipIdle stands in for them, so a
// server can sleep through an empty game and, when somebody comes, put the
// world where the same wall-clock time of ticking would have put it. A
// replay that ticks through the gap (teehistorian TICK_SKIP) reaches the
// same world: SkipIdle(n) is n calls of Tick (TestSkipIdleEqualsTicks).

// IdleForever is what IdleTicks returns when no coming tick changes
// anything until a player joins or a setting changes.
const IdleForever = math.MaxInt32

// IdleTicks returns how many of the coming ticks would change nothing in
// the world but its tick number (0: the next tick does something;
// IdleForever: none does until a player, a command or a setting changes
// the world). It is exact, not a guess: each condition below mirrors a
// part of Tick that would act.
func (w *World) IdleTicks() int32 {
	if w.paused || w.resetRequested || len(w.projs) > 0 || len(w.lasers) > 0 || len(w.chars) > 0 {
		return 0
	}
	for _, p := range w.players {
		if p != nil {
			return 0
		}
	}
	// A pickup waiting to respawn does nothing until the tick after its
	// spawnTick, which respawns it (with a sound).
	bound := int32(IdleForever)
	for i := range w.pickups {
		if st := w.pickups[i].spawnTick; st > 0 {
			bound = min(bound, max(st-w.tick, 0))
		}
	}
	if bound == 0 {
		return 0
	}
	for _, f := range w.flagLst {
		// a flag away from its stand returns or falls; one whose stand is
		// in a death tile or outside the map is reset every tick
		if !f.atStand || f.carrier != nil ||
			w.col.GetCollisionAt(f.pos.X, f.pos.Y)&collision.FlagDeath != 0 || w.col.Clipped(f.pos) {
			return 0
		}
	}
	c := &w.ctrl
	if c.isTeamplay() && !c.isSurvival() && c.unbalancedTick == tbalanceCheck {
		return 0 // the balance check runs at the next tick
	}
	switch c.state {
	case stateWarmupGame: // waiting for players, no timer
		if c.gameType != GameCTF {
			return bound // no win check outside a running game
		}
	case stateRunning:
		if c.isSurvival() {
			return 0 // an empty round ends at once
		}
	default: // warmup timer, countdown, pause, end of match or round
		return 0
	}
	// The win check runs each tick (CTF: in every state): idle while it
	// changes nothing, which only the time limit can alter.
	next := w.tick + 1
	if !c.wincheckIdle(next) {
		return 0
	}
	if w.cfg.TimeLimit <= 0 {
		return bound
	}
	timeUpAt := c.gameStartTick + int32(w.cfg.TimeLimit)*tickSpeed*60
	if next >= timeUpAt {
		return bound // time is up already and the check is settled
	}
	return min(bound, timeUpAt-next) // the tick at timeUpAt checks again
}

// wincheckIdle reports whether doWincheckMatch at tick t would change
// nothing in a world without players (its decisions, taken without acting).
func (c *controller) wincheckIdle(t int32) bool {
	w := c.w
	timeUp := w.cfg.TimeLimit > 0 && t-c.gameStartTick >= int32(w.cfg.TimeLimit)*tickSpeed*60
	canEnd := c.state == stateRunning // endMatch acts only from the states idle allows
	if c.isTeamplay() {
		red, blue := c.teamScore[TeamRed], c.teamScore[TeamBlue]
		if !(w.cfg.ScoreLimit > 0 && (red >= w.cfg.ScoreLimit || blue >= w.cfg.ScoreLimit)) && !timeUp {
			return true
		}
		switch {
		case c.gameType == GameCTF && c.suddenDeath:
			return red/100 == blue/100 || !canEnd
		case red != blue || c.isSurvival():
			return !canEnd
		default:
			return c.suddenDeath
		}
	}
	// Without players the top score is 0 (below any score limit) and
	// nobody holds it alone: the check can only enter sudden death.
	return !timeUp || c.suddenDeath
}

// SkipIdle advances the world by n ticks, n at most IdleTicks(): the same
// world, to the bit, as n calls of Tick. It panics on a larger n (a broken
// caller, not input).
func (w *World) SkipIdle(n int32) {
	if n <= 0 {
		return
	}
	if n > w.IdleTicks() {
		panic("world: SkipIdle beyond IdleTicks")
	}
	w.tick += n
}
