package world

import (
	"math/bits"

	"twserver/snap"
	"twserver/world/vmath"
)

// SnapBuilder receives snapshot items; *snap.Builder implements it.
type SnapBuilder interface {
	// NewItem adds an item and returns its zeroed data to fill.
	NewItem(typ, id uint16, size int) ([]int32, error)
}

// Snap adds the 0.7.5 snapshot items for client viewer to b: projectiles
// and lasers (newest first), then in key order (type, then id) pickups,
// flags, the controller objects (GameData, GameDataTeam in team modes,
// De_GameInfo for demos, GameDataFlag in CTF), characters, for every player
// PlayerInfo (and De_ClientInfo for demos), SpectatorInfo for the viewer
// itself when it spectates, and the events within 1500 units whose client
// mask contains the viewer. Entities outside the viewer's view are skipped;
// viewer -1 builds the demo snapshot that sees everything. viewer must be
// an in-game player (EnterPlayer) or -1. The key order lets a builder keep
// the items as they come instead of sorting them (snap.Builder does).
//
// Snap only reads the world, so snapshots for several viewers may be built
// concurrently between ticks. Like the reference, an item the builder
// refuses (snapshot full) is left out and building goes on; Snap returns the
// first such error.
func (w *World) Snap(viewer int, b SnapBuilder) error { return w.snap(nil, viewer, b, nil) }

