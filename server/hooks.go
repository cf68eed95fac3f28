package server

import (
	"twserver/edge"
	"twserver/metrics"
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

// Master is the game socket's side of master registration (package edge):
// its Challenge and Packet hooks, called from the socket reader, are set
// before Run; its Token is the server's global 0.7 token; its Send methods
// are safe from any goroutine.
func (s *Server) Master() *edge.Master { return &s.edge.Master }

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
