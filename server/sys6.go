package server

import (
	"time"

	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/world/map06"
	"twserver/world/twmap"
)

// The system layer for 0.6 clients (net.md B3): the 0.6 ids and layouts of
// the engine messages, DDNet's UUID messages and the 0.6 map download. The
// client states, the world, votes, chat and recording are the 0.7 ones;
// this file only translates at the edge.

// NetVersion6 is the 0.6 network version string a client must send in INFO.
const NetVersion6 = "0.6 626fce9a778df4d4"

// MapChunkSize6 is the size of a 0.6 MAP_DATA chunk (net.md B3.4).
const MapChunkSize6 = 1024 - 128

// MaxMapRequestsFactor bounds the REQUEST_MAP_DATA answered per map change
// to this many times the map's chunk count (DDNet's cap: a 15-byte request
// buys an 896-byte chunk).
const MaxMapRequestsFactor = 2

// SendMapDetails6 makes the server announce the map's SHA-256 to DDNet
// clients before MAP_CHANGE (map-details@ddnet.tw, net.md B3.3), as
// DDNet-Server does: the client checks the downloaded map with it (and
// tries an HTTPS download first, falling back to the in-game download).
const SendMapDetails6 = true

// DDNet UUID messages (net.md B3.3): MD5(namespace ‖ name) made a
// version-3 UUID.
var (
	uuidClientVer  = netproto.DDNetUUID("clientver@ddnet.tw")
	uuidPing       = netproto.DDNetUUID("ping@ddnet.tw")
	uuidPong       = netproto.DDNetUUID("pong@ddnet.tw")
	uuidWhatIs     = netproto.DDNetUUID("what-is@ddnet.tw")
	uuidIDontKnow  = netproto.DDNetUUID("i-dont-know@ddnet.tw")
	uuidMapDetails = netproto.DDNetUUID("map-details@ddnet.tw")
)

// sysID6 maps a 0.7 system message id whose layout 0.6 shares to the 0.6
// id (net.md B7); false for messages 0.6 does not have.
func sysID6(id int32) (int32, bool) {
	switch id {
	case netproto.NetmsgConReady:
		return netproto.Netmsg6ConReady, true
	case netproto.NetmsgInputTiming:
		return netproto.Netmsg6InputTiming, true
	case netproto.NetmsgRconLine:
		return netproto.Netmsg6RconLine, true
	case netproto.NetmsgRconCmdAdd:
		return netproto.Netmsg6RconCmdAdd, true
	case netproto.NetmsgRconCmdRem:
		return netproto.Netmsg6RconCmdRem, true
	case netproto.NetmsgPing:
		return netproto.Netmsg6Ping, true
	case netproto.NetmsgPingReply:
		return netproto.Netmsg6PingReply, true
	case netproto.NetmsgRconAuthOn, netproto.NetmsgRconAuthOff:
		return netproto.Netmsg6RconAuthStatus, true
	}
	return 0, false
}

// sysHeader writes the header of 0.7 system message id in c's dialect;
// false when c's dialect has no such message (then nothing is sent). The
// RCON_AUTH_ON/OFF of 0.7 become 0.6's RCON_AUTH_STATUS(authed, command
// list follows).
func (s *Server) sysHeader(c *client, p *netproto.Packer, id int32) bool {
	if !c.conn.Dialect().Is6() {
		p.AddMsgHeader(id, true)
		return true
	}
	id6, ok := sysID6(id)
	if !ok {
		return false
	}
	p.AddMsgHeader(id6, true)
	switch id {
	case netproto.NetmsgRconAuthOn:
		p.AddInt(1)
		p.AddInt(1)
	case netproto.NetmsgRconAuthOff:
		p.AddInt(0)
		p.AddInt(0)
	}
	return true
}

// onMessage6 dispatches one chunk from a 0.6 client.
func (s *Server) onMessage6(c *client, id int32, system bool, body []byte, vital bool, at time.Time) {
	if system {
		s.onSystemMessage6(c, id, body, vital, at)
		return
	}
	if !vital {
		return
	}
	if id == netproto.Netmsg6Ex {
		return // DDNet's extended game messages: none is needed
	}
	m, err := s.trans6.ClientMessage(c.id, id, body)
	if err != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	if m == nil {
		return
	}
	ci, changeInfo := m.(*dialect6.ChangeInfo)
	if changeInfo {
		m = &ci.ClSkinChange // recorded in its 0.7 form; applied whole (rename6.go)
	}
	if s.rec.Active() { // recordings keep the 0.7 form
		var p netproto.Packer
		if gamemsg.Encode(&p, m) == nil && p.Err() == nil {
			s.rec.Message(c.id, c.state >= stateReady, m.ID(), p.Bytes())
		}
	}
	if changeInfo {
		s.onChangeInfo6(c, ci)
		return
	}
	s.handleGameMessage(c, m)
}

