package server

import (
	"net/netip"
	"time"

	"twserver/metrics"
)

// The loop's side of the operator-facing figures: it fills the metrics
// package's Gauges and TickTiming, which readers load at any time.

// dialect returns the index in metrics.Dialects of the protocol the client speaks.
func (c *client) dialect() int {
	if c.conn.Dialect().Is6() {
		return metrics.Dialect06
	}
	return metrics.Dialect07
}

// countEvent counts one game event.
func (s *Server) countEvent(i int) { s.gauges.Events[i].Add(1) }

// Gauges returns the loop's published gauges and counters.
func (s *Server) Gauges() *metrics.Gauges { return &s.gauges }

// TickTiming returns the loop's tick measurements (safe for concurrent reads).
func (s *Server) TickTiming() *metrics.TickTiming { return &s.ticks }

// publishGauges recounts the slots (once per tick; 64 slots at most).
func (s *Server) publishGauges() {
	var n metrics.SlotCount
	for _, c := range s.clients {
		if c.state != stateEmpty {
			spec := c.state == stateIngame && s.world.Team(c.id) == teamSpectators
			n.Add(c.dialect(), int(c.state), c.state == stateIngame && !spec, spec)
		}
	}
	g := &s.gauges
	g.PublishSlots(&n)
	g.PublishInfo(s.cfg.Server.Name, s.gameTypeName(), s.curMap.Name)
	g.MaxClients.Store(int32(len(s.clients)))
	if s.world.CurrentTick()%50 == 0 { // at most MaxBans entries: once a second
		g.Bans.Store(int32(s.bans.Active(time.Now())))
	}
}

// write sends one datagram and counts it.
func (s *Server) write(b []byte, to netip.AddrPort) {
	s.gauges.Sent.Add(1)
	s.gauges.SentBytes.Add(uint64(len(b)))
	_, _ = s.conn.WriteTo(b, to)
}

// Stats returns// Stats returns the reader's packet counters (safe for concurrent reads).
func (s *Server) Stats() *Stats { return s.stats }
