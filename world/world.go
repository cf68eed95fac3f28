package world

import (
	"errors"
	"fmt"
	"slices"

	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/twmap"
	"twserver/world/vmath"
)

// Bounds of the game world. Each is a named limit so that nothing in the
// world grows without bound; entities beyond them are not created.
const (
	MaxProjectiles = 2048  // live projectiles (the reference is bounded only by its 16384 snap ids)
	MaxLasers      = 512   // live laser beams
	MaxPickups     = 1024  // pickups created from map entity tiles
	MaxSpawnPoints = 64    // per spawn list (the reference's fixed array size)
	MaxSnapIDs     = 16384 // MAX_IDS: snapshot item ids for projectiles, lasers, pickups
)

// tickSpeed is SERVER_TICK_SPEED, ticks per second.
const tickSpeed = 50

// Map entity indices (ENTITY_*), tile index minus entityOffset.
const (
	entityOffset        = 255 - 16*4
	entitySpawn         = 1
	entitySpawnRed      = 2
	entitySpawnBlue     = 3
	entityFlagStandRed  = 4
	entityFlagStandBlue = 5
	entityArmor1        = 6
	entityHealth1       = 7
	entityWeaponShotgun = 8
	entityWeaponGrenade = 9
	entityPowerupNinja  = 10
	entityWeaponLaser   = 11
)

// GameType selects the game controller.
type GameType int

// Game types of the 0.7.5 server.
const (
	GameDM  GameType = iota // deathmatch
	GameTDM                 // team deathmatch
	GameCTF                 // capture the flag
	GameLMS                 // last man standing (survival rounds)
	GameLTS                 // last team standing (survival rounds, two teams)
)

