package server

import (
	"net/netip"
	"time"

	"twserver/metrics"
	"twserver/session"
)

// The loop's side of the operator-facing figures: it fills the metrics
// package's Gauges and TickTiming, which readers load at any time.

// Indexes in metrics.GameEvents and metrics.RefuseReasons, as the loop names them.
const (
	eventJoin        = metrics.EventJoin
	eventLeave       = metrics.EventLeave
	eventChat        = metrics.EventChat
	eventKill        = metrics.EventKill
	eventFlagCapture = metrics.EventFlagCapture
	eventVote        = metrics.EventVote

	refuseBanned       = metrics.RefuseBanned
	refuseFull         = metrics.RefuseFull
	refusePerIP        = metrics.RefusePerIP
	refuseDialect      = metrics.RefuseDialect
	refusePregameFull  = metrics.RefusePregameFull  // pregame.go
	refusePregamePerIP = metrics.RefusePregamePerIP // pregame.go
)

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
	var counts [len(metrics.Dialects)][session.NumStates]int32
	var players, specs [len(metrics.Dialects)]int32
	for _, c := range s.clients {
		if c.state == stateEmpty {
			continue
		}
		d := c.dialect()
		counts[d][c.state]++
		if c.state == stateIngame {
			if s.world.Team(c.id) == teamSpectators {
				specs[d]++
			} else {
				players[d]++
			}
		}
	}
	g := &s.gauges
	for d := range counts {
		for st := range counts[d] {
			g.Clients[d][st].Store(counts[d][st])
		}
		g.Players[d].Store(players[d])
		g.Spectators[d].Store(specs[d])
	}
	if in := g.Info.Load(); in == nil || in.Map != s.curMap.Name || in.Name != s.cfg.Server.Name || in.GameType != s.gameTypeName() {
		// allocates only when something changed
		g.Info.Store(&metrics.InfoLabels{Name: s.cfg.Server.Name, GameType: s.gameTypeName(), Map: s.curMap.Name})
	}
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
