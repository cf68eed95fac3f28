package server

import (
	"time"

	"twserver/mapdl"
	"twserver/mapstore"
	"twserver/netproto"
	"twserver/session"
	"twserver/world/twmap"
)

// sendMapChange announces the current map and restarts the client's
// download (net.md A3.4, B3.3): the 0.7 MAP_CHANGE, or the 0.6 variant's,
// after DDNet's map-details (with SHA-256) for DDNet clients.
func (s *Server) sendMapChange(c *client) {
	if d := c.conn.Dialect(); d.Is6() {
		m := s.map6()
		c.dl.Start6()
		if mapdl.SendMapDetails6 && d == netproto.DialectDDNet {
			m.PackDetails(&s.pk)
			s.sendMsg(c, s.pk.Bytes(), netproto.SendVital)
		}
		m.PackChange(&s.pk)
	} else {
		c.dl.Start(s.now(), c.conn.PeerAck())
		mapdl.PackChange(&s.pk, s.curMap, s.cfg.Server.MapDownloadSpeed)
	}
	s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
}

// map6 is the map a 0.6 client is sent (the variant of the current map),
// derived at the first call after a map change, or shared with another
// game of the process on the same map (mapstore.Variant6); if the map
// cannot be converted, 0.6 clients get it as it is (logged).
func (s *Server) map6() *mapdl.Variant6 {
	if s.curMap6 == nil {
		s.curMap6 = mapstore.Variant6(s.curMap, func(m *twmap.Map) mapdl.Variant6 {
			v, err := mapdl.Derive6(m)
			if err != nil {
				s.log.Warn().Err(err).Str("map", m.Name).Msg("no 0.6 variant of the map: 0.6 clients get it as it is")
			}
			return v
		})
	}
	return s.curMap6
}

// probeHandshake runs mapdl.Download.Tick every tick for a client on its
// way into the game (0.7 only: 0.6 clients ask for each chunk themselves,
// sysHandler.RequestMapData) and logs its tail-loss probes.
func (s *Server) probeHandshake(c *client, now time.Duration) {
	if c.conn.Dialect().Is6() || (c.state != session.Connecting && c.state != session.Ready) {
		return
	}
	sent, ok := c.dl.Tick(c.id, c.conn, c.state == session.Connecting, s.curMap.Data, s.cfg.Server.MapDownloadSpeed, now, &s.pk, (*mapSender)(s))
	if ok {
		s.log.Debug().Int("cid", c.id).Int("chunk", c.dl.Chunk).Int("unacked", c.conn.Unacked()).
			Dur("since_sent_ms", now-sent).Dur("rto_ms", c.dl.ProbeTimeout(c.conn)).Int("backoff", c.dl.Backoff()).
			Int("probes", c.dl.Probes).Msg("tail-loss probe")
	}
}

// mapSender is the loop's side of the downloads (mapdl.Sender).
type mapSender Server

// Flush writes out client cid's queued datagrams.
func (m *mapSender) Flush(cid int) { (*Server)(m).flushConn(m.clients[cid]) }

// SendFailed logs a chunk client cid's connection refused.
func (m *mapSender) SendFailed(cid int, err error) {
	(*Server)(m).warn().Err(err).Int("cid", cid).Msg("send failed")
}

// sendMapData sends the chunks the client may have now (mapdl.Download.Send);
// request: called for a delivered REQUEST_MAP_DATA (else from the tick).
func (s *Server) sendMapData(c *client, request bool) {
	c.dl.Send(c.id, c.conn, s.curMap.Data, s.cfg.Server.MapDownloadSpeed, request, s.now(), &s.pk, (*mapSender)(s))
}

// changeMap loads a map by name and moves every client back to CONNECTING
// with a MAP_CHANGE (net.md A3.4). On failure the current map stays.
func (s *Server) changeMap(name string) {
	m, err := mapstore.ByName(s.cfg.Map, name)
	if err != nil {
		s.log.Error().Err(err).Str("map", name).Msg("map change failed")
		s.consoleOut("map change failed: " + err.Error())
		return
	}
	s.applyMap(m)
}

// applyMap switches to m: a fresh world (tick 0), and every connected
// client goes back to CONNECTING and gets MAP_CHANGE.
func (s *Server) applyMap(m *twmap.Map) {
	if err := s.setMap(m); err != nil {
		s.log.Error().Err(err).Msg("map change failed")
		s.consoleOut("map change failed: " + err.Error())
		return
	}
	s.vote.Drop() // silently
	for _, c := range s.clients {
		if c.state <= session.Auth {
			continue
		}
		c.state = session.Connecting
		c.progressAt = s.now()
		c.gotStartInfo = false
		c.resetSnapState()
		s.sendMapChange(c)
	}
	s.log.Info().Str("map", m.Name).Int("size", m.Size).Msg("map changed")
	s.consoleOut("map changed to " + m.Name)
	s.publishInfo()
	s.infoChanged6()
}
