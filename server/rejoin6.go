package server

import (
	"time"

	"twserver/edge"
	"twserver/netproto"
)

// RejoinWindow6 bounds the time from a connected DDNet client's new CONNECT
// to the ACCEPT that makes it rejoin.
const RejoinWindow6 = 5 * time.Second

// rejoin6 handles DDNet's reconnect from an address that still has a slot
// (net.md B2.2; a client whose CLOSE was lost, reconnecting from the same
// socket): its new CONNECT is answered with the slot's token, and the
// ACCEPT carrying that token within RejoinWindow6 replaces the old
// connection with a new one (the old player leaves, the client goes
// through INFO and the map again). A spoofed CONNECT only makes the server
// send the real client a CONNECTACCEPT it ignores; without the token no
// ACCEPT counts. It reports whether the datagram was one of these.
func (s *Server) rejoin6(c *client, b []byte) bool {
	// both are uncompressed control packets of a new connection (ack 0)
	if (len(b) != 8 && len(b) != 12) || b[0] != netproto.Flag6Control || b[1] != 0 {
		return false
	}
	ctl, err := netproto.ParseControl6(b[netproto.PacketHeaderSize6:])
	if err != nil {
		return false
	}
	sec := c.conn.SecurityToken()
	now := s.now()
	switch {
	case ctl.Type == netproto.Ctrl6Connect && ctl.TKEN:
		s.write(netproto.AppendConnectAccept6(s.sendBuf[:0], sec, true), c.addr)
		c.rejoinOffered = now
		return true
	case ctl.Type == netproto.Ctrl6Accept && ctl.HasToken && ctl.Token == sec &&
		c.rejoinOffered != 0 && now-c.rejoinOffered < RejoinWindow6:
		addr := c.addr
		s.log.Debug().Int("cid", c.id).Str("addr", addr.String()).Msg("DDNet client rejoins")
		c.conn.Reset() // no CLOSE: the client already has its new connection
		s.dropClient(c, "rejoin")
		s.onConnect(addr, edge.DDNetRequest(sec))
		return true
	}
	return false
}
