package dialect6

import (
	"errors"

	"twserver/gamemsg"
	"twserver/snap"
)

// MaxClients is the number of client ids the translation knows (0..63,
// MAX_CLIENTS of 0.7 and DDNet).
const MaxClients = 64

// ErrClientID: a client id outside 0..MaxClients-1.
var ErrClientID = errors.New("dialect6: client id out of range")

// Player is what 0.6 clients need to know of one player beyond the 0.7
// snapshot: 0.7 sends names, clans, countries, skins and teams by message
// (Sv_ClientInfo, Sv_Team, Sv_SkinChange), 0.6 carries them in every
// snapshot (ClientInfo and PlayerInfo objects, net.md B5.3).
type Player struct {
	Name    string // at most 15 bytes are shown
	Clan    string // at most 11 bytes are shown
	Country int32
	Team    int32        // -1 spectators, 0 red (or the game), 1 blue
	Skin    gamemsg.Skin // the 0.7 six-part skin
	// Skin6 is the player's own 0.6 skin when HasSkin6 is set (a 0.6 client's
	// Cl_StartInfo / Cl_ChangeInfo): 0.6 viewers then see exactly it instead
	// of the skin mapped from Skin.
	Skin6    Skin6
	HasSkin6 bool
}

// Infos is the translation state of one game shared by all its 0.6 clients:
// the players (SetPlayer and friends, or Observe of the 0.7 messages the
// server sends anyway) and the game info. The server changes it on its loop
// between snapshots; Snap and EncodeServer only read it, so snapshots for
// several viewers may be translated concurrently.
type Infos struct {
	// GameInfo is the last Sv_GameInfo (game flags, limits, match numbers).
	GameInfo gamemsg.SvGameInfo
	// TeamLock is the team lock of the last Sv_ServerSettings.
	TeamLock bool

	players [MaxClients]playerEntry
}

type playerEntry struct {
	p       Player
	active  bool
	info    [SizeClientInfo]int32 // the packed 0.6 ClientInfo object
	changes uint32                // counts the calls that may have changed p or active (Changes)
}

// SetPlayer makes client cid a player with the given info (entering the
// game, or a changed name/skin). It costs a comparison when nothing
// changed, so a server may call it for every slot before every round of
// snapshots.
func (in *Infos) SetPlayer(cid int, p Player) error {
	if cid < 0 || cid >= MaxClients {
		return ErrClientID
	}
	e := &in.players[cid]
	if e.active && e.p == p {
		return nil
	}
	e.p, e.active = p, true
	e.changes++
	e.pack()
	return nil
}

// SetTeam records a team change (Sv_Team).
func (in *Infos) SetTeam(cid int, team int32) error {
	if cid < 0 || cid >= MaxClients {
		return ErrClientID
	}
	in.players[cid].p.Team = team
	in.players[cid].changes++
	return nil
}

// SetSkin records a 0.7 skin change (Sv_SkinChange). A skin equal to the one
// mapped from the player's 0.6 skin keeps that 0.6 skin, so a 0.6 player's
// own choice survives the 0.7 round trip.
func (in *Infos) SetSkin(cid int, k gamemsg.Skin) error {
	if cid < 0 || cid >= MaxClients {
		return ErrClientID
	}
	e := &in.players[cid]
	if e.p.HasSkin6 && Skin7From6(e.p.Skin6) == k {
		return nil
	}
	e.p.Skin, e.p.HasSkin6 = k, false
	e.changes++
	e.pack()
	return nil
}

// Remove ends client cid's presence (Sv_ClientDrop). Its name stays readable
// until the id is given to a new player, so a leave line can still name it.
func (in *Infos) Remove(cid int) {
	if cid >= 0 && cid < MaxClients && in.players[cid].active {
		in.players[cid].active = false
		in.players[cid].changes++
	}
}

// Changes returns a counter of client cid's entry that moves whenever it
// may have changed (SetPlayer with other values, SetTeam, SetSkin, Remove,
// Observe); 0 for a bad id. A caller that remembers it can tell that
// nobody else touched the entry since.
func (in *Infos) Changes(cid int) uint32 {
	if cid < 0 || cid >= MaxClients {
		return 0
	}
	return in.players[cid].changes
}

// Player returns client cid's info and whether it is a player.
func (in *Infos) Player(cid int) (Player, bool) {
	if cid < 0 || cid >= MaxClients {
		return Player{}, false
	}
	return in.players[cid].p, in.players[cid].active
}

// Name returns client cid's name ("" for an id never used).
func (in *Infos) Name(cid int) string {
	if cid < 0 || cid >= MaxClients {
		return ""
	}
	return in.players[cid].p.Name
}

// Team returns client cid's team (0 for an unknown id).
func (in *Infos) Team(cid int) int32 {
	if cid < 0 || cid >= MaxClients {
		return 0
	}
	return in.players[cid].p.Team
}

// Observe updates the state from a 0.7 message the server sends:
// Sv_ClientInfo (player info; keeps the 0.6 skin as SetSkin does), Sv_Team,
// Sv_SkinChange, Sv_ClientDrop, Sv_GameInfo and Sv_ServerSettings. Other
// messages are ignored. Call it once per message, not once per receiver;
// order against EncodeServer does not matter.
func (in *Infos) Observe(m gamemsg.Message) {
	switch m := m.(type) {
	case *gamemsg.SvClientInfo:
		cid := int(m.ClientID)
		if cid < 0 || cid >= MaxClients {
			return
		}
		old := in.players[cid].p
		p := Player{Name: m.Name, Clan: m.Clan, Country: m.Country, Team: m.Team, Skin: m.Skin}
		if old.HasSkin6 && Skin7From6(old.Skin6) == m.Skin {
			p.Skin6, p.HasSkin6 = old.Skin6, true
		}
		in.SetPlayer(cid, p) //nolint:errcheck // id checked above
	case *gamemsg.SvTeam:
		in.SetTeam(int(m.ClientID), m.Team) //nolint:errcheck // out of range: ignored
	case *gamemsg.SvSkinChange:
		in.SetSkin(int(m.ClientID), m.Skin) //nolint:errcheck // out of range: ignored
	case *gamemsg.SvClientDrop:
		in.Remove(int(m.ClientID))
	case *gamemsg.SvGameInfo:
		in.GameInfo = *m
	case *gamemsg.SvServerSettings:
		in.TeamLock = m.TeamLock
	}
}

// pack builds the 0.6 ClientInfo object of the entry.
func (e *playerEntry) pack() {
	s := e.p.Skin6
	if !e.p.HasSkin6 {
		s = Skin6From7(&e.p.Skin)
	}
	d := e.info[:]
	snap.StrToInts(d[0:4], gamemsg.TruncUTF8(e.p.Name, 15))
	snap.StrToInts(d[4:7], gamemsg.TruncUTF8(e.p.Clan, 11))
	d[7] = e.p.Country
	snap.StrToInts(d[8:14], gamemsg.TruncUTF8(s.Name, 23))
	d[14] = b2i(s.UseCustomColor)
	d[15] = s.ColorBody
	d[16] = s.ColorFeet
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
