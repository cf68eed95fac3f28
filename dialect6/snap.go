package dialect6

import (
	"errors"
	"math/bits"

	"twserver/snap"
)

// 0.7.5 snapshot item types and sizes read by the translation (net.md A5.3;
// the same values as world's Obj*/Event* constants, kept here so the
// translation depends on the protocol, not on the world package).
const (
	obj7Projectile    = 2
	obj7Laser         = 3
	obj7Pickup        = 4
	obj7Flag          = 5
	obj7GameData      = 6
	obj7GameDataTeam  = 7
	obj7GameDataFlag  = 8
	obj7Character     = 10
	obj7PlayerInfo    = 11
	obj7SpectatorInfo = 12
	event7Common      = 16
	event7Explosion   = 17
	event7Spawn       = 18
	event7HammerHit   = 19
	event7Death       = 20
	event7SoundWorld  = 21
	event7Damage      = 22
	numTypes7         = 25
)

// sizes7 are the 0.7.5 sizes of the types above (0: not translated).
var sizes7 = [numTypes7]int{
	obj7Projectile: 6, obj7Laser: 5, obj7Pickup: 3, obj7Flag: 3, obj7GameData: 3,
	obj7GameDataTeam: 2, obj7GameDataFlag: 4, obj7Character: 22, obj7PlayerInfo: 3,
	obj7SpectatorInfo: 4, event7Common: 2, event7Explosion: 2, event7Spawn: 2,
	event7HammerHit: 2, event7Death: 3, event7SoundWorld: 3, event7Damage: 7,
}

// 0.7.5 flag values read by the translation (net.md A5.1).
const (
	playerFlag7Chatting   = 2  // PLAYERFLAG_CHATTING
	playerFlag7Scoreboard = 4  // PLAYERFLAG_SCOREBOARD
	gameState7Warmup      = 1  // GAMESTATEFLAG_WARMUP
	gameState7SuddenDeath = 2  // GAMESTATEFLAG_SUDDENDEATH
	gameState7GameOver    = 8  // GAMESTATEFLAG_GAMEOVER
	gameState7Paused      = 16 // GAMESTATEFLAG_PAUSED
	gameState7Countdown   = 32 // GAMESTATEFLAG_STARTCOUNTDOWN
	specMode7Player       = 1  // SPEC_PLAYER
	coreEvGroundJump      = 1  // COREEVENTFLAG_GROUND_JUMP
	coreEvHookPlayer      = 4  // COREEVENTFLAG_HOOK_ATTACH_PLAYER
	coreEvHookGround      = 8  // COREEVENTFLAG_HOOK_ATTACH_GROUND
	coreEvHookNoHook      = 16 // COREEVENTFLAG_HOOK_HIT_NOHOOK
	pickup7Health         = 0  // PICKUP_HEALTH
	pickup7Armor          = 1  // PICKUP_ARMOR
	pickup7Grenade        = 2  // PICKUP_GRENADE
	pickup7Shotgun        = 3  // PICKUP_SHOTGUN
	pickup7Laser          = 4  // PICKUP_LASER
	pickup7Ninja          = 5  // PICKUP_NINJA
	pickup7Gun            = 6  // PICKUP_GUN
	pickup7Hammer         = 7  // PICKUP_HAMMER
	flagTaken             = -1 // FLAG_TAKEN
	charHookedPlayer      = 8  // Character.hooked_player
)

// MaxDamageInd bounds the DamageInd events one 0.7 Damage event fans out
// into (health and armor amounts are each at most 9).
const MaxDamageInd = 18

// ErrBadItem: a 0.7 item of a translated type has the wrong size, or a
// client id outside 0..63. The item is left out; translation goes on.
var ErrBadItem = errors.New("dialect6: malformed 0.7 snapshot item")

// Items is read access to the items of one 0.7 snapshot: *snap.Builder
// (filled by world.Snap) and *snap.Snapshot satisfy it.
type Items interface {
	NumItems() int
	Item(i int) snap.Item
}

