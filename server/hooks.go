package server

import (
	"net/netip"

	"twserver/edge"
	"twserver/metrics"
	"twserver/netproto"
	"twserver/observe"
)

// Side channels (master registration, Agones, metrics, econ) watch the
// server through hooks (package observe holds the events). Every hook is
// called from a server goroutine and must return at once without blocking;
// hooks are installed before Run.

// Observe adds f to the functions the game loop calls with each Event, in
// order. Call it before Run; f must not block.
func (s *Server) Observe(f func(observe.Event)) { s.observers.Add(f) }

// Bans is the ban list, for a live upgrade: exported with the loop held, restored before Run.
func (s *Server) Bans() *edge.BanList { return &s.bans }

// OnMasterChallenge installs the function the socket reader calls with the
// payload of a master's registration challenge (starting with
// "\xff\xff\xff\xffchal"): 0.7 connless packets carrying the global token
// (ConnlessToken) and 0.6 connless packets. f reports whether the payload
// was a valid challenge and must not keep it. Call it before Run.
func (s *Server) OnMasterChallenge(f func(payload []byte) bool) { s.edge.Master.Challenge = f }

// OnMasterPacket installs the function the socket reader calls with what a
// legacy 0.7 master sends to the game port (net.md A6.5): token replies to
// SendTokenRequest (token = the master's token, payload nil) and connless
// packets whose payload starts with "\xff\xff\xff\xff" + "fw??", "fwok" or
// "fwer" and that carry the global token or a token valid for the sender
// (token = the packet's response token). f reports whether the packet came
// from a master it knows; it must not block or keep payload. Call it before Run.
func (s *Server) OnMasterPacket(f func(from netip.AddrPort, token uint32, payload []byte) bool) {
	s.edge.Master.Packet = f
}

// SendTokenRequest sends a 0.7 TOKEN request carrying the global token from
// the game socket (to a legacy master). Safe from any goroutine.
func (s *Server) SendTokenRequest(to netip.AddrPort) {
	s.write(netproto.AppendTokenRequest(nil, s.edge.Master.Token), to)
}

// SendConnless sends a 0.7 connless packet from the game socket, addressed
// with token and answering to the global token. Safe from any goroutine;
// payload must fit netproto.MaxPayload.
func (s *Server) SendConnless(to netip.AddrPort, token uint32, payload []byte) {
	s.write(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: netproto.Token(token), ResponseToken: s.edge.Master.Token}, payload), to)
}

// ConnlessToken is the server's global 0.7 token: announced to the master
// (Connless-Token) and accepted from any address on its challenge packet.
func (s *Server) ConnlessToken() uint32 { return uint32(s.edge.Master.Token) }

// emitStarted reports that the game loop runs.
func (s *Server) emitStarted() { s.observers.Emit(observe.Event{Kind: observe.EventStarted}) }

// emitEnter reports a client entering the game.
func (s *Server) emitEnter(c *client) { s.emitPlayer(observe.EventPlayerEnter, c) }

// emitLeave reports a client that was in the game leaving it.
func (s *Server) emitLeave(c *client) { s.emitPlayer(observe.EventPlayerLeave, c) }

// emitPlayer reports a player entering or leaving.
func (s *Server) emitPlayer(kind observe.EventKind, c *client) {
	if kind == observe.EventPlayerEnter {
		s.countEvent(metrics.EventJoin)
	} else {
		s.countEvent(metrics.EventLeave)
	}
	s.livePlayer(kind, c)
	if s.observers.Any() {
		s.observers.Emit(observe.Event{Kind: kind, ClientID: c.id, Name: c.name, Addr: c.addr})
	}
}

// emitInfo reports the new server info, built from the rows publishInfo used.
func (s *Server) emitInfo(rows []edge.InfoPlayer, numPlayers int) {
	if !s.observers.Any() {
		return
	}
	maxPlayers, maxClients := s.infoLimits(numPlayers, len(rows))
	hd, rows := edge.HumansOnly(edge.InfoHead{NumPlayers: numPlayers}, rows) // the masters count humans only
	numPlayers = hd.NumPlayers
	in := &observe.Info{
		Name: s.cfg.Server.Name, GameType: s.gameTypeName(), Version: s.version[0],
		MapName: s.curMap.Name, MapSHA256: s.curMap.SHA256, MapSize: s.curMap.Size,
		MaxClients: maxClients, MaxPlayers: maxPlayers,
		Passworded: s.cfg.Server.Password != "", NumPlayers: numPlayers,
		Clients: make([]observe.InfoClient, len(rows)),
	}
	for i, r := range rows {
		in.Clients[i] = observe.InfoClient{Name: r.Name, Clan: r.Clan, Country: int(r.Country), Score: int(r.Score), IsPlayer: !r.Spectator}
	}
	s.observers.Emit(observe.Event{Kind: observe.EventInfo, Info: in})
}
