package server

import (
	"twserver/netproto"
	"twserver/world/twmap"
)

// MapChunkSize is the size of one MAP_DATA chunk (the reference MAP_CHUNK_SIZE).
const MapChunkSize = netproto.MapChunkSize

// sendMapChange sends NETMSG_MAP_CHANGE for the current map and resets the
// client's download cursor (net.md A3.4).
func (s *Server) sendMapChange(c *client) {
	m := s.curMap
	c.mapChunk = 0
	s.sendSys(c, netproto.NetmsgMapChange, true, func(p *netproto.Packer) {
		p.AddString(m.Name)
		p.AddInt(int32(m.CRC))
		p.AddInt(int32(m.Size))
		p.AddInt(int32(s.cfg.Server.MapDownloadSpeed))
		p.AddInt(MapChunkSize)
		p.AddRaw(m.SHA256[:])
	})
}

// sendMapData answers one REQUEST_MAP_DATA with the next map_download_speed
// chunks; the chunk reaching the end of the map is the last one. Requests
// after the end send nothing, so a flood of requests costs one window each
// at most once per map.
func (s *Server) sendMapData(c *client) {
	m := s.curMap
	for range s.cfg.Server.MapDownloadSpeed {
		off := c.mapChunk * MapChunkSize
		if off >= m.Size {
			return
		}
		end := min(off+MapChunkSize, m.Size)
		s.pk.Reset()
		s.pk.AddMsgHeader(netproto.NetmsgMapData, true)
		s.pk.AddRaw(m.Data[off:end])
		s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
		c.mapChunk++
		if c.state == stateEmpty {
			return
		}
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