// Translator turns the world's 0.7 snapshot for a viewer into the 0.6 one.
// It keeps only scratch space between calls; the zero value is ready to use.
// A Translator is not safe for concurrent use: use one per goroutine (the
// Infos they read may be shared).
type Translator struct {
	flags7  [MaxClients]int32 // PlayerInfo flags of the current snapshot
	dmgSeen [MaxClients]uint8 // Damage events per victim so far in the current snapshot
	events  uint16            // next event id
	first   error
	ids     *idMap // the viewer's id map (identity when off)

	// Items added after their source item, where their 0.6 type comes:
	// the players, whose PlayerInfos and ClientInfos are added in one run
	// of each type (players), and the characters' sounds (their event ids
	// taken in source order).
	pset    uint64                    // the players' ids for the viewer
	pending [MaxClients]pendingPlayer // by id for the viewer
	sounds  [charSounds * MaxClients]queuedSound
	nSounds int
	stage   int       // what is still to add from elsewhere: 0 GameInfo and GameData, 1 players, 2 sounds, 3 nothing
	game    gameData7 // pass 1's reading
	tick    int32
	viewer  int
	infos   *Infos
}

// pendingPlayer is a 0.7 PlayerInfo waiting for its place: the player and
// what its 0.6 PlayerInfo takes from it.
type pendingPlayer struct {
	cid            uint8
	score, latency int32
}

// gameData7 is what pass 1 reads from the 0.7 game data objects.
type gameData7 struct {
	gd                  [3]int32 // GameData: start tick, state flags, state end tick
	teamScore, carriers [2]int32
	haveGD, haveTeam    bool
}

// charSounds is the most SoundWorld events one character makes.
const charSounds = 4

// queuedSound is a character's SoundWorld event waiting for its place.
type queuedSound struct {
	x, y, sound int32
	id          uint16
}

// identity is the id map of viewers that see every id.
var identity idMap

// Snap adds the 0.6 snapshot for client viewer (-1: a viewer that is no
// player) of tick to dst, translated from src, the world's 0.7 snapshot for
// the same viewer, with the players and game info of infos:
//
//   - GameInfo (id 0) from GameData and infos.GameInfo: TEAMS/FLAGS game
//     flags; GAMEOVER, SUDDENDEATH, PAUSED state flags (0.7's ROUNDOVER has no
//     0.6 form); the warmup timer as the ticks left of a warmup, start
//     countdown or timed pause; score and time limits, round numbers.
//   - for DDNet clients (Snap; SnapPeer of a DDNet peer) DDNet's extended
//     game info (gameinfoex.go: VanillaGameInfoEx, so that scores show as
//     points) with the type-0 item announcing its type.
//   - GameData (id 0) whenever 0.7 has GameDataTeam or GameDataFlag: team
//     scores and flag carriers (carriers 0 without flags, as 0.6 TDM).
//   - per 0.7 PlayerInfo: a 0.6 PlayerInfo (local = viewer, team from infos,
//     score, latency) and a ClientInfo (name, clan, country, 0.6 skin).
//   - Character with the 0.6 layout: player flags (PLAYING or CHATTING, and
//     SCOREBOARD) from the player's 0.7 flags, own fields clamped to the 0.6
//     ranges; its triggered core events become SoundWorld events (hook
//     attaching a player for everyone, jump / hook attach / hook miss for
//     everyone but the character's own client), as a 0.6 server sends them.
//   - Pickup with 0.6 type and subtype, Flag, Projectile and Laser unchanged,
//     SpectatorInfo without the mode (free view and flag views become -1).
//   - events with 0.6 ids; Damage fans out into health+armor DamageInd events
//     spread over 120° like the 0.6 server's, successive hits of one victim
//     in one snapshot turned a quarter radian further.
//
// Event ids are renumbered from 0. Items dst refuses (snapshot full) and
// malformed source items are left out and building goes on; Snap returns
// the first such error. dst should have Sizes = snap.Sizes6.
//
// Snap passes client ids 0..63 through, which suits DDNet clients; use
// SnapPeer for a client that may be vanilla.
func (t *Translator) Snap(dst *snap.Builder, src Items, viewer int, tick int32, infos *Infos) error {
	return t.snap(dst, src, viewer, tick, infos, &identity, true)
}

// SnapPeer is Snap for the 0.6 client p: it first updates p's client id
// map (vanilla clients, idmap.go) and then writes every client id as p
// knows it: items of players without an id for p are left out, a hook on
// such a player shows no player, a flag carried by one shows as taken.
func (t *Translator) SnapPeer(dst *snap.Builder, src Items, p *Peer, tick int32, infos *Infos) error {
	p.ids.update(p.ID, infos)
	return t.snap(dst, src, p.ID, tick, infos, &p.ids, p.DDNet)
}

