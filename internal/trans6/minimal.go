package trans6

import (
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
)

// 0.6 snapshot item types (net.md B5.2).
const (
	obj6Projectile    = 2
	obj6Laser         = 3
	obj6Pickup        = 4
	obj6Flag          = 5
	obj6GameInfo      = 6
	obj6GameData      = 7
	obj6Character     = 9
	obj6PlayerInfo    = 10
	obj6ClientInfo    = 11
	obj6SpectatorInfo = 12
	ev6Explosion      = 14
	ev6Spawn          = 15
	ev6HammerHit      = 16
	ev6Death          = 17
	ev6SoundWorld     = 19
	ev6DamageInd      = 20
)

// 0.6 game message ids (net.md B5.4).
const (
	msg6SvMotd              = 1
	msg6SvBroadcast         = 2
	msg6SvChat              = 3
	msg6SvKillMsg           = 4
	msg6SvTuneParams        = 6
	msg6SvReadyToEnter      = 8
	msg6SvWeaponPickup      = 9
	msg6SvEmoticon          = 10
	msg6SvVoteClearOptions  = 11
	msg6SvVoteOptionListAdd = 12
	msg6SvVoteOptionAdd     = 13
	msg6SvVoteOptionRemove  = 14
	msg6SvVoteSet           = 15
	msg6SvVoteStatus        = 16
	msg6ClSay               = 17
	msg6ClSetTeam           = 18
	msg6ClSetSpectatorMode  = 19
	msg6ClStartInfo         = 20
	msg6ClKill              = 22
	msg6ClEmoticon          = 23
	msg6ClVote              = 24
	msg6ClCallVote          = 25
)

// 0.6 flags (net.md B5.1).
const (
	playerFlag6Playing    = 1
	playerFlag6Chatting   = 4
	playerFlag6Scoreboard = 8
	gameState6GameOver    = 1
	gameState6SuddenDeath = 2
	gameState6Paused      = 4
)

// damageIndBase is the first snapshot id of the DamageInd events Minimal
// adds (one per 0.7 Damage event, kept apart from the world's ids).
const damageIndBase = 0x4000

// MaxDamageInd bounds the DamageInd events made from one 0.7 Damage event.
const MaxDamageInd = 8

// Minimal is the stand-in 0.6 translation (see the package doc): every
// object and event with a 0.6 counterpart, ClientInfo from the Player's
// name and clan with the "default" skin, the messages whose layouts map
// one to one, and the client messages a player needs to play. It
// allocates nothing per snapshot.
type Minimal struct {
	up      netproto.Unpacker
	players [netproto.MaxClients]Player
	inGame  [netproto.MaxClients]bool
	vanilla [netproto.MaxClients]bool // the client is vanilla 0.6: ids 0..15 only
	info    gamemsg.SvGameInfo        // the last Sv_GameInfo seen (ServerMessage)
	out     minimalOut
}

// minimalOut is Minimal's Out: at most one message.
type minimalOut struct {
	pk netproto.Packer
	n  int
}

func (o *minimalOut) Len() int         { return o.n }
func (o *minimalOut) Msg(i int) []byte { return o.pk.Bytes() }

// VanillaMaxClients is the number of client ids a vanilla 0.6 client
// knows (its MAX_CLIENTS): it indexes its tables with snapshot and message
// ids unchecked. Minimal hides players with higher ids from vanilla
// clients (the full translation maps ids instead).
const VanillaMaxClients = netproto.MaxClientsVanilla6

// Connect implements Translator: it notes whether cid is a vanilla client.
func (t *Minimal) Connect(cid int, ddnet bool) {
	if cid >= 0 && cid < len(t.vanilla) {
		t.vanilla[cid] = !ddnet
	}
}

// hidden reports whether client id must not reach viewer: a vanilla 0.6
// viewer knows ids 0..VanillaMaxClients-1 only.
func (t *Minimal) hidden(viewer int, id int32) bool {
	return viewer >= 0 && viewer < len(t.vanilla) && t.vanilla[viewer] && id >= VanillaMaxClients
}

// SetPlayer implements Translator.
func (t *Minimal) SetPlayer(cid int, p Player, inGame bool) {
	if cid < 0 || cid >= len(t.players) {
		return
	}
	t.players[cid], t.inGame[cid] = p, inGame
}

