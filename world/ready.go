package world

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
		if p != nil && p.team != TeamSpectators && (ready || !p.deadSpecMode) {
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
	if p == nil || !p.ingame || (p.lastReadyChange != 0 && p.lastReadyChange+tickSpeed > w.tick) {
		return
	}
	p.lastReadyChange = w.tick
	c := &w.ctrl
	if !w.cfg.PlayerReadyMode || p.team == TeamSpectators || p.deadSpecMode {
		return
	}
	p.ready = !p.ready
	if c.state == stateRunning && !p.ready {
		c.setGameState(statePaused, timerInfinite)
		w.sendGameMsg(GameMsgGamePaused, -1, int32(cid))
	}
	c.checkReadyStates(-1)
}