// onSystemMessage6 handles the engine messages of net.md B3.1.
func (s *Server) onSystemMessage6(c *client, id int32, body []byte, vital bool, at time.Time) {
	u := &s.up
	u.Reset(body)
	switch id {
	case netproto.Netmsg6Ex:
		s.onExMessage6(c, u, vital)
	case netproto.Netmsg6Info:
		if !vital || c.state != stateAuth {
			return
		}
		version := u.GetString()
		password := u.GetString()
		if u.Err() != nil {
			s.stats.BadMessages.Add(1)
			return
		}
		s.onInfo(c, NetVersion6, version, password)
	case netproto.Netmsg6RequestMapData:
		if !vital || c.state != stateConnecting {
			return
		}
		chunk := u.GetInt()
		if u.Err() != nil {
			s.stats.BadMessages.Add(1)
			return
		}
		s.sendMapData6(c, chunk)
	case netproto.Netmsg6Ready:
		s.onSystemMessage(c, netproto.NetmsgReady, body, vital, at)
	case netproto.Netmsg6EnterGame:
		s.onSystemMessage(c, netproto.NetmsgEnterGame, body, vital, at)
	case netproto.Netmsg6Input:
		s.onInput(c, u, at)
	case netproto.Netmsg6RconCmd:
		s.onSystemMessage(c, netproto.NetmsgRconCmd, body, vital, at)
	case netproto.Netmsg6RconAuth:
		if !vital || c.state < stateAuth {
			return
		}
		var m netproto.Msg6RconAuth
		if m.Unpack(u) != nil {
			return
		}
		s.rconAuth(c, m.Password, m.SendCmdList != 0)
	case netproto.Netmsg6Ping:
		s.sendSys0(c, netproto.NetmsgPingReply)
	}
}

// onExMessage6 handles DDNet's UUID system messages the 16.4 client sends:
// clientver (its DDNet version, kept), ping (answered with pong) and
// what-is (answered i-dont-know); the others are ignored, as DDNet-Server
// ignores unknown UUIDs.
func (s *Server) onExMessage6(c *client, u *netproto.Unpacker, vital bool) {
	raw := u.GetRaw(16)
	if u.Err() != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	var uuid [16]byte
	copy(uuid[:], raw)
	switch uuid {
	case uuidClientVer:
		if !vital || c.state != stateAuth {
			return
		}
		u.GetRaw(16) // connection id
		v := u.GetInt()
		if u.Err() == nil {
			c.ddnetVersion = v
		}
	case uuidPing:
		id := u.GetRaw(16)
		if u.Err() != nil {
			return
		}
		s.sendEx6(c, uuidPong, id, netproto.SendFlush)
	case uuidWhatIs:
		id := u.GetRaw(16)
		if u.Err() != nil || !vital {
			return
		}
		s.sendEx6(c, uuidIDontKnow, id, netproto.SendVital|netproto.SendFlush)
	}
}

// sendEx6 sends a DDNet UUID system message with a raw payload.
func (s *Server) sendEx6(c *client, uuid [16]byte, payload []byte, flags netproto.SendFlags) {
	s.pk.Reset()
	s.pk.AddMsgHeader(netproto.Netmsg6Ex, true)
	s.pk.AddRaw(uuid[:])
	s.pk.AddRaw(payload)
	s.sendMsg(c, s.pk.Bytes(), flags)
}

// mapVariant6 is what 0.6 clients are sent of the current map: its 0.6
// variant (world/map06: 0.7-compressed tile layers expanded, RGBA images,
// no 0.7-only features) with its own CRC, size and SHA-256, under the
// map's name.
type mapVariant6 struct {
	Name   string
	Data   []byte
	CRC    uint32
	Size   int
	SHA256 [32]byte
}

// deriveMap6 makes the 0.6 variant of m (map06.Derive). If m cannot be
// converted, 0.6 clients get the map as it is (logged): they read it when
// its tile layers are not 0.7-compressed.
func (s *Server) deriveMap6(m *twmap.Map) mapVariant6 {
	v, err := map06.Derive(m)
	if err != nil {
		s.log.Warn().Err(err).Str("map", m.Name).Msg("no 0.6 variant of the map: 0.6 clients get it as it is")
		return mapVariant6{Name: m.Name, Data: m.Data, CRC: m.CRC, Size: m.Size, SHA256: m.SHA256}
	}
	return mapVariant6{Name: m.Name, Data: v.Data, CRC: v.CRC, Size: v.Size, SHA256: v.SHA256}
}

// map6 is the map a 0.6 client is sent (the variant of the current map),
// derived at the first call after a map change, or shared with another
// game of the process on the same map (mapcache.go).
func (s *Server) map6() *mapVariant6 {
	if s.curMap6 == nil {
		s.curMap6 = sharedMap6(s.curMap, s.deriveMap6)
	}
	return s.curMap6
}

