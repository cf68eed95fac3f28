package server

import (
	"bytes"
	"net/netip"

	"twserver/netproto"
)

// Connless magics (net.md A6.1).
var (
	magicGetInfo = []byte("\xff\xff\xff\xffgie3")
	magicInfo    = []byte("\xff\xff\xff\xffinf3")
)

// Server info limits (net.md A6.2).
const (
	// infoMaxPayload is the largest connless payload the server sends.
	infoMaxPayload = netproto.MaxPayload - 1
)

// infoSnapshot is the server-info body published by the loop for the reader:
// everything after the browser token of an inf3 reply. Immutable once published.
type infoSnapshot struct {
	body []byte
}

// infoPlayer is one row of the server info client list.
type infoPlayer struct {
	name, clan string
	country    int32
	score      int32
	spectator  bool
}

// gameTypeName is the game type shown in the browser: the running game's
// (a changed sv_gametype shows from the next map load on).
func (s *Server) gameTypeName() string { return s.world.GameTypeName() }

// appendInfoHeader packs the fields shared by inf3 and NETMSG_SERVERINFO:
// version .. max clients (net.md A6.2/A6.3).
func (s *Server) appendInfoHeader(p *netproto.Packer, numPlayers, numClients int) {
	flags := int32(0)
	if s.cfg.Server.Password != "" {
		flags |= 1
	}
	maxPlayers, maxClients := s.infoLimits(numPlayers, numClients)
	p.AddStringLimit(GameVersion, 32)
	p.AddStringLimit(s.cfg.Server.Name, 64)
	p.AddStringLimit(s.cfg.Server.Hostname, 128)
	p.AddStringLimit(s.curMap.Name, 32)
	p.AddStringLimit(s.gameTypeName(), 16)
	p.AddInt(flags)
	p.AddInt(int32(s.cfg.Server.SkillLevel))
	p.AddInt(int32(numPlayers))
	p.AddInt(int32(maxPlayers))
	p.AddInt(int32(numClients))
	p.AddInt(int32(maxClients))
}

// infoLimits returns the max players and max clients shown in the info:
// never fewer than are there.
func (s *Server) infoLimits(numPlayers, numClients int) (maxPlayers, maxClients int) {
	maxClients = max(numClients, s.cfg.Server.MaxClients)
	return max(min(s.cfg.Server.PlayerSlots, maxClients), numPlayers), maxClients
}

// infoPlayers lists the non-empty slots for server info in s.infoRows
// (reused, valid until the next call).
func (s *Server) infoPlayers() (rows []infoPlayer, numPlayers int) {
	rows = s.infoRows[:0]
	for _, c := range s.clients {
		if c.state == stateEmpty {
			continue
		}
		// Clients not yet in the game are listed as "(connecting)" spectators;
		// only in-game non-spectators count as players (the browser drops
		// entries with more players than player slots).
		r := infoPlayer{name: "(connecting)", country: -1, spectator: true}
		if c.state == stateIngame {
			r.name, r.clan, r.country = c.name, c.clan, c.country
			r.score = int32(s.world.Score(c.id))
			r.spectator = s.world.Team(c.id) == teamSpectators
		}
		if !r.spectator {
			numPlayers++
		}
		rows = append(rows, r)
	}
	s.infoRows = rows
	return rows, numPlayers
}

// publishInfo rebuilds the server-info body and hands it to the reader.
// Called by the loop whenever the player list, names or the map change.
func (s *Server) publishInfo() {
	var p netproto.Packer
	rows, numPlayers := s.infoPlayers()
	s.appendInfoHeader(&p, numPlayers, len(rows))
	var row netproto.Packer
	for _, r := range rows {
		row.Reset()
		row.AddStringLimit(r.name, 16)
		row.AddStringLimit(r.clan, 12)
		row.AddInt(r.country)
		row.AddInt(r.score)
		if r.spectator {
			row.AddInt(1)
		} else {
			row.AddInt(0)
		}
		// The reply must fit one packet: magic (8) + token (<=5) + body.
		if p.Len()+row.Len() > infoMaxPayload-8-netproto.MaxVarintSize {
			break
		}
		p.AddRaw(row.Bytes())
	}
	s.infoSig = s.infoSignature()
	body := append([]byte(nil), p.Bytes()...)
	s.info.Store(&infoSnapshot{body: body})
	s.emitInfo(rows, numPlayers)
}

// answerConnless handles a connless packet with a valid token in the reader:
// only the server info request (gie3) is answered.
func (s *Server) answerConnless(to netip.AddrPort, h netproto.ConnlessHeader, payload []byte, own netproto.Token, out []byte) {
	if !bytes.HasPrefix(payload, magicGetInfo) {
		s.stats.Malformed.Add(1)
		return
	}
	tok, _, err := netproto.ParseInt(payload[len(magicGetInfo):])
	if err != nil {
		s.stats.Malformed.Add(1)
		return
	}
	info := s.info.Load()
	if info == nil {
		return
	}
	var body [netproto.MaxPayload]byte
	b := append(body[:0], magicInfo...)
	b = netproto.AppendInt(b, tok)
	b = append(b, info.body...)
	if len(b) > infoMaxPayload {
		return
	}
	out = netproto.AppendConnless(out, netproto.ConnlessHeader{Token: h.ResponseToken, ResponseToken: own}, b)
	s.write(out, to)
	s.stats.InfoReplies.Add(1)
}

// infoSignature summarizes what the server info shows that changes during
// play (scores, teams), so the info is only rebuilt when it changed.
func (s *Server) infoSignature() uint64 {
	var h uint64 = 1469598103934665603
	for _, c := range s.clients {
		v := uint64(c.state)
		if c.state == stateIngame {
			v = v<<40 ^ uint64(uint32(s.world.Score(c.id)))<<8 ^ uint64(uint8(s.world.Team(c.id)))
		}
		h = (h ^ v) * 1099511628211
	}
	return h
}
