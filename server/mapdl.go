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
	c.dl = mapDownload{changeSent: s.now(), ackSeen: c.conn.PeerAck()}
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
// chunks at a time (REQUEST_MAP_DATA, flushed at once, after each that
// many chunks received in order) and, like every 0.7 peer, drops vital
// chunks that arrive out of order. Between requests it sends nothing: the
// RESEND flag of a gap, the chunks it resends at the server's RESEND flag
// and its acks go out with its next request or after FlushInterval (500
// ms) of idle sending, its own resends after a second. So a lost chunk
// stalls the reference's download for 0.5-1 s, a lost request too. The
// server does not wait for that (README "Loss and jitter"):
//   - it paces the download on the client's acks, not on its requests:
//     the ack of any packet tells how many chunks the client holds in
//     order and so which requests it sent, delivered or lost (a request
//     after a lost one arrives as a gap and is dropped, but its ack
//     counts), and up to MapLookahead chunks beyond go out while fewer
//     than MapMaxInFlight vital chunks are unacknowledged;
//   - a tail-loss probe: when the oldest unacknowledged chunk went out
//     more than a retransmission timeout ago (round trip plus deviation,
//     see mapProbeTimeout), every unacknowledged chunk goes out again
//     (the client drops those it has as duplicates and asks on once the
//     missing one arrives), the timeout doubling while nothing is acked;
//   - once the connection saw loss, each vital chunk goes out twice, and
//     three times under heavy loss (see MapHeavyLossChunks;
//     netproto.Conn.SetCopies), until the client is in game.
const (
	// MapLookahead is how many chunks beyond those the client asked for
	// (by its requests or, as inferred from its acks, by the requests it
	// sent) the server sends, while fewer than MapMaxInFlight vital chunks
	// are unacknowledged: the download never waits for a request.
	MapLookahead = 32
	// MapMaxInFlight bounds the unacknowledged vital chunks beyond which
	// no lookahead chunk is sent: 32 chunks (44 KiB) are four requests of
	// the default map_download_speed, so the download goes on through
	// three lost requests in a row. Map chunks are kept for resending by
	// reference to the loaded map (netproto.Conn.SendRef), outside the
	// connection's 32 KiB resend buffer.
	MapMaxInFlight = 32
	// mapProbeBatch is how many chunks (times their copies, at most 3)
	// a tail-loss probe resends before the datagrams are written out, so
	// that the connection's outbox (netproto.OutboxPackets) never
	// overflows.
	mapProbeBatch = 16
	// MapStallProbe is how long a connecting client's download may go
	// without a request before the server sends the RESEND flag
	// (probeHandshake): the client's request may have been lost, and the
	// client resends it with its next packet. Once the connection saw
	// loss, also every MapStallProbe until it is in game (READY, start
	// info and ENTERGAME are lone vital messages). One small datagram per
	// MapStallProbe.
	MapStallProbe = 20 * time.Millisecond
	// MapProbeMargin is the least retransmission timeout beyond the
	// smoothed round trip (the timer runs at the ticks, so the effective
	// timeout is a tick longer at most).
	MapProbeMargin = 5 * time.Millisecond
	// MapProbeInitial is the retransmission timeout before the first round
	// trip sample.
	MapProbeInitial = 250 * time.Millisecond
	// MapProbeMax caps the retransmission timeout as it doubles while
	// nothing is acknowledged: at most MapMaxInFlight chunks (times their
	// copies) per MapProbeMax for a client that stopped acknowledging,
	// until the pre-game timeouts drop it.
	MapProbeMax = time.Second
	// MapHeavyLossChunks: a download that needed more than two tail-loss
	// probes and at least one per this many new chunks (at two copies
	// each) sends three copies of each chunk from then on (heavy loss:
	// about 10 % or more per datagram). A download sends at most netproto.MaxCopies times the
	// map's chunks new, plus the probes' resends.
	MapHeavyLossChunks = 100
)

// mapDownload is the server's state of one client's 0.7 map download
// beyond the request count.
type mapDownload struct {
	probes     int           // tail-loss probes in this download
	backoff    int           // probes since the peer's ack last moved
	probedAt   time.Duration // when the last probe went out
	ackSeen    uint16        // the peer's ack at the last tick
	changeSent time.Duration // when MAP_CHANGE went out
}

// probeHandshake runs every tick for a client on its way into the game
// (0.7 only: 0.6 clients ask for each chunk themselves, sys6.go): the
// tail-loss probe of its unacknowledged vital chunks (map chunks and the
// lone messages of the way in), the ack-paced refill of its download, and
// the RESEND flag when its download went MapStallProbe without a request,
// and, once the connection saw loss, every MapStallProbe until it is in
// game.
func (s *Server) probeHandshake(c *client, now time.Duration) {
	if c.conn.Dialect().Is6() || (c.state != stateConnecting && c.state != stateReady) {
		return
	}
	s.probeTail(c, now)
	total := (s.curMap.Size + MapChunkSize - 1) / MapChunkSize
	if c.state == stateConnecting && c.mapChunk < total {
		if c.mapAsked == 0 && now-c.dl.changeSent >= s.mapProbeTimeout(c) {
			// no request yet: the first one may be lost, the client
			// resends it only after FlushInterval; start the first window
			c.mapAsked = min(s.cfg.Server.MapDownloadSpeed, total)
		}
		if c.mapAsked > 0 {
			s.sendMapData(c, false)
		}
	}
	if now-c.mapSentAt < MapStallProbe {
		return
	}
	lossy := c.conn.Stats.ChunksResent > 0 || c.conn.Stats.Gaps > 0
	switch c.state {
	case stateConnecting:
		downloading := c.mapAsked > 0 && c.mapChunk < total
		if !downloading && !(lossy && c.mapChunk >= total) {
			return
		}
	case stateReady:
		if !lossy {
			return
		}
	}
	c.mapSentAt = now
	c.conn.AskResend(now)
}

