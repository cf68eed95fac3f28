package world

// Game states of the controller (IGS_*).
const (
	stateWarmupGame     = iota // waiting for enough players (infinite)
	stateWarmupUser            // sv_warmup timer
	stateStartCountdown        // countdown before the match starts or resumes
	statePaused                // game paused
	stateRunning               // game running
	stateEndMatch              // match over, 10 s score screen
	stateEndRound              // survival modes only (unused)
)

const (
	timerInfinite = -1
	timerEnd      = 10 // seconds of the end-of-match screen
	tbalanceCheck = -2
	tbalanceOK    = -1
)

// controller is the game controller shared by DM, TDM and CTF
// (IGameController with the mode-specific overrides).
type controller struct {
	w              *World
	gameType       GameType
	gameFlags      int32
	state          int
	stateTimer     int32
	gameStartTick  int32
	matchCount     int
	suddenDeath    bool
	teamScore      [2]int
	teamSize       [2]int
	unbalancedTick int32
}

func (c *controller) init(w *World) {
	c.w = w
	c.gameType = w.cfg.GameType
	switch c.gameType {
	case GameTDM:
		c.gameFlags = GameFlagTeams
	case GameCTF:
		c.gameFlags = GameFlagTeams | GameFlagFlags
	}
	c.unbalancedTick = tbalanceOK
	c.state = stateRunning
	c.stateTimer = timerInfinite
	c.gameStartTick = w.tick
	if w.cfg.Warmup != 0 {
		c.setGameState(stateWarmupUser, int32(w.cfg.Warmup))
	} else {
		c.setGameState(stateWarmupGame, timerInfinite)
	}
}

func (c *controller) isTeamplay() bool { return c.gameFlags&GameFlagTeams != 0 }
func (c *controller) isGamePaused() bool {
	return c.state == statePaused || c.state == stateStartCountdown
}
func (c *controller) hasEnoughPlayers() bool {
	if c.isTeamplay() {
		return c.teamSize[TeamRed] > 0 && c.teamSize[TeamBlue] > 0
	}
	return c.teamSize[TeamRed] > 1
}

func (c *controller) teamChangeAllowed() bool {
	return !c.w.paused || (c.state == stateStartCountdown && c.gameStartTick == c.w.tick)
}

// GameTypeName returns the game type string of the server info ("DM",
// "TDM", "CTF").
func (w *World) GameTypeName() string {
	switch w.cfg.GameType {
	case GameTDM:
		return "TDM"
	case GameCTF:
		return "CTF"
	}
	return "DM"
}

// GameInfo returns the fields of Sv_GameInfo: game flags, score limit, time
// limit, match number (0 without a map rotation) and current match.
func (w *World) GameInfo() [5]int32 {
	return [5]int32{w.ctrl.gameFlags, int32(w.cfg.ScoreLimit), int32(w.cfg.TimeLimit),
		int32(w.cfg.MatchesPerMap), int32(w.ctrl.matchCount + 1)}
}

func (w *World) emitGameInfo(to int) {
	gi := w.GameInfo()
	w.emit(EvGameInfo, to, gi[:]...)
}

func (c *controller) setGameState(state int, timer int32) {
	w := c.w
	switch state {
	case stateWarmupGame:
		if c.state == stateRunning || c.state == stateWarmupGame || c.state == stateWarmupUser {
			if timer == timerInfinite {
				c.state = state
				c.stateTimer = timerInfinite
			} else if timer == 0 {
				c.startMatch()
			}
		}
	case stateWarmupUser:
		if c.state == stateRunning || c.state == statePaused || c.state == stateWarmupGame || c.state == stateWarmupUser {
			if timer != 0 {
				c.state = state
				if timer < 0 {
					c.stateTimer = timerInfinite
					if w.cfg.PlayerReadyMode {
						c.setPlayersReadyState(false)
					}
				} else {
					c.stateTimer = timer * tickSpeed
				}
				w.paused = false
			} else {
				c.startMatch()
			}
		}
	case stateStartCountdown:
		if c.state == stateRunning || c.state == statePaused || c.state == stateStartCountdown {
			if w.cfg.Countdown > 0 {
				c.state = state
				c.stateTimer = int32(w.cfg.Countdown) * tickSpeed
				w.paused = true
			} else {
				c.setGameState(stateRunning, 0)
			}
		}
	case stateRunning:
		c.state = state
		c.stateTimer = timerInfinite
		c.setPlayersReadyState(true)
		w.paused = false
	case statePaused:
		if c.state == stateRunning || c.state == statePaused || c.state == stateWarmupGame {
			if timer != 0 {
				if timer < 0 {
					c.stateTimer = timerInfinite
					c.setPlayersReadyState(false)
				} else {
					c.stateTimer = timer * tickSpeed
				}
				c.state = state
				w.paused = true
			} else {
				c.setGameState(stateStartCountdown, 0)
			}
		}
	case stateEndMatch, stateEndRound:
		if c.state == stateRunning || c.state == stateEndMatch || c.state == stateEndRound || c.state == statePaused {
			c.state = state
			c.stateTimer = timer * tickSpeed
			c.suddenDeath = false
			w.paused = true
		}
	}
}