// ParseGameType maps the sv_gametype names "dm", "tdm", "ctf", "lms", "lts"
// (any case) to a GameType; anything else is DM, as in the reference.
func ParseGameType(s string) GameType {
	switch {
	case equalFold(s, "tdm"):
		return GameTDM
	case equalFold(s, "ctf"):
		return GameCTF
	case equalFold(s, "lms"):
		return GameLMS
	case equalFold(s, "lts"):
		return GameLTS
	}
	return GameDM
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Config holds the game settings of one world (the familiar sv_* variables).
type Config struct {
	GameType   GameType // sv_gametype
	ScoreLimit int      // sv_scorelimit (0 = none)
	TimeLimit  int      // sv_timelimit in minutes (0 = none)
	Warmup     int      // sv_warmup in seconds (0 = wait for players only)
	// Countdown is sv_countdown: seconds the world stays frozen before a
	// match (or, in survival modes, a round) starts or resumes; 0 = only in
	// survival modes (3 s), -1 = never.
	Countdown       int
	TeamDamage      bool // sv_teamdamage
	Powerups        bool // sv_powerups (ninja)
	TeambalanceTime int  // sv_teambalance_time in minutes (0 = off)
	PlayerSlots     int  // sv_player_slots: non-spectator players
	RespawnDelayTDM int  // sv_respawn_delay_tdm in seconds
	MatchSwap       bool // sv_match_swap: swap teams between matches
	MatchesPerMap   int  // sv_matches_per_map with a map rotation; 0 = no rotation
	StrictSpectate  bool // sv_strict_spectate_mode
	TournamentMode  bool // sv_tournament_mode (1 or 2): new players join as spectators
	SpamProtection  bool // sv_spamprotection (team change, kill)
	// PlayerReadyMode is sv_player_ready_mode: players start an infinite
	// warmup (Warmup -1) and pause/resume the game with their ready state.
	PlayerReadyMode bool
	// InactiveKickTime is sv_inactivekick_time in minutes (0 = off): players
	// without input activity that long are handled per InactiveKick.
	InactiveKickTime int
	// InactiveKick is sv_inactivekick: 1 move to spectators, 2 move to
	// spectators while spectator slots (MaxClients-PlayerSlots) are free,
	// else kick, 3 kick.
	InactiveKick     int
	InactiveKickSpec bool // sv_inactivekick_spec: also kick inactive spectators
	MaxClients       int  // sv_max_clients, for InactiveKick 2
}

// DefaultConfig returns the 0.7.5 defaults.
func DefaultConfig() Config {
	return Config{
		GameType:        GameDM,
		ScoreLimit:      20,
		Powerups:        true,
		TeambalanceTime: 1,
		PlayerSlots:     8,
		RespawnDelayTDM: 3,
		MatchSwap:       true,
		SpamProtection:  true,

		InactiveKickTime: 3,
		InactiveKick:     2,
		MaxClients:       8,
	}
}

// Errors returned by the World.
var (
	// ErrNoMap: New was given a nil map.
	ErrNoMap = errors.New("world: nil map")
	// ErrBadClient: a client id outside 0..MaxClients-1.
	ErrBadClient = errors.New("world: client id out of range")
	// ErrSlotInUse: AddPlayer for a client id that already has a player.
	ErrSlotInUse = errors.New("world: client id already has a player")
	// ErrNoPlayer: Snap for a viewer that is neither -1 nor an in-game player.
	ErrNoPlayer = errors.New("world: no player with this client id")
	// ErrBadMapSize: the map's game layer does not hold Width*Height tiles.
	ErrBadMapSize = errors.New("world: game layer size does not match width*height")
)

// World is the deterministic game simulation of one map: characters,
// weapons, pickups, flags, the game controller and the per-client snapshot
// contents. It has no clock and no goroutines: the caller drives it with
// Tick, and it owns a seeded PRNG. A World is not safe for concurrent use,
// except that Snap may run concurrently for different builders while no
// other method runs.
type World struct {
	cfg  Config
	col  *collision.Map
	core WorldCore
	// reckWorld is the empty world with default tuning in which the dead
	// reckoning cores are advanced.
	reckWorld WorldCore
	tuning    tuning.Params
	tick      int32
	rng       rng

	paused         bool
	resetRequested bool
	lockTeams      bool

	players     [MaxClients]*Player
	playerStore [MaxClients]Player
	charStore   [MaxClients]Character

	// Entity lists in insertion order; the reference inserts at the head of
	// its lists and walks from the head, so iteration here is newest first.
	chars   []*Character
	projs   []Projectile
	lasers  []Laser
	pickups []Pickup
	flags   [2]*Flag // by team, nil when the map has no stand
	flagArr [2]Flag
	flagLst []*Flag // insertion order

	spawns [3][]vmath.Vec2 // 0 neutral, 1 red, 2 blue

	ctrl   controller
	events eventBuffer
	// spawnScoreHook, when set (tests), replaces the random score of a
	// survival spawn candidate pos for client cid (the lowest wins).
	spawnScoreHook func(cid int, pos vmath.Vec2) float32
	out            eventQueue
	ids            idPool
}

// New creates a world for map m. seed seeds the world's PRNG (used only where
// the reference uses randomness: team shuffling, survival spawn points).
func New(m *twmap.Map, cfg Config, seed uint64) (*World, error) {
	if m == nil {
		return nil, ErrNoMap
	}
	if m.Width <= 0 || m.Height <= 0 || len(m.Game) != m.Width*m.Height {
		return nil, fmt.Errorf("%w: %dx%d with %d tiles", ErrBadMapSize, m.Width, m.Height, len(m.Game))
	}
	return newWorld(m.Width, m.Height, m.Game, cfg, seed), nil
}

func newWorld(width, height int, game []byte, cfg Config, seed uint64) *World {
	w := &World{cfg: cfg}
	if w.cfg.PlayerSlots < 0 {
		w.cfg.PlayerSlots = 0
	}
	w.col = collision.New(width, height, game)
	w.tuning = tuning.Default()
	w.core.Tuning = w.tuning
	w.reckWorld.Tuning = tuning.Default()
	w.rng.seed(seed)
	w.ids.init()
	w.chars = make([]*Character, 0, MaxClients)
	w.projs = make([]Projectile, 0, MaxProjectiles)
	w.lasers = make([]Laser, 0, MaxLasers)
	w.pickups = make([]Pickup, 0, 16)
	w.flagLst = make([]*Flag, 0, 2)
	for i := range w.spawns {
		w.spawns[i] = make([]vmath.Vec2, 0, 8)
	}
	for i := range w.playerStore {
		w.playerStore[i].cid = i
		w.charStore[i].w = w
	}
	w.ctrl.init(w)
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			idx := int(game[y*width+x])
			if idx >= entityOffset {
				w.onEntity(idx-entityOffset, vmath.V(float32(float32(x)*32)+16, float32(float32(y)*32)+16))
			}
		}
	}
	return w
}

// onEntity handles one map entity tile (the controller's OnEntity).
// Survival modes keep only the spawn points (no pickups).
func (w *World) onEntity(index int, pos vmath.Vec2) {
	if w.ctrl.isSurvival() && (index < entitySpawn || index > entitySpawnBlue) {
		return
	}
	typ := -1
	switch index {
	case entitySpawn, entitySpawnRed, entitySpawnBlue:
		l := index - entitySpawn
		if len(w.spawns[l]) < MaxSpawnPoints {
			w.spawns[l] = append(w.spawns[l], pos)
		}
		return
	case entityArmor1:
		typ = PickupArmor
	case entityHealth1:
		typ = PickupHealth
	case entityWeaponShotgun:
		typ = PickupShotgun
	case entityWeaponGrenade:
		typ = PickupGrenade
	case entityWeaponLaser:
		typ = PickupLaser
	case entityPowerupNinja:
		if w.cfg.Powerups {
			typ = PickupNinja
		}
	case entityFlagStandRed, entityFlagStandBlue:
		if w.cfg.GameType != GameCTF {
			return
		}
		team := TeamRed
		if index == entityFlagStandBlue {
			team = TeamBlue
		}
		if w.flags[team] != nil {
			return
		}
		f := &w.flagArr[team]
		f.init(w, team, pos)
		w.flags[team] = f
		w.flagLst = append(w.flagLst, f)
		return
	}
	if typ >= 0 && len(w.pickups) < MaxPickups {
		w.pickups = append(w.pickups, Pickup{})
		w.pickups[len(w.pickups)-1].init(w, typ, pos)
	}
}

