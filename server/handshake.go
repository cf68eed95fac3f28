package server

import (
	"fmt"
	"time"

	"twserver/console"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/world"
)

// MinClientVersion is the oldest 0.7 client version accepted (0.7.0).
const MinClientVersion = 0x0700

// onMessage dispatches one received chunk that arrived at time at.
func (s *Server) onMessage(c *client, ch netproto.Chunk, at time.Time) {
	id, system, n, err := netproto.ParseMsgHeader(ch.Data)
	if err != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	body := ch.Data[n:]
	vital := ch.Flags&netproto.ChunkVital != 0
	if c.conn.Dialect().Is6() {
		s.onMessage6(c, id, system, body, vital, at)
		return
	}
	if system {
		s.onSystemMessage(c, id, body, vital, at)
		return
	}
	if !vital {
		return // game messages must be vital
	}
	s.rec.Message(c.id, c.state >= stateReady, id, ch.Data)
	s.onGameMessage(c, id, body)
}

// onSystemMessage handles the engine messages of net.md A3.1.
func (s *Server) onSystemMessage(c *client, id int32, body []byte, vital bool, at time.Time) {
	u := &s.up
	u.Reset(body)
	switch id {
	case netproto.NetmsgInfo:
		if !vital || c.state != stateAuth {
			return
		}
		version := u.GetString()
		password := u.GetString()
		clientVersion := u.GetIntOrDefault(0)
		if u.Err() != nil {
			s.stats.BadMessages.Add(1)
			return
		}
		c.version = clientVersion
		s.onInfo(c, NetVersion, version, password)
	case netproto.NetmsgRequestMapData:
		if !vital || c.state != stateConnecting {
			return
		}
		if c.mapChunk*MapChunkSize < s.curMap.Size {
			s.progress(c) // a request after the end of the map is no progress
		}
		s.sendMapData(c, true)
	case netproto.NetmsgReady:
		if !vital || c.state != stateConnecting {
			return
		}
		c.state = stateReady
		s.progress(c)
		s.log.Debug().Int("cid", c.id).Str("addr", c.addr.String()).Msg("client is ready")
		s.conReady(c)
		if m, ok := s.vote.Ongoing(s.now()); ok {
			s.sendGame(c, &m, false)
		}
		s.sendGame(c, &gamemsg.SvMotd{Message: s.cfg.Server.MOTD}, false) // also when empty, as the reference
		s.sendGame(c, s.serverSettings(), false)
		s.sendSys(c, netproto.NetmsgConReady, true, nil)
	case netproto.NetmsgEnterGame:
		if !vital || c.state != stateReady || !c.gotStartInfo {
			return
		}
		s.enterGame(c)
	case netproto.NetmsgInput:
		s.onInput(c, u, at)
	case netproto.NetmsgRconAuth:
		if !vital || c.state < stateAuth {
			return
		}
		pw := u.GetString()
		if u.Err() != nil {
			return
		}
		s.rconAuth(c, pw, true)
	case netproto.NetmsgRconCmd:
		if !vital || !c.rconAuthed {
			return
		}
		line := u.GetString()
		if u.Err() != nil || len(line) > MaxConsoleLine {
			return
		}
		s.log.Info().Int("cid", c.id).Str("name", c.name).Str("cmd", line).Msg("rcon command")
		s.conRcon(c, line)
		if s.runConsole(console.RconCaller(c.id), line) {
			s.pendingShutdown = true
		}
	case netproto.NetmsgPing:
		s.sendSys0(c, netproto.NetmsgPingReply)
	default:
		// unknown or unused ids are ignored like the reference does
	}
}

// onInfo checks an INFO's version (want, the dialect's) and password,
// refusing with the reference texts, and starts the map change.
func (s *Server) onInfo(c *client, want, version, password string) {
	if version != want {
		s.dropClient(c, fmt.Sprintf("Wrong version. Server is running '%s' and client '%s'", want, version))
		return
	}
	if s.cfg.Server.Password != "" && password != s.cfg.Server.Password {
		s.dropClient(c, "Wrong password")
		return
	}
	c.state = stateConnecting
	s.progress(c)
	s.sendMapChange(c)
}