// Snapshot implements Translator.
func (t *Minimal) Snapshot(b *snap.Builder, src *snap.Snapshot, cid int, tick int32) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	add := func(typ uint16, id uint16, vals ...int32) {
		d, err := b.NewItem(typ, id, len(vals))
		keep(err)
		if err == nil {
			copy(d, vals)
		}
	}
	var stateFlags, startTick, endTick int32
	var scoreRed, scoreBlue int32
	carrierRed, carrierBlue := int32(world.FlagAtStand), int32(world.FlagAtStand)
	haveTeam, haveFlag := false, false
	playerFlags := make7PlayerFlags(src)
	damages := 0
	for i := range src.NumItems() {
		it := src.Item(i)
		d := src.ItemData(i)
		switch it.Type {
		case world.ObjCharacter, world.ObjPlayerInfo, world.ObjSpectatorInfo:
			if t.hidden(cid, int32(it.ID)) {
				continue // a vanilla viewer knows ids 0..15 only
			}
		case world.EventDeath:
			if len(d) >= 3 && t.hidden(cid, d[2]) {
				continue
			}
		}
		switch it.Type {
		case world.ObjProjectile:
			add(obj6Projectile, it.ID, d...)
		case world.ObjLaser:
			add(obj6Laser, it.ID, d...)
		case world.ObjFlag:
			add(obj6Flag, it.ID, d...)
		case world.ObjPickup:
			if len(d) >= 3 {
				typ, sub := pickupTo6(d[2])
				add(obj6Pickup, it.ID, d[0], d[1], typ, sub)
			}
		case world.ObjGameData:
			if len(d) >= 3 {
				startTick, stateFlags, endTick = d[0], d[1], d[2]
			}
		case world.ObjGameDataTeam:
			if len(d) >= 2 {
				scoreRed, scoreBlue, haveTeam = d[0], d[1], true
			}
		case world.ObjGameDataFlag:
			if len(d) >= 2 {
				carrierRed, carrierBlue, haveFlag = d[0], d[1], true
			}
		case world.ObjCharacter:
			if len(d) >= world.SizeCharacter {
				out, err := b.NewItem(obj6Character, it.ID, 22)
				keep(err)
				if err == nil {
					copy(out, d[:15])
					pf := int32(playerFlag6Playing)
					if int(it.ID) < len(playerFlags) {
						pf |= playerFlags[it.ID]
					}
					out[15] = pf
					copy(out[16:], d[15:21])
				}
			}
		case world.ObjPlayerInfo:
			id := int(it.ID)
			if len(d) < 3 || id >= len(t.players) || !t.inGame[id] {
				continue
			}
			p := &t.players[id]
			local := int32(0)
			if id == cid {
				local = 1
			}
			add(obj6PlayerInfo, it.ID, local, int32(id), p.Team, d[1], d[2])
			ci, err := b.NewItem(obj6ClientInfo, it.ID, 17)
			keep(err)
			if err == nil {
				snap.StrToInts(ci[0:4], p.Name)
				snap.StrToInts(ci[4:7], p.Clan)
				ci[7] = p.Country
				snap.StrToInts(ci[8:14], skinTo6(&p.Skin))
			}
		case world.ObjSpectatorInfo:
			if len(d) >= 4 {
				spec := d[1]
				if d[0] != world.SpecPlayer {
					spec = -1
				}
				add(obj6SpectatorInfo, it.ID, spec, d[2], d[3])
			}
		case world.EventExplosion:
			add(ev6Explosion, it.ID, d...)
		case world.EventSpawn:
			add(ev6Spawn, it.ID, d...)
		case world.EventHammerHit:
			add(ev6HammerHit, it.ID, d...)
		case world.EventDeath:
			add(ev6Death, it.ID, d...)
		case world.EventSoundWorld:
			add(ev6SoundWorld, it.ID, d...)
		case world.EventDamage:
			// X, Y, ClientID, Angle, HealthAmount, ArmorAmount, Self: one
			// DamageInd per point, fanned out around the angle.
			if len(d) < 6 {
				continue
			}
			n := min(max(d[4]+d[5], 1), MaxDamageInd)
			for k := range n {
				angle := d[3] + (k-n/2)*64
				add(ev6DamageInd, uint16(damageIndBase+damages), d[0], d[1], angle)
				damages++
			}
		}
	}
	var gs int32
	if stateFlags&world.GameStateFlagGameOver != 0 {
		gs |= gameState6GameOver
	}
	if stateFlags&world.GameStateFlagSuddenDeath != 0 {
		gs |= gameState6SuddenDeath
	}
	if stateFlags&world.GameStateFlagPaused != 0 {
		gs |= gameState6Paused
	}
	warmup := int32(0)
	if stateFlags&(world.GameStateFlagWarmup|world.GameStateFlagStartCountdown) != 0 && endTick > tick {
		warmup = endTick - tick
	}
	gi := &t.info
	add(obj6GameInfo, 0, gi.GameFlags&(world.GameFlagTeams|world.GameFlagFlags), gs, startTick, warmup,
		gi.ScoreLimit, gi.TimeLimit, gi.MatchNum, gi.MatchCurrent)
	if haveTeam || haveFlag {
		add(obj6GameData, 0, scoreRed, scoreBlue, carrierRed, carrierBlue)
	}
	return first
}

