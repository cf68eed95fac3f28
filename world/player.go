package world

import (
	"math"

	"twserver/world/vmath"
)

// PlayerInfo describes a client entering the game. Only Spectator and Bot
// affect the simulation; the strings and colours are kept for demo
// snapshots (De_ClientInfo).
type PlayerInfo struct {
	Spectator       bool // join as a spectator regardless of free slots
	Bot             bool // a bot (no connection): never kicked for inactivity, PLAYERFLAG_BOT in its PlayerInfo
	Name            string
	Clan            string
	Country         int32
	SkinPartNames   [6]string
	UseCustomColors [6]bool
	SkinPartColors  [6]int32
}

// Player is the per-client game state (the reference CPlayer).
type Player struct {
	// The fields a PlayerInfo item reads (every viewer's snapshot reads
	// every player's) come first, in the struct's first two cache lines.
	w           *World
	cid         int
	team        int
	score       int
	char        *Character // nil when none; may be dead until the next player tick
	spectatorID int
	playerFlags int32
	authed      bool
	ingame      bool // entered (EnterPlayer)
	ready       bool // m_IsReadyToPlay
	// respawnDisabled (survival modes): the player may not respawn within
	// the current round; deadSpecMode: it is dead and follows a player
	// still in the round.
	respawnDisabled bool
	deadSpecMode    bool
	info            PlayerInfo

	respawnTick    int32
	dieTick        int32
	scoreStartTick int32
	spawning       bool

	specMode     int
	specFlag     *Flag
	activeSwitch bool
	viewPos      vmath.Vec2

	activity       struct{ targetX, targetY int32 }
	lastActionTick int32
	teamChangeTick int32
	inactivity     int32

	lastSetTeam     int32
	lastKill        int32
	lastSetSpec     int32
	latencyCur      int32
	latencyMin      int32
	latencyAccMin   int32
	actLatency      [MaxClients]int32
	hasInput        bool
	pendingInput    Input
	kicked          bool // an EvKick was queued
	lastReadyChange int32
}

func (p *Player) character() *Character {
	if p.char != nil && p.char.alive {
		return p.char
	}
	return nil
}

func (w *World) player(cid int) *Player {
	if cid < 0 || cid >= MaxClients {
		return nil
	}
	return w.players[cid]
}

// AddPlayer puts client cid into the game at once: ConnectPlayer followed
// by EnterPlayer.
func (w *World) AddPlayer(cid int, info PlayerInfo) error {
	if err := w.ConnectPlayer(cid, info); err != nil {
		return err
	}
	return w.EnterPlayer(cid, info)
}

// ConnectPlayer creates the player of client cid when the client is ready
// (NETMSG_READY; the reference OnClientConnected). It picks the start team
// (spectators with info.Spectator, in tournament mode or when the player
// slots are full; the smaller team in team modes), which may start the match
// from warmup. Until EnterPlayer the player counts for teams and scores but
// is not simulated, snapped or fed with input.
func (w *World) ConnectPlayer(cid int, info PlayerInfo) error {
	if cid < 0 || cid >= MaxClients {
		return ErrBadClient
	}
	if w.players[cid] != nil {
		return ErrSlotInUse
	}
	p := &w.playerStore[cid]
	*p = Player{w: w, cid: cid, info: info}
	p.respawnTick = w.tick
	p.dieTick = w.tick
	p.scoreStartTick = w.tick
	p.spectatorID = -1
	p.lastActionTick = w.tick
	p.teamChangeTick = w.tick
	p.latencyAccMin = 1000
	// the start team is chosen before the player is visible (it may start
	// the match), as in the reference player constructor
	if info.Spectator {
		p.team = TeamSpectators
	} else {
		p.team = w.ctrl.startTeam()
	}
	p.ready = !w.ctrl.isPlayerReadyMode()
	p.respawnDisabled = w.ctrl.startRespawnState()
	w.players[cid] = p
	return nil
}