func (t *Translator) snap(dst *snap.Builder, src Items, viewer int, tick int32, infos *Infos, ids *idMap, ddnet bool) error {
	t.ids = ids
	t.first = nil
	t.events = 0
	t.pset, t.nSounds, t.stage = 0, 0, 0
	t.game, t.tick, t.viewer, t.infos = gameData7{}, tick, viewer, infos
	clear(t.flags7[:])
	clear(t.dmgSeen[:])

	// Pass 1: the game state, spread over three 0.7 objects, and the
	// player flags the 0.6 Character carries.
	g := &t.game
	n := src.NumItems()
	for i := range n {
		it := src.Item(i)
		switch it.Type {
		case obj7GameData:
			if t.sized(it) {
				copy(g.gd[:], it.Data)
				g.haveGD = true
			}
		case obj7GameDataTeam:
			if t.sized(it) {
				g.teamScore[0], g.teamScore[1] = it.Data[0], it.Data[1]
				g.haveTeam = true
			}
		case obj7GameDataFlag:
			if t.sized(it) {
				g.carriers[0], g.carriers[1] = it.Data[0], it.Data[1]
				g.haveTeam = true
			}
		case obj7PlayerInfo:
			if t.sized(it) && it.ID < MaxClients {
				t.flags7[it.ID] = it.Data[0]
			}
		}
	}

	// Pass 2: everything else, in source order, which is 0.7 key order.
	// The items made from elsewhere are added where their 0.6 type comes
	// (the type-0 announcement first, GameInfo and GameData before the
	// characters, the PlayerInfos and then the ClientInfos in one run each
	// after the characters, the characters' sounds before the other
	// SoundWorld events, GameInfoEx last), so that dst receives its keys
	// in order and copies them instead of sorting.
	if ddnet {
		t.gameInfoExType(dst)
	}
	for i := range n {
		it := src.Item(i)
		if int(it.Type) >= numTypes7 || sizes7[it.Type] == 0 {
			continue // not translated (demo objects, race objects, unknown types)
		}
		if !t.sized(it) {
			continue
		}
		t.addBefore(dst, int(types6[it.Type]))
		d := it.Data
		switch it.Type {
		case obj7Projectile:
			if o := t.add(dst, ObjProjectile, it.ID, SizeProjectile); o != nil {
				copy(o, d)
			}
		case obj7Laser:
			if o := t.add(dst, ObjLaser, it.ID, SizeLaser); o != nil {
				copy(o, d)
			}
		case obj7Pickup:
			if o := t.add(dst, ObjPickup, it.ID, SizePickup); o != nil {
				o[0], o[1] = d[0], d[1]
				o[2], o[3] = pickupType6(d[2])
			}
		case obj7Flag:
			if o := t.add(dst, ObjFlag, it.ID, SizeFlag); o != nil {
				copy(o, d)
			}
		case obj7Character:
			t.character(dst, it)
		case obj7PlayerInfo:
			t.player(dst, it)
		case obj7SpectatorInfo:
			id, ok := t.ids.id6(int32(it.ID))
			if !ok {
				t.keep(ErrBadItem)
				continue
			}
			if o := t.add(dst, ObjSpectatorInfo, uint16(id), SizeSpectatorInfo); o != nil {
				o[0] = SpecFreeview // free view, flag views, bad or hidden ids
				if d[0] == specMode7Player {
					if spec, ok := t.ids.id6(d[1]); ok {
						o[0] = spec
					}
				}
				o[1], o[2] = d[2], d[3]
			}
		case event7Common, event7Explosion, event7Spawn, event7HammerHit:
			if o := t.event(dst, EventCommon+int(it.Type)-event7Common, SizeEventCommon); o != nil {
				o[0], o[1] = d[0], d[1]
			}
		case event7Death:
			if d[2] < 0 || d[2] >= MaxClients {
				t.keep(ErrBadItem)
				continue
			}
			cid, ok := t.ids.id6(d[2])
			if !ok {
				continue // a player the viewer does not know
			}
			if o := t.event(dst, EventDeath, SizeEventDeath); o != nil {
				o[0], o[1], o[2] = d[0], d[1], cid
			}
		case event7SoundWorld:
			if d[2] < 0 || d[2] >= NumSounds {
				t.keep(ErrBadItem)
				continue
			}
			t.sound(dst, d[0], d[1], d[2])
		case event7Damage:
			t.damage(dst, d)
		}
	}
	t.addBefore(dst, NumObjTypes)
	if ddnet {
		t.gameInfoEx(dst)
	}
	t.infos = nil // scratch only: the game's Infos are not held between calls
	return t.first
}

