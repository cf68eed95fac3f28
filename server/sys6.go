package server

import (
	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/netproto"
)

// The 0.6 side of the loop's glue (the system messages are session's, the
// map download mapdl.go's): game messages through the translation and the
// players the translation is told. The client states, the world,
// votes, chat and recording are the 0.7 ones; this file only translates at
// the edge.

// onGameMessage6 handles a vital game message from a 0.6 client.
func (s *Server) onGameMessage6(c *client, id int32, body []byte) {
	if id == netproto.Netmsg6Ex {
		return // DDNet's extended game messages: none is needed
	}
	m, err := s.trans6.ClientMessage(c.id, id, body)
	if err != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	if m == nil {
		return
	}
	ci, changeInfo := m.(*dialect6.ChangeInfo)
	if changeInfo {
		m = &ci.ClSkinChange // recorded in its 0.7 form; applied whole (rename6.go)
	}
	if s.rec.Active() { // recordings keep the 0.7 form
		var p netproto.Packer
		if gamemsg.Encode(&p, m) == nil && p.Err() == nil {
			s.rec.Message(c.id, c.state >= stateReady, m.ID(), p.Bytes())
		}
	}
	if changeInfo {
		s.onChangeInfo6(c, ci)
		return
	}
	s.handleGameMessage(c, m)
}

// setPlayers6 tells the 0.6 translation every slot's player (name, clan,
// skin, team: what 0.6 snapshots carry and 0.7 sends in messages) before a
// round of snapshots, when a 0.6 client is in the game, skipping the
// slots where nothing changed (PlayerCurrent; BenchmarkSetPlayers6).
func (s *Server) setPlayers6() {
	any6 := false
	for _, c := range s.clients {
		if c.state == stateIngame && c.conn.Dialect().Is6() {
			any6 = true
			break
		}
	}
	if !any6 {
		return
	}
	for _, c := range s.clients {
		in := c.state == stateIngame
		var team int32
		if in {
			team = int32(s.world.Team(c.id))
		}
		if s.trans6.PlayerCurrent(c.id, in, team, c.infoChanges) {
			continue
		}
		var p dialect6.Player
		if in {
			p = dialect6.Player{Name: c.name, Clan: c.clan, Country: c.country, Skin: c.skin, Team: team}
		}
		s.trans6.SetPlayerVersion(c.id, p, in, c.infoChanges)
	}
}

// sendGame6 sends a 0.6 client the translation of a game message: zero or
// more 0.6 messages, vital, the last one flushed when flush is set.
func (s *Server) sendGame6(c *client, m gamemsg.Message, flush bool) {
	out, err := s.trans6.ServerMessage(m, c.id)
	if err != nil {
		s.warn().Err(err).Str("msg", gamemsg.Name(m.ID())).Msg("game message not translated for a 0.6 client")
	}
	if out == nil {
		return
	}
	for i := range out.Len() {
		flags := netproto.SendVital
		if flush && i == out.Len()-1 {
			flags |= netproto.SendFlush
		}
		s.sendMsg(c, out.Msg(i), flags)
		if c.state == stateEmpty {
			return
		}
	}
}