// EnterPlayer puts a connected client into the game (ENTERGAME; the
// reference OnClientEnter): it takes the names and skin from info (not its
// Spectator/Bot flags), schedules the first spawn and queues Sv_GameInfo for
// the client. The team is available from Team.
func (w *World) EnterPlayer(cid int, info PlayerInfo) error {
	p := w.player(cid)
	if p == nil {
		return ErrNoPlayer
	}
	p.setInfo(info)
	p.ingame = true
	p.respawn()
	w.emitGameInfo(cid)
	return nil
}

// SetPlayerInfo updates the names and skin of client cid (Cl_SkinChange);
// they only appear in demo snapshots.
func (w *World) SetPlayerInfo(cid int, info PlayerInfo) {
	if p := w.player(cid); p != nil {
		p.setInfo(info)
	}
}

func (p *Player) setInfo(info PlayerInfo) {
	info.Spectator, info.Bot = p.info.Spectator, p.info.Bot
	p.info = info
}

// Info returns the names and skin of client cid, and false when there is
// no such player.
func (w *World) Info(cid int) (PlayerInfo, bool) {
	if p := w.player(cid); p != nil {
		return p.info, true
	}
	return PlayerInfo{}, false
}

// IsBot reports whether client cid is a player that is a bot (Info's Bot
// without copying the whole info).
func (w *World) IsBot(cid int) bool {
	p := w.player(cid)
	return p != nil && p.info.Bot
}

// InGame reports whether client cid has entered the game.
func (w *World) InGame(cid int) bool {
	p := w.player(cid)
	return p != nil && p.ingame
}

// RemovePlayer removes client cid (the reference OnClientDrop): its character
// dies silently with WEAPON_GAME, spectators following it go to free view,
// its projectiles become team-owned, and team sizes are updated.
func (w *World) RemovePlayer(cid int) {
	p := w.player(cid)
	if p == nil {
		return
	}
	p.killCharacter(WeaponGame)
	if p.team != TeamSpectators {
		w.unfollow(cid)
		w.ctrl.teamSize[p.team]--
		w.ctrl.unbalancedTick = tbalanceCheck
	}
	w.loseProjectileOwner(cid)
	w.players[cid] = nil
	w.ctrl.checkReadyStates(cid)
	if p.char != nil {
		w.freeChar(p.char)
		p.char = nil
	}
}

// unfollow sends spectators that follow cid back to free view; dead
// spectators look for another player to follow.
func (w *World) unfollow(cid int) {
	for _, o := range w.players {
		if o != nil && o.specMode == SpecPlayer && o.spectatorID == cid {
			if o.deadSpecMode {
				o.updateDeadSpecMode()
			} else {
				o.specMode = SpecFreeview
				o.spectatorID = -1
			}
		}
	}
}

func (w *World) loseProjectileOwner(cid int) {
	for i := range w.projs {
		if w.projs[i].owner == cid {
			w.projs[i].loseOwner()
		}
	}
}

// HasPlayer reports whether client cid is in the game.
func (w *World) HasPlayer(cid int) bool { return w.player(cid) != nil }

// Team returns the team of client cid (TeamSpectators, TeamRed, TeamBlue);
// TeamSpectators when there is no such player.
func (w *World) Team(cid int) int {
	if p := w.player(cid); p != nil {
		return p.team
	}
	return TeamSpectators
}

// Score returns the score of client cid.
func (w *World) Score(cid int) int {
	if p := w.player(cid); p != nil {
		return p.score
	}
	return 0
}

// Alive reports whether client cid has a live character.
func (w *World) Alive(cid int) bool { return w.playerChar(cid) != nil }

// CharacterPos returns the true position of client cid's live character as
// of the last completed tick (the reference m_Pos: the quantized core
// position), and false when cid has no live character. Unlike the Character
// snapshot object, which carries a dead-reckoning core that may be up to 3 s
// old, it needs no reconstruction.
func (w *World) CharacterPos(cid int) (vmath.Vec2, bool) {
	if c := w.playerChar(cid); c != nil {
		return c.pos, true
	}
	return vmath.Vec2{}, false
}

// SetAuthed marks client cid as rcon-authenticated (PLAYERFLAG_ADMIN).
func (w *World) SetAuthed(cid int, authed bool) {
	if p := w.player(cid); p != nil {
		p.authed = authed
	}
}