// addBefore adds the items made from elsewhere whose 0.6 type comes
// before typ6 and are not added yet.
func (t *Translator) addBefore(dst *snap.Builder, typ6 int) {
	if t.stage == 0 && typ6 > ObjGameData {
		t.gameItems(dst)
		t.stage = 1
	}
	if t.stage == 1 && typ6 > ObjPlayerInfo { // no 0.7 type becomes a ClientInfo
		t.players(dst)
		t.stage = 2
	}
	if t.stage == 2 && typ6 >= EventSoundWorld {
		for _, q := range t.sounds[:t.nSounds] {
			if o := t.add(dst, EventSoundWorld, q.id, SizeEventSound); o != nil {
				o[0], o[1], o[2] = q.x, q.y, q.sound
			}
		}
		t.stage = 3
	}
}

// gameItems writes GameInfo and, when 0.7 has team data, GameData.
func (t *Translator) gameItems(dst *snap.Builder) {
	g := &t.game
	if d := t.add(dst, ObjGameInfo, 0, SizeGameInfo); d != nil {
		gi := &t.infos.GameInfo
		d[0] = gi.GameFlags & (GameFlagTeams | GameFlagFlags)
		if g.haveGD {
			var st int32
			if g.gd[1]&gameState7GameOver != 0 {
				st |= GameStateFlagGameOver
			}
			if g.gd[1]&gameState7SuddenDeath != 0 {
				st |= GameStateFlagSuddenDeath
			}
			if g.gd[1]&gameState7Paused != 0 {
				st |= GameStateFlagPaused
			}
			d[1] = st
			d[2] = max(g.gd[0], 0)
			if g.gd[1]&(gameState7Warmup|gameState7Countdown|gameState7Paused) != 0 && g.gd[2] > t.tick {
				d[3] = g.gd[2] - t.tick
			}
		}
		d[4] = max(gi.ScoreLimit, 0)
		d[5] = max(gi.TimeLimit, 0)
		d[6] = max(gi.MatchNum, 0)
		d[7] = max(gi.MatchCurrent, 0)
	}
	if g.haveTeam {
		if d := t.add(dst, ObjGameData, 0, SizeGameData); d != nil {
			d[0], d[1] = g.teamScore[0], g.teamScore[1]
			for i, c := range g.carriers {
				if c >= 0 {
					var ok bool
					if c, ok = t.ids.id6(c); !ok {
						c = flagTaken
					}
				}
				d[2+i] = c
			}
		}
	}
}

// types6 is the 0.6 type each translated 0.7 type becomes (0: none in
// pass 2; the game data types are read in pass 1).
var types6 = [numTypes7]uint8{
	obj7Projectile: ObjProjectile, obj7Laser: ObjLaser, obj7Pickup: ObjPickup, obj7Flag: ObjFlag,
	obj7Character: ObjCharacter, obj7PlayerInfo: ObjPlayerInfo, obj7SpectatorInfo: ObjSpectatorInfo,
	event7Common: EventCommon, event7Explosion: EventExplosion, event7Spawn: EventSpawn,
	event7HammerHit: EventHammerHit, event7Death: EventDeath, event7SoundWorld: EventSoundWorld,
	event7Damage: EventDamageInd,
}

