package observe

import "net/netip"

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
	// Kind says what happened.
	Kind EventKind
	// ClientID is the client's slot (player events).
	ClientID int
	// Name is the client's name (player events).
	Name string
	// Addr is the client's address (player events).
	Addr netip.AddrPort
	// Info is the new server info (EventInfo only); never modified after the event.
	Info *Info
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

// Observers is the ordered list of functions called with each Event.
type Observers []func(Event)

// Add appends f; call it before the loop runs.
func (o *Observers) Add(f func(Event)) { *o = append(*o, f) }

// Any reports whether an observer is installed (the loop builds an
// Event's values only then).
func (o Observers) Any() bool { return len(o) > 0 }

// Emit hands e to every observer, in order.
func (o Observers) Emit(e Event) {
	for _, f := range o {
		f(e)
	}
}
