package server

import (
	"twserver/edge"
	"twserver/netproto"
	"twserver/session"
)

// rejoin6 handles DDNet's reconnect from an address that still has a slot
// (session.Rejoin6 tells a new CONNECT and the ACCEPT that follows it from
// the slot's own traffic). It reports whether the datagram was one of
// these.
func (s *Server) rejoin6(c *client, b []byte) bool {
	sec := c.conn.SecurityToken()
	now := s.now()
	switch session.Rejoin6(b, sec, c.rejoinOffered, now) {
	case session.RejoinOffer:
		s.write(netproto.AppendConnectAccept6(s.sendBuf[:0], sec, true), c.addr)
		c.rejoinOffered = now
		return true
	case session.RejoinNow:
		addr := c.addr
		s.log.Debug().Int("cid", c.id).Str("addr", addr.String()).Msg("DDNet client rejoins")
		c.conn.Reset() // no CLOSE: the client already has its new connection
		s.dropClient(c, "rejoin")
		s.onConnect(addr, edge.DDNetRequest(sec))
		return true
	}
	return false
}
