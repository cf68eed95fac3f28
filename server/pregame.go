package server

import (
	"net/netip"
	"strconv"
	"time"

	"twserver/edge"
	"twserver/metrics"
	"twserver/session"
)

// The slot-holding defences (issue 11) are the edge's (edge/pregame.go):
// the loop shows it its slots (pregameSlots), drops what it names and
// counts why (Gauges.PregameDrops, Gauges.Refused).

// pregameSlots shows the loop's slots to the pre-game bounds.
type pregameSlots []*client

// Len is the number of slots.
func (v *pregameSlots) Len() int { return len(*v) }

// Slot returns what the pre-game bounds see of slot i.
func (v *pregameSlots) Slot(i int) edge.PregameSlot { return (*v)[i].pregameSlot() }

// pregameSlot is what the pre-game bounds see of c.
func (c *client) pregameSlot() edge.PregameSlot {
	p := edge.PregameSlot{Addr: c.addr, Entered: c.entered, ProgressAt: c.progressAt}
	switch c.state {
	case session.Auth:
		p.Stage = edge.StageAuth
	case session.Connecting:
		p.Stage = edge.StageConnecting
	case session.Ready:
		p.Stage = edge.StageReady
	}
	return p
}

// progress notes that a client moved on in the handshake.
func (s *Server) progress(c *client) { c.progressAt = s.now() }

// admitPregame applies the pre-game bounds to a CONNECT from addr (called
// after the ban check, before the full and per-IP checks): it may drop a
// stalled pre-game client to make room. It returns the refusal reason and
// its metrics.RefuseReasons index, or "" to go on.
func (s *Server) admitPregame(addr netip.AddrPort) (string, int) {
	now := s.now()
	reason, perIP, evict := edge.AdmitPregame((*pregameSlots)(&s.clients), addr.Addr(), now, s.numClients() >= len(s.clients))
	switch {
	case evict >= 0:
		c := s.clients[evict]
		s.gauges.PregameDrops[edge.PregameEvicted].Add(1)
		s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Str("stage", c.state.String()).
			Dur("idle_ms", now-c.progressAt).Str("for", addr.String()).Msg("stalled connection dropped for a new one")
		s.dropClient(c, edge.ReasonEvicted)
	case perIP:
		return reason, metrics.RefusePregamePerIP
	case reason != "":
		return reason, metrics.RefusePregameFull
	}
	return "", 0
}

// checkPregame drops pre-game clients that stopped making progress (once
// per tick, from updateConns).
func (s *Server) checkPregame(now time.Duration) {
	for _, c := range s.clients {
		if kind, stalled := c.pregameSlot().Stalled(now); stalled {
			s.gauges.PregameDrops[kind].Add(1)
			s.dropClient(c, edge.ReasonPregameStall)
		}
	}
}

// pregameSummary renders the pre-game counters for the console `stats`.
func (s *Server) pregameSummary() string {
	total, _ := edge.PregameCounts((*pregameSlots)(&s.clients), netip.Addr{})
	out := "pregame=" + strconv.Itoa(total) + "/" + strconv.Itoa(edge.PregameCap(len(s.clients)))
	for i, n := range edge.PregameDrops {
		out += " pregame_" + n + "=" + strconv.Itoa(int(s.gauges.PregameDrops[i].Load()))
	}
	for i, n := range metrics.RefuseReasons {
		out += " refused_" + n + "=" + strconv.Itoa(int(s.gauges.Refused[i].Load()))
	}
	return out
}
