package server

import (
	"time"

	"twserver/console"
	"twserver/gamemsg"
	"twserver/mapdl"
	"twserver/netproto"
	"twserver/session"
	"twserver/world"
)

// onMessage dispatches one received chunk that arrived at time at: system
// messages to the session layer (session.Dispatcher, which calls back
// through sysHandler), game messages to the game layer of c's dialect.
func (s *Server) onMessage(c *client, ch netproto.Chunk, at time.Time) {
	id, system, n, err := netproto.ParseMsgHeader(ch.Data)
	if err != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	body := ch.Data[n:]
	vital := ch.Flags&netproto.ChunkVital != 0
	if system {
		s.sysH = sysHandler{s: s, c: c, at: at}
		st := session.Status{State: c.state, StartInfo: c.gotStartInfo, RconAuthed: c.rcon.Authed}
		s.sess.Dispatch(c.conn.Dialect(), id, body, vital, st, &s.sysH)
		s.sysH = sysHandler{}
		return
	}
	if !vital {
		return // game messages must be vital
	}
	if c.conn.Dialect().Is6() {
		s.onGameMessage6(c, id, body)
		return
	}
	s.rec.Message(c.id, c.state >= session.Ready, id, ch.Data)
	s.onGameMessage(c, id, body)
}

// sysHandler is the loop's side of one slot's system messages
// (session.Handler), valid for one Dispatch.
type sysHandler struct {
	s  *Server
	c  *client
	at time.Time // the datagram's arrival
}

// Info checks the version and password (session.Refusal) and starts the
// map change.
func (h *sysHandler) Info(version, password string, clientVersion int32) {
	s, c := h.s, h.c
	if reason := session.Refusal(c.conn.Dialect(), version, password, s.cfg.Server.Password); reason != "" {
		s.dropClient(c, reason)
		return
	}
	c.version = clientVersion
	c.state = session.Connecting
	s.progress(c)
	s.sendMapChange(c)
}

// RequestMapData answers with map chunks: the 0.7 window (mapdl.go), or
// 0.6's chunk (mapdl.Download.Answer6). A request for a chunk not sent
// before is progress (pregame.go).
func (h *sysHandler) RequestMapData(chunk int32) {
	s, c := h.s, h.c
	if !c.conn.Dialect().Is6() {
		if c.dl.Chunk*mapdl.ChunkSize < s.curMap.Size {
			s.progress(c) // a request after the end of the map is no progress
		}
		s.sendMapData(c, true)
	} else if ok, moved := c.dl.Answer6(s.map6(), chunk, &s.pk); ok {
		if moved {
			s.progress(c)
		}
		s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
	}
}

// Ready moves c to READY: the ongoing vote, the MOTD, the server
// settings and CON_READY.
func (h *sysHandler) Ready() {
	s, c := h.s, h.c
	c.state = session.Ready
	s.progress(c)
	s.log.Debug().Int("cid", c.id).Str("addr", c.addr.String()).Msg("client is ready")
	s.con.Ready(c.id, c.addr)
	if m, ok := s.vote.Ongoing(s.now()); ok {
		s.sendGame(c, &m, false)
	}
	s.sendGame(c, &gamemsg.SvMotd{Message: s.cfg.Server.MOTD}, false) // also when empty, as the reference
	s.sendGame(c, s.serverSettings(), false)
	s.sendSys(c, netproto.NetmsgConReady, true, nil)
}

// EnterGame puts c into the game.
func (h *sysHandler) EnterGame() { h.s.enterGame(h.c) }

// Input applies an input (snapsend.go).
func (h *sysHandler) Input(in *session.Input) { h.s.onInput(h.c, in, h.at) }

// RconAuth checks an rcon password (console.go).
func (h *sysHandler) RconAuth(password string, sendCmdList bool) {
	h.s.rconAuth(h.c, password, sendCmdList)
}

// RconCmd runs an rcon command line.
func (h *sysHandler) RconCmd(line string) {
	s, c := h.s, h.c
	s.log.Info().Int("cid", c.id).Str("name", c.name).Str("cmd", line).Msg("rcon command")
	s.con.Rcon(c.id, line)
	if s.runConsole(console.RconCaller(c.id), line) {
		s.pendingShutdown = true
	}
}

// ClientVersion keeps a DDNet client's version.
func (h *sysHandler) ClientVersion(v int32) { h.c.ddnetVersion = v }

// Send sends a system message the session packed.
func (h *sysHandler) Send(msg []byte, flags netproto.SendFlags) { h.s.sendMsg(h.c, msg, flags) }

// BadMessage counts a message that did not decode.
func (h *sysHandler) BadMessage() { h.s.stats.BadMessages.Add(1) }

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

// onStartInfo handles Cl_StartInfo (once per connection, state READY) and
// answers with vote options, tuning and Sv_ReadyToEnter.
func (s *Server) onStartInfo(c *client, m *gamemsg.ClStartInfo) {
	if c.state != session.Ready || c.gotStartInfo {
		return
	}
	c.gotStartInfo = true
	c.name = session.StartName(m.Name, c.id)
	c.clan = session.Clan(m.Clan)
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
	c.state = session.Ingame
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
		if o == c || o.state != session.Ingame {
			continue
		}
		s.sendGame(c, s.clientInfo(o, false), false)
		s.sendGame(o, me, false)
	}
	s.sendBotInfos(c)
	local := s.clientInfo(c, true)
	local.Silent = me.Silent
	s.sendGame(c, local, true)
	s.log.Info().Int("cid", c.id).Str("name", c.name).Str("addr", c.addr.String()).
		Int("team", s.world.Team(c.id)).Msg("player has entered the game")
	s.con.Enter(c.id, c.addr, c.name, s.world.Team(c.id))
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