func (c *controller) endMatch() { c.setGameState(stateEndMatch, timerEnd) }

func (c *controller) resetGame() {
	c.w.resetRequested = true
	c.setGameState(stateRunning, 0)
	c.gameStartTick = c.w.tick
	c.suddenDeath = false
	c.doTeamBalance()
}

func (c *controller) startMatch() {
	c.resetGame()
	c.teamScore = [2]int{}
	if c.hasEnoughPlayers() {
		c.setGameState(stateStartCountdown, 0)
	} else {
		c.setGameState(stateWarmupGame, timerInfinite)
	}
}

// onReset is IGameController::OnReset: everybody respawns after 0.5 s with
// the score reset (matches have a single round in DM/TDM/CTF).
func (c *controller) onReset() {
	w := c.w
	for _, p := range w.players {
		if p == nil {
			continue
		}
		p.respawn()
		p.respawnTick = w.tick + tickSpeed/2
		p.score = 0
		p.scoreStartTick = w.tick
		p.ready = true
	}
}

// tick is IGameController::Tick plus the CTF flag logic.
func (c *controller) tick() {
	w := c.w
	if c.state != stateRunning {
		if c.stateTimer > 0 {
			c.stateTimer--
		}
		if c.stateTimer == 0 {
			switch c.state {
			case stateWarmupUser:
				c.setGameState(stateWarmupUser, 0)
			case stateStartCountdown:
				c.setGameState(stateRunning, 0)
			case statePaused:
				c.setGameState(statePaused, 0)
			case stateEndMatch:
				if w.cfg.MatchesPerMap > 0 && c.matchCount >= w.cfg.MatchesPerMap-1 {
					w.emit(EvCycleMap, -1)
					c.matchCount = -1
				}
				if w.cfg.MatchSwap {
					c.swapTeams()
				}
				c.matchCount++
				c.startMatch()
			}
		} else if c.state == stateStartCountdown || c.state == statePaused {
			c.gameStartTick++
		} else if c.state == stateWarmupUser && c.stateTimer == timerInfinite && !w.cfg.PlayerReadyMode {
			c.setGameState(stateWarmupUser, 0)
		}
	}
	if c.isTeamplay() {
		switch c.unbalancedTick {
		case tbalanceCheck:
			c.checkTeamBalance()
		case tbalanceOK:
		default:
			if w.tick > c.unbalancedTick+int32(w.cfg.TeambalanceTime)*tickSpeed*60 {
				c.doTeamBalance()
			}
		}
	}
	c.doActivityCheck()
	if (c.state == stateRunning || c.state == statePaused) && !w.resetRequested {
		c.doWincheckMatch()
	}
	if c.gameType == GameCTF {
		c.tickCTF()
	}
}

func (c *controller) doWincheckMatch() bool {
	w := c.w
	timeUp := w.cfg.TimeLimit > 0 && w.tick-c.gameStartTick >= int32(w.cfg.TimeLimit)*tickSpeed*60
	if c.isTeamplay() {
		red, blue := c.teamScore[TeamRed], c.teamScore[TeamBlue]
		if (w.cfg.ScoreLimit > 0 && (red >= w.cfg.ScoreLimit || blue >= w.cfg.ScoreLimit)) || timeUp {
			if c.gameType == GameCTF && c.suddenDeath {
				if red/100 != blue/100 {
					c.endMatch()
					return true
				}
			} else if red != blue {
				c.endMatch()
				return true
			} else {
				c.suddenDeath = true
			}
		}
		return false
	}
	top, topCount := 0, 0
	for _, p := range w.players {
		if p == nil {
			continue
		}
		if p.score > top {
			top = p.score
			topCount = 1
		} else if p.score == top {
			topCount++
		}
	}
	if (w.cfg.ScoreLimit > 0 && top >= w.cfg.ScoreLimit) || timeUp {
		if topCount == 1 {
			c.endMatch()
			return true
		}
		c.suddenDeath = true
	}
	return false
}

// onCharacterDeath does the scoring of a death and returns mode_special for
// the kill message.
func (c *controller) onCharacterDeath(victim *Character, killer *Player, weapon int) int {
	w := c.w
	vp := victim.p
	if killer != nil && weapon != WeaponGame {
		if killer == vp {
			vp.score--
		} else if c.isTeamplay() && vp.team == killer.team {
			killer.score--
		} else {
			killer.score++
		}
	}
	if weapon == WeaponSelf {
		vp.respawnTick = w.tick + tickSpeed*3
	}
	special := 0
	switch c.gameType {
	case GameTDM:
		if killer != nil && weapon != WeaponGame {
			if killer == vp || killer.team == vp.team {
				c.teamScore[killer.team&1]--
			} else {
				c.teamScore[killer.team&1]++
			}
		}
		vp.respawnTick = max(vp.respawnTick, w.tick+tickSpeed*int32(w.cfg.RespawnDelayTDM))
	case GameCTF:
		for _, f := range w.flags {
			if f == nil {
				continue
			}
			if killer != nil && killer.character() != nil && f.carrier == killer.character() {
				special |= 2
			}
			if f.carrier == victim {
				w.sendGameMsg(GameMsgCTFDrop, -1)
				f.drop(w)
				if killer != nil && killer.team != vp.team {
					killer.score++
				}
				special |= 1
			}
		}
	}
	return special
}

