package server

import (
	"fmt"

	"twserver/dialect6"
	"twserver/edge"
	"twserver/gamemsg"
	"twserver/session"
	"twserver/world"
)

// A 0.6 player's Cl_ChangeInfo (name, clan, country and skin in game) is
// applied as the 0.6 reference and DDNet apply it: at most once per
// changeInfoInterval with sv_spamprotection (counted from the start info
// too), the name made unique among the clients of both dialects, the chat
// line "'old' changed name to 'new'" to everybody, and 0.7 players told as
// DDNet tells its 0.7 ("sixup") clients: a silent Sv_ClientDrop followed by
// a silent Sv_ClientInfo with the new name, clan and country (0.7 has no
// rename message), Sv_SkinChange when only the skin changed, nothing when
// nothing did. 0.6 players see the change in their snapshots' ClientInfo
// (setPlayers6).

// changeInfoInterval is the minimum time between two info changes of a
// player (the reference's 5 s of m_LastChangeInfo, DDNet's
// sv_info_change_delay default); the start info counts as one. It is the
// interval of 0.7 skin changes too, which share the timer.
const changeInfoInterval = skinInterval

// onChangeInfo6 applies Cl_ChangeInfo of 0.6 client c (in game only, as
// the reference).
func (s *Server) onChangeInfo6(c *client, m *dialect6.ChangeInfo) {
	if c.state != stateIngame {
		return
	}
	now := s.now()
	if s.cfg.Game.SpamProtection && c.lastSkin != 0 && now-c.lastSkin < changeInfoInterval {
		return
	}
	c.lastSkin = now
	old := c.name
	name := s.uniqueName(c, m.Name)
	renamed := name != old
	clan := session.Clan(m.Clan)
	info := renamed || clan != c.clan || m.Country != c.country
	skin := m.Skin != c.skin
	c.name, c.clan, c.country, c.skin = name, clan, m.Country, m.Skin
	c.infoChanges++
	s.world.SetPlayerInfo(c.id, s.playerInfo(c)) // demo snapshots (De_ClientInfo)
	if renamed {
		s.log.Info().Int("cid", c.id).Str("old", old).Str("name", name).Msg("player changed name")
		s.rec.Rename(c.id, name) // as DDNet records a new name
		s.serverChat(-1, fmt.Sprintf("'%s' changed name to '%s'", old, name))
	}
	if info {
		drop := &gamemsg.SvClientDrop{ClientID: int32(c.id), Silent: true}
		ci := s.clientInfo(c, false)
		ci.Silent = true
		for _, o := range s.clients {
			if o != c && o.state == stateIngame && !o.conn.Dialect().Is6() {
				s.sendGame(o, drop, false)
				s.sendGame(o, ci, false)
			}
		}
		s.publishInfo()
		return
	}
	if !skin {
		return // nothing changed: the DDNet client sends its info again while its snapshot shows another (a unique name)
	}
	for _, o := range s.clients {
		if o != c && o.state == stateIngame && !o.conn.Dialect().Is6() && o.version >= 0x0703 {
			s.sendGame(o, &gamemsg.SvSkinChange{ClientID: int32(c.id), Skin: c.skin}, false)
		}
	}
}

// uniqueName is the name client c gets when it asks for req
// (session.UniqueName): the names taken are those of the other clients
// that sent their start info, of either dialect.
func (s *Server) uniqueName(c *client, req string) string {
	return session.UniqueName(c.name, req, len(s.clients)-1, func(name string) bool {
		for _, o := range s.clients {
			if o != c && o.state >= stateReady && o.name == name {
				return true
			}
		}
		return false
	})
}

// playerInfo is what the world keeps of client c's info (for demo
// snapshots; only Spectator and Bot matter to the game).
func (s *Server) playerInfo(c *client) world.PlayerInfo {
	return world.PlayerInfo{
		Name: c.name, Clan: c.clan, Country: c.country,
		SkinPartNames: c.skin.PartNames, UseCustomColors: c.skin.UseCustomColors, SkinPartColors: c.skin.PartColors,
	}
}

// pushInfo tells the connected clients of a server info changed by setting
// name, before being the info published until then: 0.7 clients get
// NETMSG_SERVERINFO on sv_name and password, as 0.7.5's
// ConchainSpecialInfoupdate sends it to every connected client; 0.6
// clients get the in-game inf3 (token -1) on those two, as DDNet's does,
// and whenever the in-game info they are sent changed (sv_player_slots
// changes its max players).
func (s *Server) pushInfo(name string, before *edge.InfoSnapshot) {
	ref := name == "sv_name" || name == "password"
	changed6 := edge.InGame6Changed(before, s.edge.Info())
	for _, c := range s.clients {
		if c.state == stateEmpty {
			continue
		}
		if c.conn.Dialect().Is6() {
			if ref || changed6 {
				s.sendServerInfo6(c)
			}
		} else if ref {
			s.sendServerInfo(c)
		}
	}
}
