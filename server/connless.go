package server

import (
	"twserver/edge"
	"twserver/netproto"
	"twserver/session"
	"twserver/world"
)

// gameTypeName is the game type shown in the browser: the running game's
// (a changed sv_gametype shows from the next map load on).
func (s *Server) gameTypeName() string { return s.world.GameTypeName() }

// infoHead is what the info says of the server, with numPlayers players
// among numClients clients.
func (s *Server) infoHead(numPlayers, numClients int) edge.InfoHead {
	maxPlayers, maxClients := s.infoLimits(numPlayers, numClients)
	return edge.InfoHead{
		Name: s.cfg.Server.Name, GameType: s.gameTypeName(),
		Version: s.version[0], Version6: s.version[1], Hostname: s.cfg.Server.Hostname, SkillLevel: s.cfg.Server.SkillLevel,
		MapName: s.curMap.Name, MapCRC: s.curMap.CRC, MapSize: s.curMap.Size,
		Passworded: s.cfg.Server.Password != "",
		NumPlayers: numPlayers, MaxPlayers: maxPlayers, MaxClients: maxClients,
	}
}

// appendInfoHeader packs the fields shared by inf3 and NETMSG_SERVERINFO:
// version .. max clients (net.md A6.2/A6.3).
func (s *Server) appendInfoHeader(p *netproto.Packer, numPlayers, numClients int) {
	hd := s.infoHead(numPlayers, numClients)
	hd.Append7(p, numClients)
}

// infoLimits returns the max players and max clients shown in the info:
// never fewer than are there.
func (s *Server) infoLimits(numPlayers, numClients int) (maxPlayers, maxClients int) {
	maxClients = max(numClients, s.cfg.Server.MaxClients)
	return max(min(s.cfg.Server.PlayerSlots, maxClients), numPlayers), maxClients
}

// infoPlayers lists the non-empty slots for server info in s.infoRows
// (reused, valid until the next call).
func (s *Server) infoPlayers() (rows []edge.InfoPlayer, numPlayers int) {
	rows = s.infoRows[:0]
	for _, c := range s.clients {
		if c.state == session.Empty {
			continue
		}
		// Clients not yet in the game are listed as "(connecting)" spectators;
		// only in-game non-spectators count as players (the browser drops
		// entries with more players than player slots).
		r := edge.InfoPlayer{Name: "(connecting)", Country: -1, Spectator: true}
		if c.state == session.Ingame {
			r.Name, r.Clan, r.Country = c.name, c.clan, c.country
			r.Score = int32(s.world.Score(c.id))
			r.Spectator = s.world.Team(c.id) == world.TeamSpectators
		}
		if !r.Spectator {
			numPlayers++
		}
		rows = append(rows, r)
	}
	for cid := range s.clients {
		if b := s.bots.At(cid); b != nil && s.world.HasPlayer(cid) {
			spec := s.world.Team(cid) == world.TeamSpectators
			rows = append(rows, edge.InfoPlayer{Name: b.Name, Country: -1, Score: int32(s.world.Score(cid)), Spectator: spec, Bot: true})
			if !spec {
				numPlayers++
			}
		}
	}
	s.infoRows = rows
	return rows, numPlayers
}

// publishInfo rebuilds the server-info body and hands it to the reader.
// Called by the loop whenever the player list, names or the map change.
func (s *Server) publishInfo() {
	rows, numPlayers := s.infoPlayers()
	hd := s.infoHead(numPlayers, len(rows))
	s.infoSig = s.infoSignature()
	sv := &s.cfg.Server
	s.edge.Publish(&edge.InfoSnapshot{Body: edge.BuildInfo7(hd, rows), Six: edge.BuildInfo6(hd, rows),
		Accept07: sv.Accept07, Accept06: sv.Accept06, Vanilla6: sv.Accept06 && sv.Password == ""})
	s.emitInfo(rows, numPlayers)
}

// infoSignature summarizes what the server info shows that changes during
// play (scores, teams), so the info is only rebuilt when it changed.
func (s *Server) infoSignature() uint64 {
	var h uint64 = 1469598103934665603
	for _, c := range s.clients {
		v := uint64(c.state)
		if c.state == session.Ingame || s.bots.Has(c.id) {
			v = v<<40 ^ uint64(uint32(s.world.Score(c.id)))<<8 ^ uint64(uint8(s.world.Team(c.id)))
		}
		h = (h ^ v) * 1099511628211
	}
	return h
}
