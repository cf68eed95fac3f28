package server

import (
	"math/bits"
	"time"

	"twserver/chat"
	"twserver/gamemsg"
	"twserver/mapstore"
	"twserver/metrics"
	"twserver/session"
	"twserver/world"
)

// onGameMessage decodes a vital game message and acts on it.
func (s *Server) onGameMessage(c *client, id int32, body []byte) {
	if c.state < session.Ready {
		return
	}
	s.up.Reset(body)
	m, err := gamemsg.Decode(id, &s.up)
	if err != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	s.handleGameMessage(c, m)
}

// handleGameMessage acts on a decoded client game message (0.7 form; 0.6
// clients' messages arrive translated).
func (s *Server) handleGameMessage(c *client, m gamemsg.Message) {
	if c.state < session.Ready {
		return
	}
	if st, ok := m.(*gamemsg.ClStartInfo); ok {
		s.onStartInfo(c, st)
		return
	}
	if c.state != session.Ingame {
		return
	}
	now := s.now()
	switch m := m.(type) {
	case *gamemsg.ClSay:
		s.onSay(c, m, now)
	case *gamemsg.ClSetTeam:
		s.world.SetTeam(c.id, int(m.Team))
	case *gamemsg.ClSetSpectatorMode:
		s.world.SetSpectatorMode(c.id, int(m.SpecMode), int(m.SpectatorID))
	case *gamemsg.ClKill:
		s.world.Kill(c.id)
	case *gamemsg.ClEmoticon:
		if !c.chat.Emote(now) {
			return
		}
		s.broadcastGame(-1, &gamemsg.SvEmoticon{ClientID: int32(c.id), Emoticon: m.Emoticon})
	case *gamemsg.ClSkinChange:
		if !chat.Spaced(c.lastSkin, now, chat.SkinInterval) {
			return
		}
		c.lastSkin = now
		c.skin = m.Skin
		c.infoChanges++
		s.world.SetPlayerInfo(c.id, s.playerInfo(c)) // demo snapshots (De_ClientInfo)
		// for the teehistorian (SERVER_MESSAGE); demos leave Sv_SkinChange out
		s.rec.GameMessage(&gamemsg.SvSkinChange{ClientID: int32(c.id), Skin: m.Skin})
		for _, o := range s.clients {
			if o.state == session.Ingame && o.version >= 0x0703 {
				s.sendGame(o, &gamemsg.SvSkinChange{ClientID: int32(c.id), Skin: m.Skin}, false)
			}
		}
	case *gamemsg.ClVote:
		s.onVote(c, int(m.Vote))
	case *gamemsg.ClCallVote:
		s.onCallVote(c, m, now)
	case *gamemsg.ClReadyChange:
		s.world.ReadyChange(c.id)
	default:
		// Cl_Command: the server announces no chat commands.
	}
}

// onSay handles Cl_Say: cleaned, rate-limited and routed by the chat
// policy (package chat), sent to all, the team or one player.
func (s *Server) onSay(c *client, m *gamemsg.ClSay, now time.Duration) {
	text := chat.Clean(m.Message)
	if text == "" || !c.chat.Line(text, now) {
		return
	}
	s.countEvent(metrics.EventChat)
	team := s.world.Team(c.id)
	mode, ok := chat.Route(m.Mode, int(m.Target), chat.Sender{Team: team, Authed: c.rcon.Authed}, s.cfg.Game.TournamentMode, s.world.GameRunning(), s.world)
	if !ok {
		return
	}
	if mode == gamemsg.ChatWhisper {
		t := int(m.Target)
		if t < 0 || t >= len(s.clients) || s.clients[t].state != session.Ingame || t == c.id {
			return
		}
		s.log.Info().Int("cid", c.id).Str("name", c.name).Int("to", t).Str("text", text).Msg("whisper")
		w := &gamemsg.SvChat{Mode: gamemsg.ChatWhisper, ClientID: int32(c.id), TargetID: int32(t), Message: text}
		s.sendGame(s.clients[t], w, false)
		s.sendGame(c, w, false)
		return
	}
	s.log.Info().Int("cid", c.id).Str("name", c.name).Bool("team", mode == gamemsg.ChatTeam).Str("text", text).Msg("chat")
	s.con.Chat(c.id, c.name, mode, team, text)
	msg := &gamemsg.SvChat{Mode: mode, ClientID: int32(c.id), TargetID: -1, Message: text}
	if mode == gamemsg.ChatAll {
		s.rec.GameMessage(msg)
		s.liveChat(c.id, c.name, text)
	}
	for _, o := range s.clients {
		if o.state == session.Ingame && (mode != gamemsg.ChatTeam || s.world.Team(o.id) == team) {
			s.sendGame(o, msg, false)
		}
	}
}

// serverChat sends a server chat line (client id -1) to one client or all.
func (s *Server) serverChat(to int, text string) {
	s.con.ServerChat(text)
	if to < 0 {
		s.liveChat(-1, "", text)
	}
	s.broadcastGame(to, &gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: -1, TargetID: -1, Message: gamemsg.TruncUTF8(text, chat.MaxLen)})
}

// onWorldEvent turns a world event into game messages.
func (s *Server) onWorldEvent(e world.Event) {
	s.conWorldEvent(e)
	switch e.Kind {
	case world.EvKillMsg:
		s.countEvent(metrics.EventKill)
		if e.FeedKill() { // not a leave or team change (its own line, or none)
			s.liveKill(e.Args[0], e.Args[1], e.Args[2])
		}
		s.killMsg = gamemsg.SvKillMsg{Killer: e.Args[0], Victim: e.Args[1], Weapon: e.Args[2], ModeSpecial: e.Args[3]}
		s.broadcastGame(e.To, &s.killMsg)
	case world.EvTeam:
		s.broadcastGame(e.To, &gamemsg.SvTeam{ClientID: e.Args[0], Team: e.Args[1], Silent: e.Args[2] != 0, CooldownTick: e.Args[3]})
		s.voteTeamChanged(int(e.Args[0]), int(e.Args[1]))
	case world.EvGameMsg:
		if e.Args[0] == world.GameMsgCTFCapture {
			s.countEvent(metrics.EventFlagCapture)
		}
		s.broadcastGame(e.To, &gamemsg.SvGameMsg{GameMsgID: e.Args[0], Params: [3]int32{e.Args[1], e.Args[2], e.Args[3]}})
	case world.EvWeaponPickup:
		s.broadcastGame(e.To, &gamemsg.SvWeaponPickup{Weapon: e.Args[0]})
	case world.EvGameInfo:
		s.broadcastGame(e.To, &gamemsg.SvGameInfo{GameFlags: e.Args[0], ScoreLimit: e.Args[1], TimeLimit: e.Args[2], MatchNum: e.Args[3], MatchCurrent: e.Args[4]})
	case world.EvCycleMap:
		s.pendingMap = mapstore.Next(s.cfg.Map, s.curMap.Name)
	case world.EvKick:
		if e.To >= 0 && e.To < len(s.clients) && e.To < 64 {
			s.pendingKicks |= 1 << e.To // dropped after DrainEvents: dropping changes the world
		}
	}
}

// ReasonInactive is the CLOSE reason of a client the world kicked for inactivity.
const ReasonInactive = "Kicked for inactivity"

// dropKicked drops the clients the world kicked during the last tick.
func (s *Server) dropKicked() {
	for k := s.pendingKicks; k != 0; k &= k - 1 {
		if c := s.clients[bits.TrailingZeros64(k)]; c.state != session.Empty {
			s.dropClient(c, ReasonInactive)
		}
	}
	s.pendingKicks = 0
}
