package metrics

import (
	"sync/atomic"

	"twserver/edge"
	"twserver/sockio"
)

// Operator-facing gauges and counters the game loop publishes. The loop
// only stores plain values into atomics (no lock, no allocation); the
// collector loads them at scrape time.

// ClientStates names the slot states counted in Gauges.Clients, in index
// order (index 0, "empty", is never counted). The server's slot states
// have the same order.
var ClientStates = [...]string{"empty", "auth", "connecting", "ready", "ingame"}

// Dialects names the protocol dialects counted in Gauges.Clients, in index order.
var Dialects = [...]string{"0.7", "0.6"}

// Indexes in Dialects: 0.7, and 0.6 (vanilla or with DDNet's token).
const (
	Dialect07 = 0
	Dialect06 = 1
)

// SizeBuckets are the upper bounds (bytes) of the snapshot size histogram.
var SizeBuckets = [...]float64{16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}

// SizeHist is a histogram of byte sizes in atomic counters (one writer,
// any number of readers).
type SizeHist struct {
	count  atomic.Uint64
	sum    atomic.Uint64
	counts [len(SizeBuckets) + 1]atomic.Uint64 // non-cumulative; last = above every bound
}

// Observe records one size.
func (h *SizeHist) Observe(n int) {
	h.count.Add(1)
	h.sum.Add(uint64(n))
	i := 0
	for i < len(SizeBuckets) && float64(n) > SizeBuckets[i] {
		i++
	}
	h.counts[i].Add(1)
}

// Count is the number of observations.
func (h *SizeHist) Count() uint64 { return h.count.Load() }

// Sum is the total of the observed sizes.
func (h *SizeHist) Sum() uint64 { return h.sum.Load() }

// Buckets returns the cumulative counts at each of SizeBuckets.
func (h *SizeHist) Buckets() [len(SizeBuckets)]uint64 {
	var out [len(SizeBuckets)]uint64
	cumulate(out[:], h.counts[:])
	return out
}

// cumulate stores in dst the running sums of the first len(dst) counters.
func cumulate(dst []uint64, counts []atomic.Uint64) {
	var cum uint64
	for i := range dst {
		cum += counts[i].Load()
		dst[i] = cum
	}
}

// Gauges are values the loop republishes once per tick, and counters of
// events only the loop sees. Safe for concurrent reads.
type Gauges struct {
	// Clients counts occupied slots by dialect and state (index as in
	// Dialects and ClientStates).
	Clients [len(Dialects)][len(ClientStates)]atomic.Int32
	// Players counts in-game clients that are not spectators, by dialect.
	Players [len(Dialects)]atomic.Int32
	// Spectators counts in-game spectators, by dialect.
	Spectators [len(Dialects)]atomic.Int32
	// Info is what the server shows about itself (replaced when it changes).
	Info atomic.Pointer[InfoLabels]
	// MaxClients is server.max_clients.
	MaxClients atomic.Int32
	// Bans is the number of active bans.
	Bans atomic.Int32
	// BansTotal counts bans added (console, rcon, votes, stress bans).
	BansTotal atomic.Uint64
	// Connects counts accepted connections.
	Connects atomic.Uint64
	// Refused counts CONNECTs refused by reason (index as in RefuseReasons).
	Refused [len(RefuseReasons)]atomic.Uint64
	// PregameDrops counts pre-game clients dropped by the slot-holding
	// defences, by reason (index as in edge.PregameDrops).
	PregameDrops [len(edge.PregameDrops)]atomic.Uint64
	// Snapshots counts snapshots sent (one per client and snapshot tick).
	Snapshots atomic.Uint64
	// Sleeps counts the times the game fell asleep, empty.
	Sleeps atomic.Uint64
	// SnapshotBytes is the size of each sent snapshot (all its parts).
	SnapshotBytes SizeHist
	// Sent and SentBytes count datagrams and bytes written to the socket.
	Sent, SentBytes atomic.Uint64
	// Events counts game events by kind (index as in GameEvents).
	Events [len(GameEvents)]atomic.Uint64
	// Socket names the socket the game reads from; set by New, before the
	// server is shared, and never changed.
	Socket sockio.Kind
}

// GameEvents names the counted game events, in index order: players
// entering and leaving the game, chat lines (public, team, whisper), kill
// messages (suicides included), CTF captures and called votes.
var GameEvents = [...]string{"join", "leave", "chat", "kill", "flag_capture", "vote"}

// Indexes in GameEvents.
const (
	EventJoin = iota
	EventLeave
	EventChat
	EventKill
	EventFlagCapture
	EventVote
)

// InfoLabels are the server's name, game type and map, as in the server info.
type InfoLabels struct {
	Name, GameType, Map string
}

// RefuseReasons names why a CONNECT was refused, in index order.
var RefuseReasons = [...]string{"banned", "full", "per_ip", "dialect_off", "pregame_full", "pregame_per_ip"}

// Indexes in RefuseReasons.
const (
	RefuseBanned       = iota
	RefuseFull         // every slot taken
	RefusePerIP        // too many clients from one address
	RefuseDialect      // the client's dialect is turned off (server.accept_07/06)
	RefusePregameFull  // pre-game share full, nothing stalled to drop
	RefusePregamePerIP // too many pre-game clients from one address
)

// SlotCount is one recount of the client slots (the zero value: none
// counted), published with Gauges.PublishSlots.
type SlotCount struct {
	clients        [len(Dialects)][len(ClientStates)]int32
	players, specs [len(Dialects)]int32
}

// Add counts one occupied slot: its dialect and state (index as in
// Dialects and ClientStates) and, for an in-game client, whether it plays
// or spectates (both false for a client not in game).
func (n *SlotCount) Add(dialect, state int, player, spectator bool) {
	n.clients[dialect][state]++
	switch {
	case player:
		n.players[dialect]++
	case spectator:
		n.specs[dialect]++
	}
}

// PublishSlots stores the recount n in Clients, Players and Spectators.
func (g *Gauges) PublishSlots(n *SlotCount) {
	for d := range n.clients {
		for st := range n.clients[d] {
			g.Clients[d][st].Store(n.clients[d][st])
		}
		g.Players[d].Store(n.players[d])
		g.Spectators[d].Store(n.specs[d])
	}
}

// PublishInfo stores the server's labels in Info when they changed (it
// allocates only then).
func (g *Gauges) PublishInfo(name, gameType, mapName string) {
	if in := g.Info.Load(); in == nil || in.Map != mapName || in.Name != name || in.GameType != gameType {
		g.Info.Store(&InfoLabels{Name: name, GameType: gameType, Map: mapName})
	}
}
