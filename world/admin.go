package world

import "math"

// Operator commands (the reference's rcon commands that act on the game).

// ForceTeam moves client cid to team (clamped to -1..1) without the request
// checks except free player slots (rcon set_team without a delay). It
// reports whether the player was moved.
func (w *World) ForceTeam(cid, team int) bool { return w.ForceTeamDelay(cid, team, 0) }

// ForceTeamDelay is ForceTeam that also blocks the player's own team changes
// for delayMinutes (rcon set_team with a delay, e.g. the spectate vote's
// sv_vote_spectate_rejoindelay). Negative delays count as 0; delays past
// the tick range block until the tick counter ends.
func (w *World) ForceTeamDelay(cid, team, delayMinutes int) bool {
	p := w.player(cid)
	team = min(max(team, TeamSpectators), TeamBlue)
	if p == nil || !w.ctrl.canJoinTeam(team, cid) {
		return false
	}
	// saturated: an absurd delay must not wrap around to no delay
	minutes := int64(min(max(delayMinutes, 0), math.MaxInt32/(tickSpeed*60)))
	p.teamChangeTick = int32(min(int64(w.tick)+minutes*tickSpeed*60, math.MaxInt32))
	w.ctrl.doTeamChange(p, team, true)
	return true
}

// SetTeamAll moves every player that may join team to it (rcon set_team_all).
func (w *World) SetTeamAll(team int) {
	team = min(max(team, TeamSpectators), TeamBlue)
	w.sendGameMsg(GameMsgTeamAll, -1, int32(team))
	for _, p := range w.players {
		if p != nil && w.ctrl.canJoinTeam(team, p.cid) {
			w.ctrl.doTeamChange(p, team, false)
		}
	}
}

// SwapTeams swaps red and blue players and team scores (rcon swap_teams).
func (w *World) SwapTeams() { w.ctrl.swapTeams() }

// ShuffleTeams distributes the playing clients randomly over both teams
// using the world's seeded PRNG (rcon shuffle_teams).
func (w *World) ShuffleTeams() {
	if !w.ctrl.isTeamplay() {
		return
	}
	var ids [MaxClients]int
	n := 0
	for _, p := range w.players {
		if p != nil && p.team != TeamSpectators {
			ids[n] = p.cid
			n++
		}
	}
	w.sendGameMsg(GameMsgTeamShuffle, -1)
	for i := n; i > 1; i-- {
		r := w.rng.intn(i)
		ids[r], ids[i-1] = ids[i-1], ids[r]
	}
	odd := 0
	if n%2 != 0 {
		odd = w.rng.intn(2)
	}
	for i := 0; i < n; i++ {
		team := TeamBlue
		if i < (n+odd)/2 {
			team = TeamRed
		}
		w.ctrl.doTeamChange(w.players[ids[i]], team, false)
	}
}

// LockTeams forbids (true) or allows team changes other than to the
// spectators (rcon lock_teams).
func (w *World) LockTeams(lock bool) { w.lockTeams = lock }

// TeamsLocked reports whether teams are locked (for Sv_ServerSettings).
func (w *World) TeamsLocked() bool { return w.lockTeams }

// ForceTeamBalance balances the teams now (rcon force_teambalance).
// Survival modes balance only when a round starts.
func (w *World) ForceTeamBalance() {
	if !w.ctrl.isSurvival() {
		w.ctrl.doTeamBalance()
	}
}

// Pause pauses the game for seconds (-1 = until resumed) or, with 0, ends
// the pause through a countdown (rcon pause with an argument).
func (w *World) Pause(seconds int) {
	w.ctrl.setGameState(statePaused, int32(min(max(seconds, -1), 1000)))
}

// TogglePause pauses an unpaused game indefinitely and resumes a paused one
// (rcon pause without an argument).
func (w *World) TogglePause() {
	if w.ctrl.isGamePaused() {
		w.Pause(0)
	} else {
		w.Pause(timerInfinite)
	}
}

// Restart starts a new match after warmupSeconds of warmup (0 = at once,
// -1 = infinite warmup) (rcon restart).
func (w *World) Restart(warmupSeconds int) {
	w.ctrl.setGameState(stateWarmupUser, int32(min(max(warmupSeconds, -1), 1000)))
}

// SetRules changes the game rules of a running world, as the reference's
// settings take effect when set on its console: every field of cfg except
// those read only when a map is loaded (GameType, Warmup, Powerups,
// MatchesPerMap and MaxClients keep their values). A changed score or time
// limit is announced with Sv_GameInfo, as the reference's CheckGameInfo.
// PlayerSlots below 0 is 0, as in New.
func (w *World) SetRules(cfg Config) {
	old := w.GameInfo()
	cfg.GameType, cfg.Warmup, cfg.Powerups = w.cfg.GameType, w.cfg.Warmup, w.cfg.Powerups
	cfg.MatchesPerMap, cfg.MaxClients = w.cfg.MatchesPerMap, w.cfg.MaxClients
	cfg.PlayerSlots = max(cfg.PlayerSlots, 0)
	w.cfg = cfg
	if w.GameInfo() != old {
		w.emitGameInfo(-1)
	}
}
