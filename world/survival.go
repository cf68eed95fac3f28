package world

// Survival game modes (LMS, LTS; GAMEFLAG_SURVIVAL): a match is a series of
// rounds. Within a round a dead player does not respawn: after the usual
// respawn moment (3 s, or fire) it follows a live team mate (or, in LMS,
// any live player) as a dead spectator until the round ends. A round ends
// when at most one player (LMS) or one team (LTS) is left, or when the time
// limit, counted per round, runs out; the round's winner scores 1, then
// the world resets after 5 s (END_ROUND) and the next round starts with a
// 3 s countdown. The match ends when a round win reaches the score limit.
// Characters spawn with 10 shotgun, 10 grenade and 5 laser shots at random
// spawn points, and the map's pickups are not created.

// survivalCountdown is the start countdown of a survival round in seconds
// when sv_countdown is 0.
const survivalCountdown = 3

// Start equipment of the survival modes (weapon, ammo).
var survivalWeapons = [3][2]int{{WeaponShotgun, 10}, {WeaponGrenade, 10}, {WeaponLaser, 5}}

// enableRespawn lets everybody respawn again (warmup in survival modes).
func (c *controller) enableRespawn() {
	if !c.isSurvival() {
		return
	}
	for _, p := range c.w.players {
		if p != nil {
			p.respawnDisabled = false
		}
	}
}

// startRespawnState is IGameController::GetStartRespawnState: whether a
// player spawning or joining now may not respawn within the round.
// Survival players can always respawn during a warmup and on the first
// tick of a start countdown.
func (c *controller) startRespawnState() bool {
	if !c.isSurvival() {
		return false
	}
	return !(c.state == stateWarmupGame || c.state == stateWarmupUser ||
		(c.state == stateStartCountdown && c.gameStartTick == c.w.tick))
}

// startRound resets the world for the next round of the match
// (IGameController::StartRound).
func (c *controller) startRound() {
	c.resetGame()
	c.roundCount++
	if c.hasEnoughPlayers() {
		c.setGameState(stateStartCountdown, 0)
	} else {
		c.setGameState(stateWarmupGame, timerInfinite)
	}
}

// inRound reports whether p still takes part in the current round: a
// playing player that may respawn or has a live character.
func (p *Player) inRound() bool {
	return p.team != TeamSpectators && (!p.respawnDisabled || p.character() != nil)
}

// doWincheckRound ends a survival round (the LMS and LTS DoWincheckRound).
func (c *controller) doWincheckRound() {
	w := c.w
	timeUp := w.cfg.TimeLimit > 0 && w.tick-c.gameStartTick >= int32(w.cfg.TimeLimit)*tickSpeed*60
	if c.gameType == GameLTS {
		var count [2]int
		for _, p := range w.players {
			if p != nil && p.inRound() {
				count[p.team]++
			}
		}
		switch {
		case count[TeamRed]+count[TeamBlue] == 0 || timeUp:
			c.teamScore[TeamBlue]++
			c.teamScore[TeamRed]++
			c.endRound()
		case count[TeamRed] == 0:
			c.teamScore[TeamBlue]++
			c.endRound()
		case count[TeamBlue] == 0:
			c.teamScore[TeamRed]++
			c.endRound()
		}
		return
	}
	// LMS
	if timeUp {
		for _, p := range w.players {
			if p != nil && p.inRound() {
				p.score++
			}
		}
		c.endRound()
		return
	}
	var last *Player
	alive := 0
	for _, p := range w.players {
		if p != nil && p.inRound() {
			alive++
			last = p
		}
	}
	switch alive {
	case 0:
		c.endRound()
	case 1:
		last.score++
		c.endRound()
	}
}

// deadCanFollow reports whether a dead spectator p may follow o: a player of
// its own team still in the round.
func (p *Player) deadCanFollow(o *Player) bool {
	return (!o.respawnDisabled || o.character() != nil) && o.team == p.team
}

// updateDeadSpecMode keeps a dead spectator on a player it may follow, or
// ends the dead spectator mode when there is none
// (CPlayer::UpdateDeadSpecMode).
func (p *Player) updateDeadSpecMode() {
	w := p.w
	if o := w.player(p.spectatorID); o != nil && p.deadCanFollow(o) {
		return
	}
	for i, o := range w.players {
		if o != nil && p.deadCanFollow(o) {
			p.spectatorID = i
			return
		}
	}
	p.deadSpecMode = false
}

// spectating reports whether p watches the game: a spectator or a dead
// player of a survival round.
func (p *Player) spectating() bool { return p.team == TeamSpectators || p.deadSpecMode }

// randomSpawnScore is the score of a spawn candidate in survival modes: the
// reference's random_int() (0..2^31-1) as a float; the lowest wins.
func (w *World) randomSpawnScore() float32 {
	return float32(w.rng.next() & 0x7fffffff)
}