// Config returns the world's configuration.
func (w *World) Config() Config { return w.cfg }

// CurrentTick returns the number of the last completed tick (0 before the
// first Tick).
func (w *World) CurrentTick() int32 { return w.tick }

// Tuning returns the tuning in force (always the defaults: DM, TDM and CTF
// are "pure" game types in the reference).
func (w *World) Tuning() tuning.Params { return w.tuning }

// Collision returns the world's collision map.
func (w *World) Collision() *collision.Map { return w.col }

// Paused reports whether the world is paused (countdown, pause, match end).
func (w *World) Paused() bool { return w.paused }

// Tick advances the world by one tick in the order of the reference server:
// tick counter, queued predicted inputs, world entities (Tick of all
// projectiles, lasers, pickups, characters, flags, then TickDefered of all),
// the game controller, then every player in ascending client id.
func (w *World) Tick() {
	w.tick++
	if !w.paused {
		for cid := 0; cid < MaxClients; cid++ {
			if p := w.players[cid]; p != nil && p.hasInput {
				p.hasInput = false
				p.onPredictedInput(&p.pendingInput)
			}
		}
	} else {
		for cid := 0; cid < MaxClients; cid++ {
			if p := w.players[cid]; p != nil {
				p.hasInput = false
			}
		}
	}
	w.core.Tuning = w.tuning
	w.tickEntities()
	w.ctrl.tick()
	for cid := 0; cid < MaxClients; cid++ {
		if p := w.players[cid]; p != nil && p.ingame {
			p.tick()
			p.postTick()
		}
	}
}

// tickEntities is the reference CGameWorld::Tick.
func (w *World) tickEntities() {
	if w.resetRequested {
		w.reset()
	}
	if !w.paused {
		for i := len(w.projs) - 1; i >= 0; i-- {
			if !w.projs[i].dead {
				w.projs[i].tick(w)
			}
		}
		for i := len(w.lasers) - 1; i >= 0; i-- {
			if !w.lasers[i].dead {
				w.lasers[i].tick(w)
			}
		}
		for i := len(w.pickups) - 1; i >= 0; i-- {
			w.pickups[i].tick(w)
		}
		for i := len(w.chars) - 1; i >= 0; i-- {
			if c := w.chars[i]; c.inWorld {
				c.tick()
			}
		}
		for i := len(w.chars) - 1; i >= 0; i-- {
			if c := w.chars[i]; c.inWorld {
				c.tickDefered()
			}
		}
		for i := len(w.flagLst) - 1; i >= 0; i-- {
			w.flagLst[i].tickDefered(w)
		}
	} else if w.ctrl.isGamePaused() {
		for i := len(w.projs) - 1; i >= 0; i-- {
			w.projs[i].startTick++
		}
		for i := len(w.lasers) - 1; i >= 0; i-- {
			w.lasers[i].evalTick++
		}
		for i := len(w.pickups) - 1; i >= 0; i-- {
			if w.pickups[i].spawnTick != -1 {
				w.pickups[i].spawnTick++
			}
		}
		for i := len(w.chars) - 1; i >= 0; i-- {
			if c := w.chars[i]; c.inWorld {
				c.tickPaused()
			}
		}
		for i := len(w.flagLst) - 1; i >= 0; i-- {
			f := w.flagLst[i]
			f.dropTick++
			if f.grabTick != 0 {
				f.grabTick++
			}
		}
	}
	w.removeEntities()
}

// removeEntities drops destroyed projectiles and lasers and characters that
// left the world, keeping the order of the rest.
func (w *World) removeEntities() {
	// ids are freed newest first, the reference's list order (it decides
	// which id the next entity gets)
	for i := len(w.projs) - 1; i >= 0; i-- {
		if w.projs[i].dead {
			w.ids.free(w.projs[i].id)
		}
	}
	for i := len(w.lasers) - 1; i >= 0; i-- {
		if w.lasers[i].dead {
			w.ids.free(w.lasers[i].id)
		}
	}
	w.projs = slices.DeleteFunc(w.projs, func(p Projectile) bool { return p.dead })
	w.lasers = slices.DeleteFunc(w.lasers, func(l Laser) bool { return l.dead })
	w.compactChars()
}