// make7PlayerFlags returns the 0.6 CHATTING/SCOREBOARD flags of every
// client from the 0.7 PlayerInfo items (a fixed array: no allocation).
func make7PlayerFlags(src *snap.Snapshot) [netproto.MaxClients]int32 {
	var out [netproto.MaxClients]int32
	for i := range src.NumItems() {
		it := src.Item(i)
		if it.Type != world.ObjPlayerInfo || int(it.ID) >= len(out) {
			continue
		}
		f := src.ItemData(i)[0]
		if f&world.PlayerFlagChatting != 0 {
			out[it.ID] |= playerFlag6Chatting
		}
		if f&world.PlayerFlagScoreboard != 0 {
			out[it.ID] |= playerFlag6Scoreboard
		}
	}
	return out
}

// pickupTo6 maps a 0.7 pickup type to the 0.6 (type, subtype).
func pickupTo6(t int32) (typ, sub int32) {
	const weapon6, ninja6 = 2, 3
	switch t {
	case world.PickupHealth:
		return 0, 0
	case world.PickupArmor:
		return 1, 0
	case world.PickupGrenade:
		return weapon6, world.WeaponGrenade
	case world.PickupShotgun:
		return weapon6, world.WeaponShotgun
	case world.PickupLaser:
		return weapon6, world.WeaponLaser
	case world.PickupNinja:
		return ninja6, world.WeaponNinja
	case world.PickupGun:
		return weapon6, world.WeaponGun
	}
	return weapon6, world.WeaponHammer
}

// skinTo6 names the 0.6 skin shown for a 0.7 skin: Minimal always uses
// "default" (the full translation maps the standard skins).
func skinTo6(*gamemsg.Skin) string { return "default" }

// ServerMessage implements Translator: the message if its layout maps one
// to one, else nothing; Sv_GameInfo is kept for the snapshots' GameInfo.
func (t *Minimal) ServerMessage(m gamemsg.Message, cid int) (Out, error) {
	t.out.n = 0
	p := &t.out.pk
	p.Reset()
	hdr := func(id int32) { p.AddMsgHeader(id, false) }
	switch m := m.(type) {
	case *gamemsg.SvGameInfo:
		t.info = *m
		return &t.out, nil
	case *gamemsg.SvMotd:
		hdr(msg6SvMotd)
		p.AddString(m.Message)
	case *gamemsg.SvBroadcast:
		hdr(msg6SvBroadcast)
		p.AddString(m.Message)
	case *gamemsg.SvChat:
		if t.hidden(cid, m.ClientID) {
			m2 := *m
			m2.ClientID = -1 // shown as a server line to a vanilla client
			m = &m2
		}
		team := int32(0)
		if m.Mode == gamemsg.ChatTeam {
			team = 1
		}
		hdr(msg6SvChat)
		p.AddInt(team)
		p.AddInt(m.ClientID)
		p.AddString(m.Message)
	case *gamemsg.SvKillMsg:
		if t.hidden(cid, m.Killer) || t.hidden(cid, m.Victim) {
			return &t.out, nil
		}
		killer := m.Killer
		if killer < 0 {
			killer = m.Victim
		}
		hdr(msg6SvKillMsg)
		p.AddInt(killer)
		p.AddInt(m.Victim)
		p.AddInt(m.Weapon)
		p.AddInt(m.ModeSpecial)
	case *gamemsg.SvTuneParams:
		// 0.6 has laser_damage (5, as 500) after laser_bounce_cost (net.md B5.5).
		hdr(msg6SvTuneParams)
		for i, v := range m.Params {
			if i == 30 {
				p.AddInt(500)
			}
			p.AddInt(v)
		}
	case *gamemsg.SvReadyToEnter:
		hdr(msg6SvReadyToEnter)
	case *gamemsg.SvWeaponPickup:
		hdr(msg6SvWeaponPickup)
		p.AddInt(m.Weapon)
	case *gamemsg.SvEmoticon:
		if t.hidden(cid, m.ClientID) {
			return &t.out, nil
		}
		hdr(msg6SvEmoticon)
		p.AddInt(m.ClientID)
		p.AddInt(m.Emoticon)
	case *gamemsg.SvVoteClearOptions:
		hdr(msg6SvVoteClearOptions)
	case *gamemsg.SvVoteOptionListAdd:
		hdr(msg6SvVoteOptionListAdd)
		p.AddInt(m.Num)
		for _, d := range m.Descriptions {
			p.AddString(d)
		}
	case *gamemsg.SvVoteOptionAdd:
		hdr(msg6SvVoteOptionAdd)
		p.AddString(m.Description)
	case *gamemsg.SvVoteOptionRemove:
		hdr(msg6SvVoteOptionRemove)
		p.AddString(m.Description)
	case *gamemsg.SvVoteSet:
		hdr(msg6SvVoteSet)
		p.AddInt(m.Timeout)
		p.AddString(m.Description)
		p.AddString(m.Reason)
	case *gamemsg.SvVoteStatus:
		hdr(msg6SvVoteStatus)
		p.AddInt(m.Yes)
		p.AddInt(m.No)
		p.AddInt(m.Pass)
		p.AddInt(m.Total)
	default:
		return &t.out, nil
	}
	if err := p.Err(); err != nil {
		return &t.out, err
	}
	t.out.n = 1
	return &t.out, nil
}