func (c *controller) isFriendlyFire(cid1, cid2 int) bool {
	if cid1 == cid2 || !c.isTeamplay() {
		return false
	}
	p1, p2 := c.w.player(cid1), c.w.player(cid2)
	if p1 == nil || p2 == nil {
		return false
	}
	return !c.w.cfg.TeamDamage && p1.team == p2.team
}

func (c *controller) isFriendlyTeamFire(t1, t2 int) bool {
	return c.isTeamplay() && !c.w.cfg.TeamDamage && t1 == t2
}

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
	w.emit(EvTeam, -1, int32(p.cid), int32(team), silent, p.teamChangeTick)
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
			d := abs32((teamScore[bigger^1] + playerScore[i]) - (teamScore[bigger] - playerScore[i]))
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

// doActivityCheck handles players without input activity for
// Config.InactiveKickTime minutes (IGameController::DoActivityCheck).
func (c *controller) doActivityCheck() {
	w := c.w
	if w.cfg.InactiveKickTime == 0 {
		return
	}
	limit := int32(w.cfg.InactiveKickTime) * tickSpeed * 60
	for _, p := range w.players {
		if p == nil || p.info.Bot || p.authed || p.kicked || p.inactivity <= limit ||
			(p.team == TeamSpectators && w.cfg.InactiveKick <= 0) {
			continue
		}
		if p.team == TeamSpectators {
			if w.cfg.InactiveKickSpec {
				w.kick(p)
			}
			continue
		}
		switch w.cfg.InactiveKick {
		case 1:
			c.doTeamChange(p, TeamSpectators, true)
		case 2:
			specs := 0
			for _, o := range w.players {
				if o != nil && o.team == TeamSpectators {
					specs++
				}
			}
			if specs >= w.cfg.MaxClients-w.cfg.PlayerSlots {
				w.kick(p)
			} else {
				c.doTeamChange(p, TeamSpectators, true)
			}
		case 3:
			w.kick(p)
		}
	}
}

// kick asks the server (once) to drop p.
func (w *World) kick(p *Player) {
	p.kicked = true
	w.emit(EvKick, p.cid)
}

// isPlayerReadyMode reports whether the game waits for players' ready
// states (sv_player_ready_mode during an infinite warmup or pause).
func (c *controller) isPlayerReadyMode() bool {
	return c.w.cfg.PlayerReadyMode && c.stateTimer == timerInfinite &&
		(c.state == stateWarmupUser || c.state == statePaused)
}

func (c *controller) setPlayersReadyState(ready bool) {
	for _, p := range c.w.players {
		if p != nil && p.team != TeamSpectators {
			p.ready = ready
		}
	}
}

// playersReady reports whether every playing client except without is ready.
func (c *controller) playersReady(without int) bool {
	for _, p := range c.w.players {
		if p != nil && p.cid != without && p.team != TeamSpectators && !p.ready {
			return false
		}
	}
	return true
}

// checkReadyStates ends a ready-mode warmup or pause once everybody is
// ready (IGameController::CheckReadyStates).
func (c *controller) checkReadyStates(without int) {
	if !c.w.cfg.PlayerReadyMode {
		return
	}
	switch c.state {
	case stateWarmupUser:
		if c.playersReady(without) {
			c.setGameState(stateWarmupUser, 0)
		}
	case statePaused:
		if c.playersReady(without) {
			c.setGameState(statePaused, 0)
		}
	}
}

// ReadyChange handles Cl_ReadyChange: with Config.PlayerReadyMode a playing
// client toggles its ready state; un-readying pauses a running game
// (GAMEMSG_GAME_PAUSED), and the warmup or pause ends when all are ready.
// Requests within 1 s of the previous one are ignored.
func (w *World) ReadyChange(cid int) {
	p := w.player(cid)
	if p == nil || (p.lastReadyChange != 0 && p.lastReadyChange+tickSpeed > w.tick) {
		return
	}
	p.lastReadyChange = w.tick
	c := &w.ctrl
	if !w.cfg.PlayerReadyMode || p.team == TeamSpectators {
		return
	}
	p.ready = !p.ready
	if c.state == stateRunning && !p.ready {
		c.setGameState(statePaused, timerInfinite)
		w.sendGameMsg(GameMsgGamePaused, -1, int32(cid))
	}
	c.checkReadyStates(-1)
}
