package server

import (
	"net/netip"
	"strings"
	"time"
)

// Slot-holding defences (issue 11): bounds on the clients that are
// connected but not in the game yet ("pre-game": states auth, connecting and
// ready), whatever protocol dialect they speak, since they are counted on
// the slots. Measured with `twload hold` (README, Reliability): without
// them, 64 addresses that complete the handshake and then stall (or only
// keep the connection alive) fill a 64-slot server, and every new player is
// refused with "This server is full" for as long as they hold.
//
// The rules:
//   - a pre-game client must make progress: INFO within PregameInfoTimeout
//     of being accepted; while connecting, a map request (or READY) at least
//     every PregameStallTimeout; ENTERGAME within PregameEnterTimeout of
//     READY. A slow download that asks for its next window of chunks within
//     PregameStallTimeout is never stopped, so the bound on a whole download
//     scales with the map: (windows + 1) × PregameStallTimeout.
//   - at most half the slots (pregameCap) are pre-game at once, and while
//     more than half of those are taken, at most MaxPregamePerIP per address;
//   - when a CONNECT finds the pre-game share or the server full, the
//     pre-game client that has made no progress for longest is dropped for
//     it, if that is at least PregameEvictIdle: a stalled connection cannot
//     keep a player out for more than that. Players back in the pre-game
//     stages for a map change are never dropped for a newcomer.
const (
	// PregameInfoTimeout bounds CONNECT to INFO (the 0.7.5 client sends INFO
	// with its first packet after the accept).
	PregameInfoTimeout = 10 * time.Second
	// PregameStallTimeout bounds the time without progress while
	// connecting: between map-chunk requests (a window of
	// map_download_speed chunks each), and from the last chunk or from
	// INFO to READY (the client loads the map in between).
	PregameStallTimeout = 10 * time.Second
	// PregameEnterTimeout bounds READY to ENTERGAME (the 0.7.5 client
	// answers CON_READY with its start info and Sv_ReadyToEnter with
	// ENTERGAME at once).
	PregameEnterTimeout = 10 * time.Second
	// PregameEvictIdle is how long a pre-game client must have made no
	// progress before a new CONNECT may take its place when the pre-game
	// share or the server is full. A client going through the handshake
	// makes progress every round trip; one loading a big map may pause for
	// about a second.
	PregameEvictIdle = 2 * time.Second
	// MaxPregamePerIP bounds pre-game clients per address while the
	// pre-game share is more than half taken (a LAN behind one address
	// joining an idle server is not refused).
	MaxPregamePerIP = 2
)

// Refusal and drop reasons of the pre-game bounds (sent in CLOSE).
const (
	ReasonPregameFull  = "Too many clients are connecting right now, try again in a few seconds"
	ReasonPregamePerIP = "Too many connections from your address are still connecting (at most %d), try again in a few seconds"
	ReasonPregameStall = "Timeout while connecting (no progress)"
	ReasonEvicted      = "Dropped while connecting: no progress while the server was full"
)

// PregameDrops names why pre-game clients were dropped, in index order
// (Gauges.PregameDrops): stalled in auth (no INFO), connecting (map
// download or READY), ready (no ENTERGAME), or evicted for a new CONNECT.
var PregameDrops = [...]string{"stall_auth", "stall_connecting", "stall_ready", "evicted"}

// Indexes in PregameDrops.
const (
	pregameStallAuth = iota
	pregameStallConnecting
	pregameStallReady
	pregameEvicted
)

// pregameCap is the most slots that may be pre-game at once: half of them
// (at least one).
func (s *Server) pregameCap() int { return max(1, len(s.clients)/2) }

// isPregame reports whether a slot is connected but not in the game.
func (c *client) isPregame() bool { return c.state > stateEmpty && c.state < stateIngame }

// progress notes that a client moved on in the handshake.
func (s *Server) progress(c *client) { c.progressAt = s.now() }

// pregameCounts returns the pre-game slots in total and those of ip.
func (s *Server) pregameCounts(ip netip.Addr) (total, sameIP int) {
	for _, c := range s.clients {
		if c.isPregame() {
			total++
			if c.addr.Addr() == ip {
				sameIP++
			}
		}
	}
	return total, sameIP
}

// stalest returns the pre-game client without progress for longest, if
// that is at least PregameEvictIdle. Players loading the map after a map
// change (they were in the game on this connection) are never chosen.
func (s *Server) stalest(now time.Duration) *client {
	var best *client
	for _, c := range s.clients {
		if c.isPregame() && !c.entered && now-c.progressAt >= PregameEvictIdle && (best == nil || c.progressAt < best.progressAt) {
			best = c
		}
	}
	return best
}

// admitPregame applies the pre-game bounds to a CONNECT from addr (called
// after the ban check, before the full and per-IP checks): it may drop a
// stalled pre-game client to make room. It returns the refusal reason and
// its RefuseReasons index, or "" to go on.
func (s *Server) admitPregame(addr netip.AddrPort) (string, int) {
	now := s.now()
	total, sameIP := s.pregameCounts(addr.Addr())
	capN := s.pregameCap()
	if total > capN/2 && sameIP >= MaxPregamePerIP {
		return strings.Replace(ReasonPregamePerIP, "%d", itoa(MaxPregamePerIP), 1), refusePregamePerIP
	}
	if total < capN && s.numClients() < len(s.clients) {
		return "", 0
	}
	if c := s.stalest(now); c != nil {
		s.gauges.PregameDrops[pregameEvicted].Add(1)
		s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Str("stage", c.state.String()).
			Dur("idle", now-c.progressAt).Str("for", addr.String()).Msg("stalled connection dropped for a new one")
		s.dropClient(c, ReasonEvicted)
		return "", 0
	}
	if total >= capN && s.numClients() < len(s.clients) {
		return ReasonPregameFull, refusePregameFull
	}
	return "", 0 // the server is full: its own check refuses
}

// checkPregame drops pre-game clients that stopped making progress (once
// per tick, from updateConns).
func (s *Server) checkPregame(now time.Duration) {
	for _, c := range s.clients {
		if !c.isPregame() {
			continue
		}
		limit, kind := PregameStallTimeout, pregameStallConnecting
		switch c.state {
		case stateAuth:
			limit, kind = PregameInfoTimeout, pregameStallAuth
		case stateReady:
			limit, kind = PregameEnterTimeout, pregameStallReady
		}
		if now-c.progressAt > limit {
			s.gauges.PregameDrops[kind].Add(1)
			s.dropClient(c, ReasonPregameStall)
		}
	}
}

// pregameSummary renders the pre-game counters for the console `stats`.
func (s *Server) pregameSummary() string {
	total, _ := s.pregameCounts(netip.Addr{})
	out := "pregame=" + itoa(total) + "/" + itoa(s.pregameCap())
	for i, n := range PregameDrops {
		out += " pregame_" + n + "=" + itoa(int(s.gauges.PregameDrops[i].Load()))
	}
	for i, n := range RefuseReasons {
		out += " refused_" + n + "=" + itoa(int(s.gauges.Refused[i].Load()))
	}
	return out
}
