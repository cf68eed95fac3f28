package server

import (
	"time"

	"twserver/netproto"
	"twserver/world/twmap"
)

// MapChunkSize is the size of one MAP_DATA chunk (the reference MAP_CHUNK_SIZE).
const MapChunkSize = netproto.MapChunkSize

// sendMapChange sends NETMSG_MAP_CHANGE for the current map and resets the
// client's download cursor (net.md A3.4).
func (s *Server) sendMapChange(c *client) {
	if c.conn.Dialect().Is6() {
		s.sendMapChange6(c)
		return
	}
	m := s.curMap
	c.mapChunk, c.mapAsked = 0, 0
	s.sendSys(c, netproto.NetmsgMapChange, true, func(p *netproto.Packer) {
		p.AddString(m.Name)
		p.AddInt(int32(m.CRC))
		p.AddInt(int32(m.Size))
		p.AddInt(int32(s.cfg.Server.MapDownloadSpeed))
		p.AddInt(MapChunkSize)
		p.AddRaw(m.SHA256[:])
	})
}

// Map download under loss. The 0.7 client asks for map_download_speed
// chunks at a time (REQUEST_MAP_DATA after each that many chunks received in
// order) and, like every 0.7 peer, drops vital chunks that arrive out of
// order, so one lost datagram stalls the download until a resend: a lost
// request for the reference's one-second resend timer, a lost chunk until
// the client's RESEND flag or the server's timer. At 20 % loss the
// reference's stop-and-wait download of a 2 MB map does not finish in a
// minute (README "Loss and jitter"). Two bounded measures keep it going:
const (
	// MapLookahead is how many chunks beyond those requested the server
	// sends: a lost request then shows up as a gap when the next one
	// arrives (the server flushes its RESEND flag at once and the client
	// resends), instead of stalling the download. It applies only while
	// fewer than MapMaxInFlight vital chunks are unacknowledged.
	MapLookahead = 8
	// MapMaxInFlight bounds the unacknowledged vital chunks beyond which
	// no lookahead chunk is sent: 16 map chunks are 22 KiB of the
	// connection's 32 KiB resend buffer (netproto.ConnBufferSize), leaving
	// room for the other vital messages.
	MapMaxInFlight = 16
	// MapStallProbe is how long a map download may go without a request
	// before the server sends the RESEND flag (probeHandshake): the
	// client's request may have been lost, and the client would only
	// resend it after a second. One small datagram per MapStallProbe.
	MapStallProbe = 20 * time.Millisecond
)

// probeHandshake asks a client on its way into the game to resend what it
// has not had acknowledged: during the map download when no request came
// for MapStallProbe, and after it (READY, start info, ENTERGAME, each a
// lone vital message) every MapStallProbe once the connection saw loss. A
// lost message then comes again at once instead of after the client's
// one-second resend timer. Called every tick; 0.7 clients only.
func (s *Server) probeHandshake(c *client, now time.Duration) {
	if now-c.mapSentAt < MapStallProbe || c.conn.Dialect().Is6() {
		return // 0.6 clients ask for each chunk themselves (sys6.go)
	}
	lossy := c.conn.Stats.ChunksResent > 0 || c.conn.Stats.Gaps > 0
	switch c.state {
	case stateConnecting:
		total := (s.curMap.Size + MapChunkSize - 1) / MapChunkSize
		downloading := c.mapAsked > 0 && c.mapChunk < total
		if !downloading && !(lossy && c.mapChunk >= total) {
			return
		}
	case stateReady:
		if !lossy {
			return
		}
	default:
		return
	}
	c.mapSentAt = now
	c.conn.AskResend(now)
}

// sendMapData answers one REQUEST_MAP_DATA: the next map_download_speed
// chunks, plus up to MapLookahead more (see MapLookahead); the chunk
// reaching the end of the map is the last one. Once the connection has
// seen loss (a resend or a gap), each vital chunk goes out twice in a row
// until the client is in game (netproto.Conn.SetRedundant), so that a single lost datagram no longer
// stalls the in-order stream; a clean connection gets every chunk once.
// Requests after the end send nothing, so a map costs at most twice its
// chunks per download, however many requests a client sends.
func (s *Server) sendMapData(c *client) {
	m := s.curMap
	total := (m.Size + MapChunkSize - 1) / MapChunkSize
	c.mapAsked = min(c.mapAsked+s.cfg.Server.MapDownloadSpeed, total)
	for c.mapChunk < total {
		if c.mapChunk >= c.mapAsked && (c.mapChunk >= c.mapAsked+MapLookahead || c.conn.Unacked() >= MapMaxInFlight) {
			return
		}
		off := c.mapChunk * MapChunkSize
		end := min(off+MapChunkSize, m.Size)
		if st := &c.conn.Stats; st.ChunksResent > 0 || st.Gaps > 0 {
			c.conn.SetRedundant(true) // until READY (handshake.go)
		}
		s.pk.Reset()
		s.pk.AddMsgHeader(netproto.NetmsgMapData, true)
		s.pk.AddRaw(m.Data[off:end])
		s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
		if c.state == stateEmpty {
			return
		}
		c.mapSentAt = s.now()
		c.mapChunk++
	}
}

// changeMap loads a map by name and moves every client back to CONNECTING
// with a MAP_CHANGE (net.md A3.4). On failure the current map stays.
func (s *Server) changeMap(name string) {
	m, err := s.loadMapByName(name)
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
	s.resetVote()
	for _, c := range s.clients {
		if c.state <= stateAuth {
			continue
		}
		c.state = stateConnecting
		c.progressAt = s.now()
		c.gotStartInfo = false
		c.resetSnapState()
		s.sendMapChange(c)
	}
	s.log.Info().Str("map", m.Name).Int("size", m.Size).Int("size_06", s.curMap6.Size).Msg("map changed")
	s.consoleOut("map changed to " + m.Name)
	s.publishInfo()
	s.infoChanged6()
}

// nextRotationMap returns the map after the current one in map.rotation (or
// in map.dir), or the current map when there is no rotation.
func (s *Server) nextRotationMap() string {
	names := s.cfg.Map.Rotation
	if len(names) == 0 && s.cfg.Map.Dir != "" {
		names, _ = listMaps(s.cfg.Map.Dir)
	}
	if len(names) == 0 {
		return s.curMap.Name
	}
	for i, n := range names {
		if n == s.curMap.Name {
			return names[(i+1)%len(names)]
		}
	}
	return names[0]
}
