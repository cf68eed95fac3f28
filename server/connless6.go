package server

import (
	"twserver/session"
)

// sendServerInfo6 sends a 0.6 client the in-game server info: a connless
// inf3 with token "-1" and no client list (net.md B6.3), instead of 0.7's
// NETMSG_SERVERINFO.
func (s *Server) sendServerInfo6(c *client) {
	info := s.edge.Info()
	if info == nil {
		return
	}
	s.write(info.AppendInGame6(s.sendBuf[:0]), c.addr)
}

// infoChanged6 sends every connected 0.6 client the in-game server info
// (after a map change, net.md B6.3).
func (s *Server) infoChanged6() {
	for _, c := range s.clients {
		if c.state > session.Auth && c.conn.Dialect().Is6() {
			s.sendServerInfo6(c)
		}
	}
}