// sendMapChange6 announces the map to a 0.6 client: DDNet's map-details
// (with SHA-256) first for DDNet clients, then the 0.6 MAP_CHANGE.
func (s *Server) sendMapChange6(c *client) {
	m := s.map6()
	c.mapChunk = 0 // map data requests answered since this MAP_CHANGE
	c.mapAsked = 0 // one past the highest chunk requested (pre-game progress)
	if SendMapDetails6 && c.conn.Dialect() == netproto.DialectDDNet {
		s.pk.Reset()
		s.pk.AddMsgHeader(netproto.Netmsg6Ex, true)
		s.pk.AddRaw(uuidMapDetails[:])
		s.pk.AddString(m.Name)
		s.pk.AddRaw(m.SHA256[:])
		s.pk.AddInt(int32(m.CRC))
		s.pk.AddInt(int32(m.Size))
		s.pk.AddString("")
		s.sendMsg(c, s.pk.Bytes(), netproto.SendVital)
	}
	mc := netproto.Msg6MapChange{Name: m.Name, CRC: m.CRC, Size: int32(m.Size)}
	s.pk.Reset()
	s.pk.AddMsgHeader(mc.ID(), true)
	mc.Pack(&s.pk)
	s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
}

// sendMapData6 answers REQUEST_MAP_DATA(chunk) with that chunk (net.md
// B3.4): out-of-range requests are ignored, and at most
// MaxMapRequestsFactor × the chunk count are answered per map change.
func (s *Server) sendMapData6(c *client, chunk int32) {
	m := s.map6()
	chunks := (m.Size + MapChunkSize6 - 1) / MapChunkSize6
	if chunk < 0 || int64(chunk)*MapChunkSize6 > int64(m.Size) || c.mapChunk >= MaxMapRequestsFactor*chunks {
		return
	}
	c.mapChunk++
	if int(chunk) >= c.mapAsked { // a chunk not asked for before: the download moves on (pregame.go)
		c.mapAsked = int(chunk) + 1
		s.progress(c)
	}
	off := int(chunk) * MapChunkSize6
	end := min(off+MapChunkSize6, m.Size)
	last := int32(0)
	if end == m.Size {
		last = 1
	}
	md := netproto.Msg6MapData{Last: last, CRC: m.CRC, Chunk: chunk, Data: m.Data[off:end]}
	s.pk.Reset()
	s.pk.AddMsgHeader(md.ID(), true)
	md.Pack(&s.pk)
	s.sendMsg(c, s.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
}

// player6Sent is what setPlayers6 last told the 0.6 translation of a slot.
type player6Sent struct {
	told    bool   // anything since the slot was reset
	in      bool   // in the game
	team    int32  // its team then
	info    uint32 // the client's infoChanges then
	changes uint32 // trans6.PlayerChanges right after
}

// setPlayers6 tells the 0.6 translation every slot's player (name, clan,
// skin, team: what 0.6 snapshots carry and 0.7 sends in messages) before a
// round of snapshots, when a 0.6 client is in the game. It is incremental:
// a slot whose state, team and info are as last told, and whose entry
// nobody else changed since (trans6.PlayerChanges), is skipped, since
// SetPlayer would change nothing (BenchmarkSetPlayers6).
func (s *Server) setPlayers6() {
	any6 := false
	for _, c := range s.clients {
		if c.state == stateIngame && c.conn.Dialect().Is6() {
			any6 = true
			break
		}
	}
	if !any6 {
		return
	}
	for _, c := range s.clients {
		in := c.state == stateIngame
		var team int32
		if in {
			team = int32(s.world.Team(c.id))
		}
		last := &c.sent6
		if last.told && last.in == in && last.team == team && last.info == c.infoChanges &&
			last.changes == s.trans6.PlayerChanges(c.id) {
			continue
		}
		var p dialect6.Player
		if in {
			p = dialect6.Player{Name: c.name, Clan: c.clan, Country: c.country, Skin: c.skin, Team: team}
		}
		s.trans6.SetPlayer(c.id, p, in)
		*last = player6Sent{told: true, in: in, team: team, info: c.infoChanges, changes: s.trans6.PlayerChanges(c.id)}
	}
}

// sendGame6 sends a 0.6 client the translation of a game message: zero or
// more 0.6 messages, vital, the last one flushed when flush is set.
func (s *Server) sendGame6(c *client, m gamemsg.Message, flush bool) {
	out, err := s.trans6.ServerMessage(m, c.id)
	if err != nil {
		s.warn().Err(err).Str("msg", gamemsg.Name(m.ID())).Msg("game message not translated for a 0.6 client")
	}
	if out == nil {
		return
	}
	for i := range out.Len() {
		flags := netproto.SendVital
		if flush && i == out.Len()-1 {
			flags |= netproto.SendFlush
		}
		s.sendMsg(c, out.Msg(i), flags)
		if c.state == stateEmpty {
			return
		}
	}
}