// character writes the 0.6 Character of a 0.7 one and the sounds of its
// triggered core events.
func (t *Translator) character(dst *snap.Builder, it snap.Item) {
	d := it.Data
	if it.ID >= MaxClients {
		t.keep(ErrBadItem)
		return
	}
	id, visible := t.ids.id6(int32(it.ID))
	if o := t.addIf(visible, dst, ObjCharacter, uint16(id), SizeCharacter); o != nil {
		copy(o[:SizeCharacterCore], d[:SizeCharacterCore])
		if hooked := d[charHookedPlayer]; hooked >= 0 {
			if h, ok := t.ids.id6(hooked); ok {
				o[charHookedPlayer] = h
			} else {
				o[charHookedPlayer] = -1
			}
		}
		f7 := t.flags7[it.ID]
		// 0.6 clients send PLAYING or, while typing, CHATTING instead.
		f := int32(PlayerFlagPlaying)
		if f7&playerFlag7Chatting != 0 {
			f = PlayerFlagChatting
		}
		if f7&playerFlag7Scoreboard != 0 {
			f |= PlayerFlagScoreboard
		}
		o[15] = f
		o[16] = clamp(d[15], 0, 10) // health
		o[17] = clamp(d[16], 0, 10) // armor
		o[18] = clamp(d[17], 0, 10) // ammo (0.7 sends -1 for unlimited)
		o[19] = clamp(d[18], 0, 5)  // weapon
		o[20] = clamp(d[19], 0, 6)  // emote
		o[21] = max(d[20], 0)       // attack tick
	}
	ev := d[21]
	x, y := d[1], d[2]
	if ev&coreEvHookPlayer != 0 {
		t.queueSound(x, y, SoundHookAttachPlayer)
	}
	if int(it.ID) != t.viewer {
		if ev&coreEvGroundJump != 0 {
			t.queueSound(x, y, SoundPlayerJump)
		}
		if ev&coreEvHookGround != 0 {
			t.queueSound(x, y, SoundHookAttachGround)
		}
		if ev&coreEvHookNoHook != 0 {
			t.queueSound(x, y, SoundHookNoAttach)
		}
	}
}

// queueSound takes the next event id for a character's SoundWorld event,
// added later where the SoundWorld events come.
func (t *Translator) queueSound(x, y, sound int32) {
	if t.nSounds < len(t.sounds) {
		t.sounds[t.nSounds] = queuedSound{x: x, y: y, sound: sound, id: t.events}
		t.nSounds++
	}
	t.events++
}

// player notes the player of a 0.7 PlayerInfo for its 0.6 PlayerInfo and
// ClientInfo, added with the others after the characters (players).
func (t *Translator) player(dst *snap.Builder, it snap.Item) {
	cid := int(it.ID)
	if cid >= MaxClients {
		t.keep(ErrBadItem)
		return
	}
	id, ok := t.ids.id6(int32(cid))
	if !ok {
		return // a player the viewer does not know
	}
	q := pendingPlayer{cid: uint8(cid), score: it.Data[1], latency: it.Data[2]}
	if t.stage >= 2 { // the players are written (a source out of key order): this one now
		if o := t.add(dst, ObjPlayerInfo, uint16(id), SizePlayerInfo); o != nil {
			t.playerInfo(o, id, q)
		}
		if o := t.add(dst, ObjClientInfo, uint16(id), SizeClientInfo); o != nil {
			t.clientInfo(o, cid)
		}
		return
	}
	bit := uint64(1) << uint(id)
	if t.pset&bit != 0 { // two players under one id: the first stays
		t.keep(snap.ErrDuplicateKey)
		return
	}
	t.pset |= bit
	t.pending[id] = q
}

// players adds the PlayerInfos and then the ClientInfos of the players
// player noted, each type in one run in id order (snap.Builder.NewItems:
// one check and one copy of the keys instead of one NewItem per item).
func (t *Translator) players(dst *snap.Builder) {
	// Both runs first, then one walk over the ids fills them; a refused
	// run (snapshot full) holds the items added before the refusal.
	pi, err := dst.NewItems(ObjPlayerInfo, t.pset, SizePlayerInfo)
	if err != nil {
		t.keep(err)
	}
	ci, err := dst.NewItems(ObjClientInfo, t.pset, SizeClientInfo)
	if err != nil {
		t.keep(err)
	}
	for m := t.pset; m != 0 && (len(pi) > 0 || len(ci) > 0); m &= m - 1 {
		id := int32(bits.TrailingZeros64(m))
		q := t.pending[id]
		if len(pi) > 0 {
			t.playerInfo(pi[:SizePlayerInfo], id, q)
			pi = pi[SizePlayerInfo:]
		}
		if len(ci) > 0 {
			t.clientInfo(ci[:SizeClientInfo], int(q.cid))
			ci = ci[SizeClientInfo:]
		}
	}
}

// playerInfo fills the 0.6 PlayerInfo o of player q, id for the viewer:
// local, id, team from the Infos, score and latency.
func (t *Translator) playerInfo(o []int32, id int32, q pendingPlayer) {
	o[0] = b2i(int(q.cid) == t.viewer)
	o[1] = id
	o[2] = clamp(t.infos.players[q.cid].p.Team, -1, 1)
	o[3] = q.score
	o[4] = q.latency
}

