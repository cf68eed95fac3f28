package server

import (
	"time"

	"twserver/sockio"
)

// Paced reads (sockio.Pacer): while the game is quiet its reader hands its
// state to the loop, which reads the socket itself at each tick; a datagram
// of a peer not in game (handshake, map download, CONNECT) or a flood hands
// the reading back to the reader for sockio.PacedHold.

// readTick reads, while the reader is paced, every datagram queued on the
// socket into rx, with the reader's state (loop only). A read that finds a
// datagram wanting an early answer, or sockio.PacedBusyDatagrams, hands the
// reading back to the reader goroutine.
func (s *Server) readTick() {
	if !s.pace.BeginTick() {
		return
	}
	r := s.paceR
	count := 0
	var now time.Time
	for {
		n, at, err := s.readOnce(r, true)
		now = at
		count += n
		if err != nil || n < r.k || count >= sockio.PacedBusyDatagrams {
			break // drained (or an error: the next tick reads again)
		}
	}
	if handed, urgent := s.pace.EndTick(count, now); handed {
		s.logUnpaced(r, urgent, count, true)
	}
}

// paceAfter updates the pacing after the reader read n datagrams at now
// (reader only), and logs when it starts reading each datagram as it comes.
func (s *Server) paceAfter(r *reader, n int, now time.Time) {
	if hold, urgent, count := s.pace.AfterRead(n, now); hold {
		s.logUnpaced(r, urgent, count, false)
	}
}

// logUnpaced logs at debug level why the reader reads each datagram as it
// comes for sockio.PacedHold (after a tick's read when atTick).
func (s *Server) logUnpaced(r *reader, urgent bool, count int, atTick bool) {
	e := s.log.Debug()
	if e == nil {
		return
	}
	if urgent {
		e = e.Int("cid", r.urgentCID).Str("addr", r.urgentAddr.String())
	} else {
		e = e.Int("datagrams", count)
	}
	e.Bool("at_tick", atTick).Msg("reader: reading each datagram as it comes")
}