// SetLatency records the engine's current ping of client cid in ms; the
// world keeps the per-second minimum as the reference does for PlayerInfo.
func (w *World) SetLatency(cid int, ms int) {
	if p := w.player(cid); p != nil {
		p.latencyCur = int32(ms)
	}
}

// LatencyDue reports whether the coming Tick takes the per-second minimum
// of the latencies given to SetLatency (PlayerInfo's latency).
func (w *World) LatencyDue() bool { return (w.tick+1)%tickSpeed == 0 }

// PendingLatency returns the latency in ms the next per-second update will
// show for client cid if no other SetLatency comes before it: the minimum
// of the values since the last update and the current one (0 without such
// a player). The server records it before the ticks of LatencyDue.
func (w *World) PendingLatency(cid int) int32 {
	if p := w.player(cid); p != nil {
		return min(p.latencyAccMin, p.latencyCur)
	}
	return 0
}

// SetPendingLatency makes ms the latency of client cid as of now, with no
// lower value earlier in the current second: the replay of a recorded
// PendingLatency, so its per-second updates show what the server showed.
func (w *World) SetPendingLatency(cid int, ms int32) {
	if p := w.player(cid); p != nil {
		p.latencyCur, p.latencyAccMin = ms, ms
	}
}

// ClearLatencySamples sets to 0 what every player slot holds of the
// latencies measured since the last per-second update (the values the next
// one reads), in players and removed slots alike: a teehistorian records
// latencies only as the updates show them (PendingLatency), so a replay's
// world holds other samples; a replay clears them in both worlds it
// compares (replay: checkpoints).
func (w *World) ClearLatencySamples() {
	for i := range w.playerStore {
		w.playerStore[i].latencyCur, w.playerStore[i].latencyAccMin = 0, 0
	}
}

// SetInput queues the predicted input for the next Tick (the input the client
// stamped for that tick). It drives the character's movement. Invalid inputs
// are dropped. While the world is paused queued inputs are discarded.
func (w *World) SetInput(cid int, in Input) {
	p := w.player(cid)
	if p == nil || !p.ingame || !in.Valid() {
		return
	}
	p.pendingInput = in
	p.hasInput = true
}

// onPredictedInput is CPlayer::OnPredictedInput.
func (p *Player) onPredictedInput(in *Input) {
	if p.playerFlags&PlayerFlagChatting != 0 && in.PlayerFlags&PlayerFlagChatting != 0 {
		return
	}
	if c := p.char; c != nil {
		c.onPredictedInput(in)
	}
}

// DirectInput handles an input as soon as it arrives (between ticks): player
// flags, weapon switching and firing, respawn requests of dead players and
// spectator target switching. Invalid inputs are dropped.
func (w *World) DirectInput(cid int, in Input) {
	p := w.player(cid)
	if p == nil || !p.ingame || !in.Valid() {
		return
	}
	if w.paused {
		p.playerFlags = in.PlayerFlags
		return
	}
	if in.PlayerFlags&PlayerFlagChatting != 0 {
		if p.playerFlags&PlayerFlagChatting != 0 {
			return
		}
		if p.char != nil {
			p.char.resetInput()
		}
		p.playerFlags = in.PlayerFlags
		return
	}
	p.playerFlags = in.PlayerFlags
	if p.char != nil {
		p.char.onDirectInput(&in)
	}
	if p.char == nil && p.team != TeamSpectators && in.Fire&1 != 0 {
		p.respawn()
	}
	if p.char == nil && p.team == TeamSpectators && in.Fire&1 != 0 {
		if !p.activeSwitch {
			p.activeSwitch = true
			if p.specMode == SpecFreeview {
				ch := w.closestChar(p.viewPos, 6*32)
				fl := w.closestFlag(p.viewPos, 6*32)
				if ch != nil || fl != nil {
					if ch == nil || (fl != nil && vmath.Distance(p.viewPos, fl.pos) < vmath.Distance(p.viewPos, ch.pos)) {
						p.specMode = SpecFlagRed
						if fl.team == TeamBlue {
							p.specMode = SpecFlagBlue
						}
						p.specFlag = fl
						p.spectatorID = -1
					} else {
						p.specMode = SpecPlayer
						p.specFlag = nil
						p.spectatorID = ch.p.cid
					}
				}
			} else {
				p.specMode = SpecFreeview
				p.specFlag = nil
				p.spectatorID = -1
			}
		}
	} else if p.activeSwitch {
		p.activeSwitch = false
	}
	if in.Direction != 0 || p.activity.targetX != in.TargetX || p.activity.targetY != in.TargetY ||
		in.Jump != 0 || in.Fire&1 != 0 || in.Hook != 0 {
		p.activity.targetX = in.TargetX
		p.activity.targetY = in.TargetY
		p.lastActionTick = w.tick
		p.inactivity = 0
	}
}

