package world

import "twserver/world/vmath"

// startTeam is IGameController::GetStartTeam.
func (c *controller) startTeam() int {
	w := c.w
	if w.cfg.TournamentMode {
		return TeamSpectators
	}
	team := TeamRed
	if c.isTeamplay() && c.teamSize[TeamRed] > c.teamSize[TeamBlue] {
		team = TeamBlue
	}
	if c.teamSize[TeamRed]+c.teamSize[TeamBlue] < w.cfg.PlayerSlots {
		c.teamSize[team]++
		c.unbalancedTick = tbalanceCheck
		if c.state == stateWarmupGame && c.hasEnoughPlayers() {
			c.setGameState(stateWarmupGame, 0)
		}
		return team
	}
	return TeamSpectators
}

func (c *controller) canJoinTeam(team, notThis int) bool {
	if team == TeamSpectators {
		return true
	}
	mod := 0
	if p := c.w.player(notThis); p != nil && p.team != TeamSpectators {
		mod = -1
	}
	return mod+c.teamSize[TeamRed]+c.teamSize[TeamBlue] < c.w.cfg.PlayerSlots
}

func (c *controller) canChangeTeam(p *Player, join int) bool {
	if !c.isTeamplay() || join == TeamSpectators || c.w.cfg.TeambalanceTime == 0 {
		return true
	}
	count := c.teamSize
	count[join]++
	if p.team != TeamSpectators {
		count[join^1]--
	}
	return count[join]-count[join^1] < 2
}

func (c *controller) clampTeam(team int) int {
	if team < TeamRed {
		return TeamSpectators
	}
	if c.isTeamplay() {
		return team & 1
	}
	return TeamRed
}

// doTeamChange is IGameController::DoTeamChange.
func (c *controller) doTeamChange(p *Player, team int, chatMsg bool) {
	w := c.w
	team = c.clampTeam(team)
	if team == p.team {
		return
	}
	old := p.team
	p.setTeam(w, team)
	silent := int32(1)
	if chatMsg {
		silent = 0
	}
	w.emit(EvTeam, -1, int32(p.cid), int32(team), silent, p.teamChangeTick, int32(old))
	if old != TeamSpectators {
		c.teamSize[old]--
		c.unbalancedTick = tbalanceCheck
	}
	if team != TeamSpectators {
		c.teamSize[team]++
		c.unbalancedTick = tbalanceCheck
		if c.state == stateWarmupGame && c.hasEnoughPlayers() {
			c.setGameState(stateWarmupGame, 0)
		}
	}
	if team != TeamSpectators {
		p.ready = !c.isPlayerReadyMode()
		if c.isSurvival() {
			p.respawnDisabled = c.startRespawnState()
		}
	}
	w.loseProjectileOwner(p.cid)
	c.checkReadyStates(-1)
	if old == TeamSpectators {
		p.inactivity = 0
	}
}

func (c *controller) swapTeams() {
	if !c.isTeamplay() {
		return
	}
	w := c.w
	w.sendGameMsg(GameMsgTeamSwap, -1)
	for _, p := range w.players {
		if p != nil && p.team != TeamSpectators {
			c.doTeamChange(p, p.team^1, false)
		}
	}
	c.teamScore[0], c.teamScore[1] = c.teamScore[1], c.teamScore[0]
}

func (c *controller) checkTeamBalance() {
	if !c.isTeamplay() || c.w.cfg.TeambalanceTime == 0 {
		c.unbalancedTick = tbalanceOK
		return
	}
	if absInt(c.teamSize[TeamRed]-c.teamSize[TeamBlue]) >= 2 {
		if c.unbalancedTick <= tbalanceOK {
			c.unbalancedTick = c.w.tick
		}
	} else {
		c.unbalancedTick = tbalanceOK
	}
}

// doTeamBalance moves players from the bigger team, each time the one whose
// score rate keeps the team score rates closest.
func (c *controller) doTeamBalance() {
	w := c.w
	if !c.isTeamplay() || w.cfg.TeambalanceTime == 0 || absInt(c.teamSize[TeamRed]-c.teamSize[TeamBlue]) < 2 {
		return
	}
	var teamScore [2]float32
	var playerScore [MaxClients]float32
	for i, p := range w.players {
		if p != nil && p.team != TeamSpectators {
			playerScore[i] = float32(float32(p.score)*tickSpeed*60) / float32(w.tick-p.scoreStartTick)
			teamScore[p.team] += playerScore[i]
		}
	}
	bigger := TeamBlue
	if c.teamSize[TeamRed] > c.teamSize[TeamBlue] {
		bigger = TeamRed
	}
	num := absInt(c.teamSize[TeamRed]-c.teamSize[TeamBlue]) / 2
	for {
		var pick *Player
		diff := teamScore[bigger]
		for i, p := range w.players {
			if p == nil || !c.canBeMovedOnBalance(p) || p.team != bigger {
				continue
			}
			d := vmath.Abs((teamScore[bigger^1] + playerScore[i]) - (teamScore[bigger] - playerScore[i]))
			if pick == nil || d < diff {
				pick = p
				diff = d
			}
		}
		if pick != nil {
			last := pick.lastActionTick
			c.doTeamChange(pick, bigger^1, true)
			pick.lastActionTick = last
			pick.respawn()
			w.sendGameMsg(GameMsgTeamBalanceVictim, pick.cid, int32(pick.team))
		}
		num--
		if num <= 0 {
			break
		}
	}
	c.unbalancedTick = tbalanceOK
	w.sendGameMsg(GameMsgTeamBalance, -1)
}

func (c *controller) canBeMovedOnBalance(p *Player) bool {
	if c.gameType != GameCTF {
		return true
	}
	ch := p.character()
	if ch == nil {
		return true
	}
	for _, f := range c.w.flags {
		if f != nil && f.carrier == ch {
			return false
		}
	}
	return true
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