// serverSettings is Sv_ServerSettings (net.md A3.3): the vote settings,
// whether teams are locked and balanced, and the player slots. Clients show
// the team lock from it (they print the "Teams were locked" line themselves).
func (s *Server) serverSettings() *gamemsg.SvServerSettings {
	return &gamemsg.SvServerSettings{
		KickVote: s.cfg.Voting.Kick, KickMin: int32(s.cfg.Voting.KickMin), SpecVote: s.cfg.Voting.Spectate,
		TeamLock:    s.world.TeamsLocked(),
		TeamBalance: s.worldConfig().TeambalanceTime != 0,
		PlayerSlots: int32(min(s.cfg.Server.PlayerSlots, s.cfg.Server.MaxClients)),
	}
}

// sendSys0 sends an empty non-vital system message.
func (s *Server) sendSys0(c *client, id int32) {
	s.pk.Reset()
	if s.sysHeader(c, &s.pk, id) {
		s.sendMsg(c, s.pk.Bytes(), netproto.SendFlush)
	}
}

// onStartInfo handles Cl_StartInfo (once per connection, state READY) and
// answers with vote options, tuning and Sv_ReadyToEnter.
func (s *Server) onStartInfo(c *client, m *gamemsg.ClStartInfo) {
	if c.state != stateReady || c.gotStartInfo {
		return
	}
	c.gotStartInfo = true
	c.name = cleanName(m.Name, 15)
	if c.name == "" {
		c.name = fmt.Sprintf("(%d)", c.id+1)
	}
	c.clan = truncUTF8(m.Clan, 11)
	c.country = m.Country
	c.skin = m.Skin
	c.infoChanges++
	c.lastSkin = s.now() // the start info counts as an info change (the references' m_LastChangeInfo)
	s.sendVoteOptions(c)
	s.sendGame(c, s.tuneParamsMsg(), false)
	s.sendGame(c, &gamemsg.SvReadyToEnter{}, true)
}

// enterGame puts a READY client with start info into the game (ENTERGAME).
func (s *Server) enterGame(c *client) {
	c.state = stateIngame
	c.conn.SetCopies(1) // the way in is over (mapdl.go)
	c.entered = true
	c.resetSnapState()
	s.rec.Ready(c.id, c.name)
	if err := s.world.AddPlayer(c.id, s.playerInfo(c)); err != nil {
		s.dropClient(c, "Internal error")
		return
	}
	// Sv_GameInfo (queued by the world) goes out before the client infos,
	// as in the reference: the 0.7.5 client picks team colours when a
	// client info arrives and does not redo it when the game flags come.
	s.world.DrainEvents(s.onWorldEvent)
	s.sendServerInfo(c)
	// Infos of everybody else to the new client, the new client's to everybody else.
	me := s.clientInfo(c, false)
	me.Silent = s.silentSpectator(c.id)
	for _, o := range s.clients {
		if o == c || o.state != stateIngame {
			continue
		}
		s.sendGame(c, s.clientInfo(o, false), false)
		s.sendGame(o, me, false)
	}
	local := s.clientInfo(c, true)
	local.Silent = me.Silent
	s.sendGame(c, local, true)
	s.log.Info().Int("cid", c.id).Str("name", c.name).Str("addr", c.addr.String()).
		Int("team", s.world.Team(c.id)).Msg("player has entered the game")
	s.conEnter(c)
	s.emitEnter(c)
	s.publishInfo()
}

// silentSpectator reports whether the join or leave of client id is shown
// to nobody: sv_silent_spectator_mode and a spectator (the reference's
// OnClientEnter and OnClientDrop).
func (s *Server) silentSpectator(id int) bool {
	return s.cfg.Game.SilentSpectator && s.world.Team(id) == world.TeamSpectators
}

// clientInfo builds Sv_ClientInfo for slot o.
func (s *Server) clientInfo(o *client, local bool) *gamemsg.SvClientInfo {
	return &gamemsg.SvClientInfo{
		ClientID: int32(o.id), Local: local, Team: int32(s.world.Team(o.id)),
		Name: o.name, Clan: o.clan, Country: o.country, Skin: o.skin,
	}
}

// sendServerInfo sends NETMSG_SERVERINFO (net.md A6.3).
func (s *Server) sendServerInfo(c *client) {
	if c.conn.Dialect().Is6() {
		s.sendServerInfo6(c)
		return
	}
	rows, numPlayers := s.infoPlayers()
	s.sendSys(c, netproto.NetmsgServerInfo, true, func(p *netproto.Packer) {
		s.appendInfoHeader(p, numPlayers, len(rows))
	})
}