// SetTeam handles a client's team change request (Cl_SetTeam) with the
// reference's checks: not while paused (except on the first countdown tick),
// not to the same team, at most once per 3 s with spam protection, not before
// the 3 s cooldown since the last change, locked teams (LockTeams), free
// player slots, and team balance.
// It reports whether the team was changed.
func (w *World) SetTeam(cid, team int) bool {
	p := w.player(cid)
	if p == nil || !p.ingame || !w.ctrl.teamChangeAllowed() || team < TeamSpectators || team > TeamBlue {
		return false
	}
	if p.team == team ||
		(w.cfg.SpamProtection && p.lastSetTeam != 0 && p.lastSetTeam+tickSpeed*3 > w.tick) ||
		(team != TeamSpectators && w.lockTeams) || p.teamChangeTick > w.tick {
		return false
	}
	p.lastSetTeam = w.tick
	if !w.ctrl.canJoinTeam(team, cid) || !w.ctrl.canChangeTeam(p, team) {
		return false
	}
	p.teamChangeTick = w.tick + tickSpeed*3
	w.ctrl.doTeamChange(p, team, true)
	return true
}

// Kill handles Cl_Kill: the character dies with WEAPON_SELF unless the world
// is paused or the previous request was less than 3 s ago.
func (w *World) Kill(cid int) {
	p := w.player(cid)
	if p == nil || !p.ingame || w.paused {
		return
	}
	if p.lastKill != 0 && p.lastKill+tickSpeed*3 > w.tick {
		return
	}
	p.lastKill = w.tick
	p.killCharacter(WeaponSelf)
}

// SetSpectatorMode handles Cl_SetSpectatorMode for a spectator: free view,
// following a playing client, or following a flag. It returns false when
// the request is invalid; the caller then sends GAMEMSG_SPEC_INVALIDID (the
// world queues it too). Ignored (true) while paused or when sent within 1 s
// of the previous request with spam protection.
func (w *World) SetSpectatorMode(cid, mode, specID int) bool {
	p := w.player(cid)
	if p == nil || !p.ingame || w.paused {
		return true
	}
	if w.cfg.SpamProtection && p.lastSetSpec != 0 && p.lastSetSpec+tickSpeed > w.tick {
		return true
	}
	p.lastSetSpec = w.tick
	if !p.setSpectatorID(w, mode, specID) {
		w.sendGameMsg(GameMsgSpecInvalidID, cid)
		return false
	}
	return true
}

func (p *Player) setSpectatorID(w *World, mode, specID int) bool {
	if mode < SpecFreeview || mode > SpecFlagBlue {
		return false
	}
	if (mode == p.specMode && mode != SpecPlayer) ||
		(p.specMode == SpecPlayer && mode == SpecPlayer && (specID == -1 || p.spectatorID == specID || p.cid == specID)) {
		return false
	}
	if p.team != TeamSpectators {
		// a dead spectator may follow a team mate still in the round
		if !p.deadSpecMode || mode != SpecPlayer {
			return false
		}
		if o := w.player(specID); o == nil || !p.deadCanFollow(o) {
			return false
		}
		p.specMode = mode
		p.specFlag = nil
		p.spectatorID = specID
		return true
	}
	if mode == SpecPlayer {
		o := w.player(specID)
		if o == nil || o.team == TeamSpectators {
			return false
		}
	}
	if mode == SpecFlagRed || mode == SpecFlagBlue {
		team := TeamRed
		if mode == SpecFlagBlue {
			team = TeamBlue
		}
		f := w.flags[team]
		if f == nil {
			return false
		}
		p.specFlag = f
		p.spectatorID = -1
		if f.carrier != nil {
			p.spectatorID = f.carrier.p.cid
		}
		p.specMode = mode
		return true
	}
	p.specFlag = nil
	p.specMode = mode
	p.spectatorID = specID
	if mode == SpecFreeview {
		p.spectatorID = -1
	}
	return true
}