// clientInfo fills the 0.6 ClientInfo o of client cid (name, clan,
// country, 0.6 skin).
func (t *Translator) clientInfo(o []int32, cid int) {
	if e := &t.infos.players[cid]; e.active {
		copy(o, e.info[:])
	} else {
		copy(o, unknownInfo[:])
	}
}

// unknownInfo is the ClientInfo of a player the Infos do not know (a server
// bug): no name, the default skin.
var unknownInfo = func() (d [SizeClientInfo]int32) {
	var e playerEntry
	e.p.Skin6.Name = standardSkins[0].name
	e.p.HasSkin6 = true
	e.pack()
	return e.info
}()

// damage fans a 0.7 Damage event (x, y, client, angle, health, armor, self)
// out into DamageInd events the way the 0.6 server creates them.
func (t *Translator) damage(dst *snap.Builder, d []int32) {
	cid := d[2]
	if cid < 0 || cid >= MaxClients {
		t.keep(ErrBadItem)
		return
	}
	amount := int(clamp(d[4], 0, 9) + clamp(d[5], 0, 9))
	if amount == 0 {
		return
	}
	seen := t.dmgSeen[cid]
	if seen < 255 {
		t.dmgSeen[cid]++
	}
	group := float32(seen) * float32(0.25)
	for i := range amount {
		if o := t.event(dst, EventDamageInd, SizeEventDamage); o != nil {
			o[0], o[1] = d[0], d[1]
			o[2] = damageAngle(group, i, amount)
		}
	}
}

// Float32 constants of the DamageInd fan (kept in variables so that Go
// computes with float32 rounding at every step, as the reference does).
var (
	refPi      = float32(3.1415926535897932384626433)
	refPiShort = float32(3.14159)
)

// damageAngle is the angle ×256 of the i-th of n damage indicators around
// group (the reference CreateDamageInd: a = 3·3.14159/2 + group, spread
// from a−π/3 to a+π/3 at (i+1)/(n+2)).
func damageAngle(group float32, i, n int) int32 {
	three, two := float32(3), float32(2)
	a := three*refPiShort/two + group
	s := a - refPi/three
	e := a + refPi/three
	f := s + (e-s)*(float32(i+1)/float32(n+2))
	return int32(f * 256)
}

// sound adds a SoundWorld event.
func (t *Translator) sound(dst *snap.Builder, x, y, id int32) {
	if o := t.event(dst, EventSoundWorld, SizeEventSound); o != nil {
		o[0], o[1], o[2] = x, y, id
	}
}

// event adds an event item with the next event id.
func (t *Translator) event(dst *snap.Builder, typ int, size int) []int32 {
	id := t.events
	t.events++
	return t.add(dst, typ, id, size)
}

// addIf adds an item when ok.
func (t *Translator) addIf(ok bool, dst *snap.Builder, typ int, id uint16, size int) []int32 {
	if !ok {
		return nil
	}
	return t.add(dst, typ, id, size)
}

// add adds an item, keeping the first error.
func (t *Translator) add(dst *snap.Builder, typ int, id uint16, size int) []int32 {
	d, err := dst.NewItem(uint16(typ), id, size)
	if err != nil {
		t.keep(err)
		return nil
	}
	return d
}

// sized reports whether a 0.7 item has its type's size (else records ErrBadItem).
func (t *Translator) sized(it snap.Item) bool {
	if int(it.Type) < numTypes7 && len(it.Data) == sizes7[it.Type] {
		return true
	}
	t.keep(ErrBadItem)
	return false
}

func (t *Translator) keep(err error) {
	if t.first == nil {
		t.first = err
	}
}

// pickupType6 maps a 0.7 PICKUP_* to the 0.6 type and subtype.
func pickupType6(p7 int32) (typ, sub int32) {
	switch p7 {
	case pickup7Health:
		return PowerupHealth, 0
	case pickup7Armor:
		return PowerupArmor, 0
	case pickup7Grenade:
		return PowerupWeapon, 3
	case pickup7Shotgun:
		return PowerupWeapon, 2
	case pickup7Laser:
		return PowerupWeapon, 4
	case pickup7Ninja:
		return PowerupNinja, 5
	case pickup7Gun:
		return PowerupWeapon, 1
	case pickup7Hammer:
		return PowerupWeapon, 0
	}
	return PowerupWeapon, 0
}

func clamp(v, lo, hi int32) int32 { return min(max(v, lo), hi) }
