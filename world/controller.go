package world

// Game states of the controller (IGS_*).
const (
	stateWarmupGame     = iota // waiting for enough players (infinite)
	stateWarmupUser            // sv_warmup timer
	stateStartCountdown        // countdown before the match starts or resumes
	statePaused                // game paused
	stateRunning               // game running
	stateEndMatch              // match over, 10 s score screen
	stateEndRound              // survival modes only: 5 s between rounds
)

const (
	timerInfinite = -1
	timerEnd      = 10 // seconds of the end-of-match screen
	tbalanceCheck = -2
	tbalanceOK    = -1
)

// controller is the game controller shared by DM, TDM, CTF, LMS and LTS
// (IGameController with the mode-specific overrides).
type controller struct {
	w              *World
	gameType       GameType
	gameFlags      int32
	state          int
	stateTimer     int32
	gameStartTick  int32
	matchCount     int
	roundCount     int // rounds played in this match (survival modes)
	sentMatch      int // match_current last announced in Sv_GameInfo
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
	case GameLMS:
		c.gameFlags = GameFlagSurvival
	case GameLTS:
		c.gameFlags = GameFlagTeams | GameFlagSurvival
	}
	c.unbalancedTick = tbalanceOK
	c.sentMatch = 1
	c.state = stateRunning
	c.stateTimer = timerInfinite
	c.gameStartTick = w.tick
	if w.cfg.Warmup != 0 {
		c.setGameState(stateWarmupUser, int32(w.cfg.Warmup))
	} else {
		c.setGameState(stateWarmupGame, timerInfinite)
	}
}

// GameRunning reports whether a game is running (not in warmup, countdown,
// pause or at a round or match end).
func (w *World) GameRunning() bool { return w.ctrl.state == stateRunning }

func (c *controller) isTeamplay() bool { return c.gameFlags&GameFlagTeams != 0 }
func (c *controller) isSurvival() bool { return c.gameFlags&GameFlagSurvival != 0 }
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
// "TDM", "CTF", "LMS", "LTS").
func (w *World) GameTypeName() string { return w.cfg.GameType.Name() }

// Name returns the game type string of the server info ("DM", "TDM",
// "CTF", "LMS", "LTS"; anything unknown is DM).
func (t GameType) Name() string {
	switch t {
	case GameTDM:
		return "TDM"
	case GameCTF:
		return "CTF"
	case GameLMS:
		return "LMS"
	case GameLTS:
		return "LTS"
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
				c.enableRespawn()
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
				c.enableRespawn()
				w.paused = false
			} else {
				c.startMatch()
			}
		}
	case stateStartCountdown:
		if c.state == stateRunning || c.state == statePaused || c.state == stateStartCountdown {
			if w.cfg.Countdown == 0 && c.isSurvival() {
				c.state = state
				c.stateTimer = survivalCountdown * tickSpeed
				w.paused = true
			} else if w.cfg.Countdown > 0 {
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
		if state == stateEndRound && c.doWincheckMatch() {
			break
		}
		if c.state == stateRunning || c.state == stateEndMatch || c.state == stateEndRound || c.state == statePaused {
			c.state = state
			c.stateTimer = timer * tickSpeed
			c.suddenDeath = false
			w.paused = true
		}
	}
}

func (c *controller) endMatch() { c.setGameState(stateEndMatch, timerEnd) }
func (c *controller) endRound() { c.setGameState(stateEndRound, timerEnd/2) }

func (c *controller) resetGame() {
	c.w.resetRequested = true
	c.setGameState(stateRunning, 0)
	c.gameStartTick = c.w.tick
	c.suddenDeath = false
	c.checkGameInfo()
	c.doTeamBalance()
}

// checkGameInfo keeps the match counter (always match 1 without a map
// rotation) and tells every client when the current match number changed.
func (c *controller) checkGameInfo() {
	if c.w.cfg.MatchesPerMap == 0 {
		c.matchCount = 0
	}
	if c.matchCount+1 != c.sentMatch {
		c.sentMatch = c.matchCount + 1
		c.w.emitGameInfo(-1)
	}
}

func (c *controller) startMatch() {
	c.resetGame()
	c.roundCount = 0
	c.teamScore = [2]int{}
	if c.hasEnoughPlayers() {
		c.setGameState(stateStartCountdown, 0)
	} else {
		c.setGameState(stateWarmupGame, timerInfinite)
	}
}

// onReset is IGameController::OnReset: everybody may respawn again and
// does so after 0.5 s; the scores are reset at the first round of a match
// (every match in DM/TDM/CTF).
func (c *controller) onReset() {
	w := c.w
	for _, p := range w.players {
		if p == nil {
			continue
		}
		p.respawnDisabled = false
		p.respawn()
		p.respawnTick = w.tick + tickSpeed/2
		if c.roundCount == 0 {
			p.score = 0
			p.scoreStartTick = w.tick
		}
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
			case stateEndRound:
				c.startRound()
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
	if c.isTeamplay() && !c.isSurvival() {
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
		if c.isSurvival() {
			c.doWincheckRound()
		} else {
			c.doWincheckMatch()
		}
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
			} else if red != blue || c.isSurvival() {
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
	if c.isSurvival() && killer != nil && weapon != WeaponGame {
		for _, p := range w.players {
			if p != nil && p.deadSpecMode {
				p.updateDeadSpecMode()
			}
		}
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