// killCharacter is CPlayer::KillCharacter.
func (p *Player) killCharacter(weapon int) {
	if p.char != nil {
		if p.char.alive {
			p.char.die(p.cid, weapon)
		}
		p.char.w.freeChar(p.char)
		p.char = nil
	}
}

// respawn is CPlayer::Respawn: a player that may not respawn within the
// survival round becomes a dead spectator instead.
func (p *Player) respawn() {
	if p.respawnDisabled && p.team != TeamSpectators {
		p.deadSpecMode = true
		p.ready = true
		p.specMode = SpecPlayer
		p.updateDeadSpecMode()
		return
	}
	p.deadSpecMode = false
	if p.team != TeamSpectators {
		p.spawning = true
	}
}

// setTeam is CPlayer::SetTeam.
func (p *Player) setTeam(w *World, team int) {
	p.killCharacter(WeaponGame)
	p.team = team
	p.lastActionTick = w.tick
	p.specMode = SpecFreeview
	p.spectatorID = -1
	p.specFlag = nil
	p.deadSpecMode = false
	p.respawnTick = w.tick + tickSpeed/2
	if team == TeamSpectators {
		w.unfollow(p.cid)
	}
}

// tick is CPlayer::Tick.
func (p *Player) tick() {
	w := p.w
	if p.latencyCur < p.latencyAccMin {
		p.latencyAccMin = p.latencyCur
	}
	if w.tick%tickSpeed == 0 {
		p.latencyMin = p.latencyAccMin
		p.latencyAccMin = 1000
	}
	if p.char != nil && !p.char.alive {
		w.freeChar(p.char)
		p.char = nil
	}
	if !w.ctrl.isGamePaused() {
		if p.char == nil && p.team == TeamSpectators && p.specMode == SpecFreeview {
			p.viewPos.X -= vmath.Clamp(p.viewPos.X-float32(p.activity.targetX), -500, 500)
			p.viewPos.Y -= vmath.Clamp(p.viewPos.Y-float32(p.activity.targetY), -400, 400)
		}
		if p.char == nil && p.dieTick+tickSpeed*3 <= w.tick && !p.deadSpecMode {
			p.respawn()
		}
		if p.char == nil && p.team == TeamSpectators && p.specFlag != nil {
			p.spectatorID = -1
			if p.specFlag.carrier != nil {
				p.spectatorID = p.specFlag.carrier.p.cid
			}
		}
		if p.char != nil {
			if p.char.alive {
				p.viewPos = p.char.pos
			}
		} else if p.spawning && p.respawnTick <= w.tick {
			p.tryRespawn(w)
		}
		if !p.deadSpecMode && p.lastActionTick != w.tick {
			p.inactivity++
		}
	} else {
		p.respawnTick++
		p.dieTick++
		p.scoreStartTick++
		p.lastActionTick++
		if p.teamChangeTick < math.MaxInt32 { // a saturated ForceTeamDelay
			p.teamChangeTick++
		}
	}
}

// postTick is CPlayer::PostTick.
func (p *Player) postTick() {
	w := p.w
	if p.playerFlags&PlayerFlagScoreboard != 0 {
		for i, o := range w.players {
			if o != nil && o.team != TeamSpectators {
				p.actLatency[i] = o.latencyMin
			}
		}
	}
	if p.spectating() && p.specMode != SpecFreeview {
		if p.specFlag != nil {
			p.viewPos = p.specFlag.pos
		} else if o := w.player(p.spectatorID); o != nil {
			p.viewPos = o.viewPos
		}
	}
}

func (p *Player) tryRespawn(w *World) {
	pos, ok := w.ctrl.canSpawn(p.team, p.cid)
	if !ok {
		return
	}
	p.spawning = false
	c := &w.charStore[p.cid]
	c.spawn(p, pos)
	p.char = c
	w.createPlayerSpawn(pos)
}
