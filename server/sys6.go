package server

import (
	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/mapdl"
	"twserver/mapstore"
	"twserver/netproto"
	"twserver/session"
	"twserver/world/twmap"
)

// The 0.6 side of the system layer's glue (the message table is
// session's): game messages through the translation, the 0.6 map download
// and the players the translation is told. The client states, the world,
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

// deriveMap6 makes the 0.6 variant of m (mapdl.Derive6); if m cannot be
// converted, 0.6 clients get the map as it is (logged).
func (s *Server) deriveMap6(m *twmap.Map) mapdl.Variant6 {
	v, err := mapdl.Derive6(m)
	if err != nil {
		s.log.Warn().Err(err).Str("map", m.Name).Msg("no 0.6 variant of the map: 0.6 clients get it as it is")
	}
	return v
}

// map6 is the map a 0.6 client is sent (the variant of the current map),
// derived at the first call after a map change, or shared with another
// game of the process on the same map (mapstore.Variant6).
func (s *Server) map6() *mapdl.Variant6 {
	if s.curMap6 == nil {
		s.curMap6 = mapstore.Variant6(s.curMap, s.deriveMap6)
	}
	return s.curMap6
}

// sendMapChange6 announces the map to a 0.6 client: DDNet's map-details
// (with SHA-256) first for DDNet clients, then the 0.6 MAP_CHANGE.
func (s *Server) sendMapChange6(c *client) {
	m := s.map6()
	c.dl.Start6()
	if session.SendMapDetails6 && c.conn.Dialect() == netproto.DialectDDNet {
		m.PackDetails(&s.pk)
		s.sendMsg(c, s.pk.Bytes(), netproto.SendVital)
	}
	m.PackChange(&s.pk)
	s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
}

// sendMapData6 answers REQUEST_MAP_DATA(chunk) with that chunk
// (mapdl.Download.Answer6); a chunk not asked for before is progress
// (pregame.go).
func (s *Server) sendMapData6(c *client, chunk int32) {
	ok, moved := c.dl.Answer6(s.map6(), chunk, &s.pk)
	if !ok {
		return
	}
	if moved {
		s.progress(c)
	}
	s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
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
