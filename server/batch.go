package server

import (
	"errors"
	"net/netip"

	"twserver/sockio"
)

// The loop's outgoing datagrams go through a sockio.SendBatch (s.out): every
// datagram of a wake-up is written with one WriteBatch call.

// nextOut returns the buffer of the next datagram, empty with the capacity
// of the largest packet, flushing a full batch first.
func (s *Server) nextOut() []byte { return s.out.Next() }

// queueOut queues b, which must be the buffer returned by nextOut (filled),
// for to.
func (s *Server) queueOut(b []byte, to netip.AddrPort) {
	s.gauges.Sent.Add(1)
	s.gauges.SentBytes.Add(uint64(len(b)))
	s.out.Queue(b, to)
}

// flushOut writes the queued datagrams (sockio.SendBatch.Flush).
func (s *Server) flushOut() { s.out.Flush() }

// noteSocket records which game socket sockio.ListenUDP chose: in the
// gauges (twserver_socket_info) and, when the paced socket could not be set
// up on a system that has one, as one warning with the reason (the batch
// socket then costs a wake-up per datagram: it must not go unnoticed).
func (s *Server) noteSocket(ch sockio.Choice) {
	s.gauges.Socket = ch.Kind
	switch {
	case ch.Fallback == nil:
	case errors.Is(ch.Fallback, errors.ErrUnsupported):
		s.log.Info().Str("socket", string(ch.Kind)).Str("reason", ch.Fallback.Error()).
			Msg("no paced socket on this system")
	default:
		s.log.Warn().Str("socket", string(ch.Kind)).Err(ch.Fallback).
			Msg("the paced socket cannot be set up: reading through the runtime's poller, a wake-up per datagram")
	}
}

// Socket names the socket the server reads from (sockio.KindPaced on Linux
// unless its setup failed).
func (s *Server) Socket() sockio.Kind { return s.gauges.Socket }
