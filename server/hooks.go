package server

import (
	"crypto/rand"
	"encoding/binary"
	"net/netip"

	"twserver/netproto"
)

// Side channels (master registration, Agones, metrics, econ) watch the
// server through hooks. Every hook is called from a server goroutine and
// must return at once without blocking (hand the work to your own goroutine
// over a bounded channel or an atomic); hooks are installed before Run.

// EventKind says what happened.
type EventKind uint8

// Event kinds.
const (
	// EventStarted: the game loop runs (the socket is bound, the map loaded).
	EventStarted EventKind = iota + 1
	// EventInfo: the server info changed; Event.Info holds the new one.
	EventInfo
	// EventPlayerEnter: a client entered the game (ClientID, Name, Addr).
	EventPlayerEnter
	// EventPlayerLeave: a client that was in the game left it (ClientID, Name, Addr).
	EventPlayerLeave
)

// Event is one thing the game loop reports to its observers.
type Event struct {
	Kind     EventKind
	ClientID int
	Name     string
	Addr     netip.AddrPort
	Info     *Info // EventInfo only; never modified after the event
}

// Info is the server description shown to browsers and masters.
type Info struct {
	Name       string
	GameType   string
	Version    string
	MapName    string
	MapSHA256  [32]byte
	MapSize    int
	MaxClients int
	MaxPlayers int
	Passworded bool
	// NumPlayers counts the in-game non-spectators among Clients.
	NumPlayers int
	Clients    []InfoClient
}

// InfoClient is one connected client in Info; clients still connecting are
// listed as "(connecting)" spectators, as in the browser info.
type InfoClient struct {
	Name     string
	Clan     string
	Country  int
	Score    int
	IsPlayer bool
}

// Observe adds f to the functions the game loop calls with each Event, in
// order. Call it before Run; f must not block.
func (s *Server) Observe(f func(Event)) { s.observers = append(s.observers, f) }

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

// newGlobalToken returns a random token other than TokenNone.
func newGlobalToken() netproto.Token {
	var b [4]byte
	for {
		_, _ = rand.Read(b[:])
		if t := netproto.Token(binary.BigEndian.Uint32(b[:])); t != netproto.TokenNone {
			return t
		}
	}
}

// emit hands e to every observer.
func (s *Server) emit(e Event) {
	for _, f := range s.observers {
		f(e)
	}
}

// emitPlayer reports a player entering or leaving.
func (s *Server) emitPlayer(kind EventKind, c *client) {
	if kind == EventPlayerEnter {
		s.countEvent(eventJoin)
	} else {
		s.countEvent(eventLeave)
	}
	s.livePlayer(kind, c)
	if len(s.observers) > 0 {
		s.emit(Event{Kind: kind, ClientID: c.id, Name: c.name, Addr: c.addr})
	}
}

// emitInfo reports the new server info, built from the rows publishInfo used.
func (s *Server) emitInfo(rows []infoPlayer, numPlayers int) {
	if len(s.observers) == 0 {
		return
	}
	maxPlayers, maxClients := s.infoLimits(numPlayers, len(rows))
	in := &Info{
		Name: s.cfg.Server.Name, GameType: s.gameTypeName(), Version: GameVersion,
		MapName: s.curMap.Name, MapSHA256: s.curMap.SHA256, MapSize: s.curMap.Size,
		MaxClients: maxClients, MaxPlayers: maxPlayers,
		Passworded: s.cfg.Server.Password != "", NumPlayers: numPlayers,
		Clients: make([]InfoClient, len(rows)),
	}
	for i, r := range rows {
		in.Clients[i] = InfoClient{Name: r.Name, Clan: r.Clan, Country: int(r.Country), Score: int(r.Score), IsPlayer: !r.Spectator}
	}
	s.emit(Event{Kind: EventInfo, Info: in})
}