// snap is Snap, with the characters and player infos from r when r is set;
// sb is then b as the snap.Builder whose NewItems adds the player infos.
func (w *World) snap(r *SnapRound, viewer int, b SnapBuilder, sb *snap.Builder) error {
	if viewer < -1 || viewer >= MaxClients || (viewer >= 0 && (w.players[viewer] == nil || !w.players[viewer].ingame)) {
		return ErrNoPlayer
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for i := len(w.projs) - 1; i >= 0; i-- {
		keep(w.projs[i].snap(w, viewer, b))
	}
	for i := len(w.lasers) - 1; i >= 0; i-- {
		keep(w.lasers[i].snap(w, viewer, b))
	}
	// The rest in key order (projectiles and lasers: the pool reuses ids).
	for i := range w.pickups {
		keep(w.pickups[i].snap(w, viewer, b))
	}
	for _, f := range w.flagLst { // in the map's order
		keep(f.snap(w, viewer, b))
	}
	keep(w.ctrl.snap(viewer, b))
	if r != nil {
		keep(r.snapChars(w, viewer, b))
		keep(r.snapPlayers(w, viewer, sb))
	} else {
		for m := w.charMask(); m != 0; m &= m - 1 {
			keep(w.charStore[bits.TrailingZeros64(m)].snap(viewer, b))
		}
		for _, p := range w.players {
			if p != nil && p.ingame {
				keep(p.snap(viewer, b))
			}
		}
	}
	if viewer >= 0 {
		keep(w.players[viewer].snapSpectatorInfo(b))
	}
	keep(w.snapEvents(viewer, b))
	return first
}

// PostSnap ends a snapshot round: the server calls it after building the
// snapshots of a tick (every tick on which it snapshots, even without
// clients). It clears the events and the characters' triggered core events,
// so events of ticks without snapshots go out with the next one.
func (w *World) PostSnap() {
	for _, c := range w.chars {
		c.triggered = 0
	}
	w.events.clear()
}

// snapEvents writes the events in key order: by type, then id (the order
// of creation, as the reference numbers them).
func (w *World) snapEvents(viewer int, b SnapBuilder) error {
	for m := w.events.types; m != 0; m &= m - 1 {
		typ := uint16(bits.TrailingZeros64(m))
		for i := 0; i < w.events.n; i++ {
			e := &w.events.events[i]
			if e.typ != typ || !w.eventFor(e, viewer) {
				continue
			}
			d, err := b.NewItem(e.typ, uint16(i), int(e.size))
			if err != nil {
				return err
			}
			copy(d, e.data[:e.size])
		}
	}
	return nil
}

// eventFor reports whether viewer gets e: in its client mask and within
// eventRange of its view (the demo's viewer -1 gets every event).
func (w *World) eventFor(e *snapEvent, viewer int) bool {
	return viewer < 0 || e.mask&(uint64(1)<<uint(viewer)) != 0 &&
		vmath.Distance(w.players[viewer].viewPos, vmath.V(float32(e.data[0]), float32(e.data[1]))) < eventRange
}

func (c *controller) snap(viewer int, b SnapBuilder) error {
	w := c.w
	d, err := b.NewItem(ObjGameData, 0, SizeGameData)
	if err != nil {
		return err
	}
	d[0] = c.gameStartTick
	var flags, end int32
	switch c.state {
	case stateWarmupGame, stateWarmupUser:
		flags |= GameStateFlagWarmup
		if c.stateTimer != timerInfinite {
			end = w.tick + c.stateTimer
		}
	case stateStartCountdown:
		flags |= GameStateFlagStartCountdown | GameStateFlagPaused
		if c.stateTimer != timerInfinite {
			end = w.tick + c.stateTimer
		}
	case statePaused:
		flags |= GameStateFlagPaused
		if c.stateTimer != timerInfinite {
			end = w.tick + c.stateTimer
		}
	case stateEndRound:
		flags |= GameStateFlagRoundOver
		end = w.tick - c.gameStartTick - timerEnd/2*tickSpeed + c.stateTimer
	case stateEndMatch:
		flags |= GameStateFlagGameOver
		end = w.tick - c.gameStartTick - timerEnd*tickSpeed + c.stateTimer
	}
	if c.suddenDeath {
		flags |= GameStateFlagSuddenDeath
	}
	d[1], d[2] = flags, end

	if c.isTeamplay() {
		d, err := b.NewItem(ObjGameDataTeam, 0, SizeGameDataTeam)
		if err != nil {
			return err
		}
		d[0], d[1] = int32(c.teamScore[TeamRed]), int32(c.teamScore[TeamBlue])
	}
	if viewer == -1 {
		if err := w.snapDeGameInfo(b); err != nil {
			return err
		}
	}
	if c.gameType == GameCTF {
		d, err := b.NewItem(ObjGameDataFlag, 0, SizeGameDataFlag)
		if err != nil {
			return err
		}
		for team := 0; team < 2; team++ {
			f := w.flags[team]
			var carrier, drop int32
			switch {
			case f == nil:
				carrier = FlagMissing
			case f.atStand:
				carrier = FlagAtStand
			case f.carrier != nil:
				carrier = int32(f.carrier.p.cid)
			default:
				carrier = FlagTaken
				drop = f.dropTick
			}
			d[team], d[2+team] = carrier, drop
		}
	}
	return nil
}

// snap writes PlayerInfo (and SpectatorInfo / De_ClientInfo) for player p.
func (p *Player) snap(viewer int, b SnapBuilder) error {
	w := p.w
	d, err := b.NewItem(ObjPlayerInfo, uint16(p.cid), SizePlayerInfo)
	if err != nil {
		return err
	}
	d[0] = p.infoFlags()
	if viewer != -1 && p.watching() == viewer {
		d[0] |= PlayerFlagWatching
	}
	d[1] = int32(p.score)
	if viewer == -1 {
		d[2] = p.latencyMin
	} else {
		d[2] = w.players[viewer].actLatency[p.cid]
	}

	if viewer == -1 {
		return p.snapDeClientInfo(b, false)
	}
	return nil
}

// infoFlags returns p's PlayerInfo flags as every viewer sees them: all
// but Watching, which only the watched viewer gets.
func (p *Player) infoFlags() int32 {
	flags := p.playerFlags & PlayerFlagChatting
	if p.authed {
		flags |= PlayerFlagAdmin
	}
	if !p.w.ctrl.isPlayerReadyMode() || p.ready {
		flags |= PlayerFlagReady
	}
	if p.respawnDisabled && p.character() == nil {
		flags |= PlayerFlagDead
	}
	if p.info.Bot {
		flags |= PlayerFlagBot // the 0.7 bot marker (0.6 translations drop it)
	}
	return flags
}

// watching returns the client id p watches as a spectator, -1 for none.
func (p *Player) watching() int {
	if p.spectating() {
		return p.spectatorID
	}
	return -1
}

// snapSpectatorInfo writes the viewer's own SpectatorInfo when it spectates.
func (p *Player) snapSpectatorInfo(b SnapBuilder) error {
	if !p.spectating() {
		return nil
	}
	d, err := b.NewItem(ObjSpectatorInfo, uint16(p.cid), SizeSpectatorInfo)
	if err != nil {
		return err
	}
	d[0] = int32(p.specMode)
	d[1] = int32(p.spectatorID)
	pos := p.viewPos
	if p.specFlag != nil {
		pos = p.specFlag.pos
	}
	d[2], d[3] = int32(pos.X), int32(pos.Y)
	return nil
}

// snapDeClientInfo writes De_ClientInfo for p (local: the demo's own player).
func (p *Player) snapDeClientInfo(b SnapBuilder, local bool) error {
	d, err := b.NewItem(ObjDeClientInfo, uint16(p.cid), SizeDeClientInfo)
	if err != nil {
		return err
	}
	d[0] = 0
	if local {
		d[0] = 1
	}
	d[1] = int32(p.team)
	snap.StrToInts(d[2:6], p.info.Name)
	snap.StrToInts(d[6:9], p.info.Clan)
	d[9] = p.info.Country
	for i := 0; i < 6; i++ {
		snap.StrToInts(d[10+6*i:16+6*i], p.info.SkinPartNames[i])
		if p.info.UseCustomColors[i] {
			d[46+i] = 1
		}
		d[52+i] = p.info.SkinPartColors[i]
	}
	return nil
}

func (w *World) snapDeGameInfo(b SnapBuilder) error {
	d, err := b.NewItem(ObjDeGameInfo, 0, SizeDeGameInfo)
	if err != nil {
		return err
	}
	gi := w.GameInfo()
	copy(d, gi[:])
	return nil
}

// SnapDemoInfo adds to a player's snapshot (Snap with a viewer) the items a
// client recording a demo adds to each snapshot it records (the 0.7.5
// client's OnDemoRecSnap7): De_GameInfo and De_ClientInfo of every player in
// the game, the viewer's marked local. viewer -1 marks none.
func (w *World) SnapDemoInfo(viewer int, b SnapBuilder) error {
	if err := w.snapDeGameInfo(b); err != nil {
		return err
	}
	for _, p := range w.players {
		if p != nil && p.ingame {
			if err := p.snapDeClientInfo(b, p.cid == viewer); err != nil {
				return err
			}
		}
	}
	return nil
}