// ClientMessage implements Translator.
func (t *Minimal) ClientMessage(cid int, id int32, body []byte) (gamemsg.Message, error) {
	u := &t.up
	u.Reset(body)
	var m gamemsg.Message
	switch id {
	case msg6ClSay:
		team := u.GetInt()
		msg := u.GetString()
		mode := int32(gamemsg.ChatAll)
		if team != 0 {
			mode = gamemsg.ChatTeam
		}
		m = &gamemsg.ClSay{Mode: mode, Target: -1, Message: msg}
	case msg6ClSetTeam:
		m = &gamemsg.ClSetTeam{Team: u.GetInt()}
	case msg6ClSetSpectatorMode:
		spec := u.GetInt()
		mode := int32(world.SpecPlayer)
		if spec < 0 {
			mode, spec = world.SpecFreeview, -1
		}
		m = &gamemsg.ClSetSpectatorMode{SpecMode: mode, SpectatorID: spec}
	case msg6ClStartInfo:
		si := &gamemsg.ClStartInfo{Name: u.GetString(), Clan: u.GetString(), Country: u.GetInt()}
		_ = u.GetString() // skin name: Minimal gives every 0.6 player the default 0.7 skin
		si.Skin = DefaultSkin7
		m = si
	case msg6ClKill:
		m = &gamemsg.ClKill{}
	case msg6ClEmoticon:
		m = &gamemsg.ClEmoticon{Emoticon: u.GetInt()}
	case msg6ClVote:
		m = &gamemsg.ClVote{Vote: u.GetInt()}
	case msg6ClCallVote:
		m = &gamemsg.ClCallVote{Type: u.GetString(), Value: u.GetString(), Reason: u.GetString()}
	default:
		return nil, nil // Cl_ChangeInfo, DDNet's messages: ignored
	}
	if err := u.Err(); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// DefaultSkin7 is the 0.7 "default" skin given to 0.6 players by Minimal.
var DefaultSkin7 = gamemsg.Skin{PartNames: [gamemsg.NumSkinParts]string{"standard", "", "", "standard", "standard", "standard"}}

// Input implements Translator: the 0.6 CHATTING and SCOREBOARD player
// flags move to their 0.7 bits; the other fields have the same layout.
func (t *Minimal) Input(data []int32) {
	const flags = 6
	if len(data) <= flags {
		return
	}
	f6 := data[flags]
	var f7 int32
	if f6&playerFlag6Chatting != 0 {
		f7 |= world.PlayerFlagChatting
	}
	if f6&playerFlag6Scoreboard != 0 {
		f7 |= world.PlayerFlagScoreboard
	}
	data[flags] = f7
}