// mapProbeTimeout is the retransmission timeout of c's tail-loss probe:
// the smoothed round trip plus four deviations, at most one more round
// trip (an ack that came with a request after a lost one makes a long
// sample) and at least MapProbeMargin;
// MapProbeInitial before the first sample, doubled per probe since the
// client's ack last moved, at most MapProbeMax.
func (s *Server) mapProbeTimeout(c *client) time.Duration {
	rto := MapProbeInitial
	if srtt, rttvar, ok := c.conn.RTT(); ok {
		rto = srtt + max(min(4*rttvar, srtt), MapProbeMargin)
	}
	return min(rto<<min(c.dl.backoff, 8), MapProbeMax)
}

// probeTail resends c's unacknowledged vital chunks when the oldest went
// out a retransmission timeout ago (see mapProbeTimeout).
func (s *Server) probeTail(c *client, now time.Duration) {
	if ack := c.conn.PeerAck(); ack != c.dl.ackSeen {
		c.dl.ackSeen, c.dl.backoff = ack, 0
	}
	sent, ok := c.conn.OldestUnackedSent()
	if !ok || now-sent < s.mapProbeTimeout(c) {
		return
	}
	c.dl.probes++
	c.dl.backoff++
	c.dl.probedAt = now
	s.log.Debug().Int("cid", c.id).Int("chunk", c.mapChunk).Int("unacked", c.conn.Unacked()).
		Dur("since_sent", now-sent).Dur("rto", s.mapProbeTimeout(c)).Int("backoff", c.dl.backoff).
		Int("probes", c.dl.probes).Msg("tail-loss probe")
	c.conn.SetCopies(s.mapCopies(c))
	for from := 0; from < c.conn.ResendUnacked(now, from, mapProbeBatch); from += mapProbeBatch {
		s.flushConn(c)
	}
}

// mapCopies is how many times each of c's vital chunks goes out during the
// download: once on a clean connection, twice once it saw loss, three times
// under heavy loss (see MapHeavyLossChunks).
func (s *Server) mapCopies(c *client) int {
	st := &c.conn.Stats
	switch {
	case st.ChunksResent == 0 && st.Gaps == 0:
		return 1
	case c.dl.probes > 2 && c.dl.probes*MapHeavyLossChunks >= c.mapChunk:
		return 3
	}
	return 2
}

// sendMapData sends the chunks the client may have now: those it asked
// for (request counts from delivered requests, and as inferred from its
// acks: the 0.7 client asks after each map_download_speed chunks received
// in order) plus MapLookahead, while fewer than MapMaxInFlight vital chunks
// are unacknowledged; the chunk reaching the end of the map is the last
// one. request: called for a delivered REQUEST_MAP_DATA (else from the
// tick). Requests after the end send nothing, so a map costs at most
// netproto.MaxCopies times its chunks new per download, however many
// requests a client sends.
func (s *Server) sendMapData(c *client, request bool) {
	m := s.curMap
	total := (m.Size + MapChunkSize - 1) / MapChunkSize
	cpr := s.cfg.Server.MapDownloadSpeed
	if request {
		c.mapAsked = min(c.mapAsked+cpr, total)
	}
	if c.mapChunk > 0 {
		// the chunks acknowledged in order (other vital messages still
		// unacknowledged make this an underestimate)
		held := max(c.mapChunk-c.conn.Unacked(), 0)
		c.mapAsked = max(c.mapAsked, min((held/cpr+1)*cpr, total))
	}
	copies := s.mapCopies(c)
	c.conn.SetCopies(copies) // until in game (handshake.go)
	for c.mapChunk < total {
		if c.mapChunk >= c.mapAsked+MapLookahead || c.conn.Unacked() >= MapMaxInFlight {
			return
		}
		off := c.mapChunk * MapChunkSize
		end := min(off+MapChunkSize, m.Size)
		s.pk.Reset()
		s.pk.AddMsgHeader(netproto.NetmsgMapData, true)
		if err := c.conn.SendRef(s.now(), s.pk.Bytes(), m.Data[off:end], netproto.SendFlush); err != nil {
			if c.conn.State() != netproto.StateError {
				s.warn().Err(err).Int("cid", c.id).Msg("send failed")
			}
			return
		}
		if c.conn.Pending() >= netproto.OutboxPackets/2 {
			s.flushConn(c) // as sendMsg: room for the next chunks' copies
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
	s.log.Info().Str("map", m.Name).Int("size", m.Size).Msg("map changed")
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