// compactChars drops the characters that left the world from the list,
// keeping the order of the rest.
func (w *World) compactChars() {
	w.chars = slices.DeleteFunc(w.chars, func(c *Character) bool { return !c.inWorld })
}

// reset is the reference CGameWorld::Reset: every entity resets (projectiles
// and lasers vanish, pickups restart their timers, flags go home, characters
// leave silently), then the controller respawns everybody.
func (w *World) reset() {
	for i := range w.projs {
		w.projs[i].dead = true
	}
	for i := range w.lasers {
		w.lasers[i].dead = true
	}
	for i := len(w.pickups) - 1; i >= 0; i-- {
		w.pickups[i].reset(w)
	}
	for i := len(w.chars) - 1; i >= 0; i-- {
		w.chars[i].destroy()
	}
	for i := len(w.flagLst) - 1; i >= 0; i-- {
		w.flagLst[i].reset()
	}
	w.removeEntities()
	w.ctrl.onReset()
	w.resetRequested = false
}

// insertChar adds a spawned character at the head of the character list
// (after dropping entries of characters that left, which may include an
// earlier life of c).
func (w *World) insertChar(c *Character) {
	c.inWorld = false
	w.compactChars()
	c.inWorld = true
	w.chars = append(w.chars, c)
}

// findChars appends to dst every character in the world whose distance to
// pos is below radius + its proximity radius, in list order (newest first).
func (w *World) findChars(dst []*Character, pos vmath.Vec2, radius float32) []*Character {
	for i := len(w.chars) - 1; i >= 0; i-- {
		c := w.chars[i]
		if c.inWorld && vmath.Distance(c.pos, pos) < radius+PhysSize {
			dst = append(dst, c)
		}
	}
	return dst
}

// intersectCharacter returns the character (other than notThis) whose body
// (radius 28 + radius) the segment p0-p1 passes closest to p0, and the
// closest point on the segment (reference IntersectCharacter).
func (w *World) intersectCharacter(p0, p1 vmath.Vec2, radius float32, notThis *Character) (*Character, vmath.Vec2) {
	closestLen := float32(vmath.Distance(p0, p1) * 100)
	var closest *Character
	var at vmath.Vec2
	for i := len(w.chars) - 1; i >= 0; i-- {
		c := w.chars[i]
		if !c.inWorld || c == notThis {
			continue
		}
		ip := vmath.ClosestPointOnLine(p0, p1, c.pos)
		l := vmath.Distance(c.pos, ip)
		if l < PhysSize+radius {
			l = vmath.Distance(p0, ip)
			if l < closestLen {
				at = ip
				closestLen = l
				closest = c
			}
		}
	}
	return closest, at
}

// closestChar returns the nearest character within radius + 28 of pos and
// closer than 2*radius (reference ClosestEntity).
func (w *World) closestChar(pos vmath.Vec2, radius float32) *Character {
	closestRange := radius * 2
	var closest *Character
	for i := len(w.chars) - 1; i >= 0; i-- {
		c := w.chars[i]
		if !c.inWorld {
			continue
		}
		l := vmath.Distance(pos, c.pos)
		if l < PhysSize+radius && l < closestRange {
			closestRange = l
			closest = c
		}
	}
	return closest
}

// closestFlag is closestChar for flags (proximity radius 14).
func (w *World) closestFlag(pos vmath.Vec2, radius float32) *Flag {
	closestRange := radius * 2
	var closest *Flag
	for i := len(w.flagLst) - 1; i >= 0; i-- {
		f := w.flagLst[i]
		l := vmath.Distance(pos, f.pos)
		if l < flagPhysSize+radius && l < closestRange {
			closestRange = l
			closest = f
		}
	}
	return closest
}

// playerChar returns the live character of client cid, or nil.
func (w *World) playerChar(cid int) *Character {
	if cid < 0 || cid >= MaxClients || w.players[cid] == nil {
		return nil
	}
	return w.players[cid].character()
}

// networkClipped reports whether position p is outside the view of viewer
// (reference NetworkClipped); viewer -1 sees everything.
func (w *World) networkClipped(viewer int, p vmath.Vec2) bool {
	if viewer < 0 {
		return false
	}
	v := w.players[viewer].viewPos
	dx := v.X - p.X
	dy := v.Y - p.Y
	if vmath.Abs(dx) > 1000 || vmath.Abs(dy) > 800 {
		return true
	}
	return vmath.Distance(v, p) > 1100
}

// rng is a small deterministic PRNG (splitmix64) owned by the World.
type rng struct{ s uint64 }

func (r *rng) seed(s uint64) { r.s = s }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
