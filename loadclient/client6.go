package loadclient

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"

	"twserver/netproto"
	"twserver/snap"
)

// The 0.6 dialect of the load client (Config.Proto6): a DDNet-style client
// (net.md B2.2, B3): the security-token handshake, CLIENTVER before INFO,
// 0.6 system ids, the map downloaded chunk by chunk on request (checked
// against map-details' SHA-256 when the server sent it, and its CRC),
// snapshots with the 0.6 ids and static sizes, INPUT without ping
// correction, and the 0.6 game messages decoded by their layouts.

// NetVersion6 is the version string a 0.6 client's INFO carries.
const NetVersion6 = "0.6 626fce9a778df4d4"

// DDNetVersion is the DDNet version the 0.6 load client announces (16.4).
const DDNetVersion = 16040

// mapChunk6 is the 0.6 MAP_DATA chunk size (net.md B3.4).
const mapChunk6 = 1024 - 128

// DDNet UUID messages used by the 0.6 load client (net.md B3.3).
var (
	uuid6ClientVer  = netproto.DDNetUUID("clientver@ddnet.tw")
	uuid6MapDetails = netproto.DDNetUUID("map-details@ddnet.tw")
)

// sysID6 maps the 0.7 id of a client→server system message to 0.6.
func sysID6(id int32) int32 {
	switch id {
	case netproto.NetmsgInfo:
		return netproto.Netmsg6Info
	case netproto.NetmsgReady:
		return netproto.Netmsg6Ready
	case netproto.NetmsgEnterGame:
		return netproto.Netmsg6EnterGame
	case netproto.NetmsgInput:
		return netproto.Netmsg6Input
	case netproto.NetmsgRequestMapData:
		return netproto.Netmsg6RequestMapData
	case netproto.NetmsgPingReply:
		return netproto.Netmsg6PingReply
	}
	return id
}

// sendInfo6 sends CLIENTVER and INFO, as the DDNet client does once online.
func (c *Client) sendInfo6() {
	if c.cfg.Vanilla6 {
		c.pk.Reset()
		c.pk.AddMsgHeader(netproto.Netmsg6Info, true)
		c.pk.AddString(NetVersion6)
		c.pk.AddString(c.cfg.Password)
		c.sendMsg(true)
		return
	}
	c.pk.Reset()
	c.pk.AddMsgHeader(netproto.Netmsg6Ex, true)
	c.pk.AddRaw(uuid6ClientVer[:])
	var connID [16]byte
	c.pk.AddRaw(connID[:])
	c.pk.AddInt(DDNetVersion)
	c.pk.AddString("DDNet 16.4 (twload)")
	c.sendMsg(true)
	c.pk.Reset()
	c.pk.AddMsgHeader(netproto.Netmsg6Info, true)
	c.pk.AddString(NetVersion6)
	c.pk.AddString(c.cfg.Password)
	c.sendMsg(true)
}

// onSystem6 handles a 0.6 system message by its 0.6 id.
func (c *Client) onSystem6(id int32, body []byte) {
	switch id {
	case netproto.Netmsg6Ex:
		c.up.Reset(body)
		raw := c.up.GetRaw(16)
		if c.up.Err() == nil && [16]byte(raw) == uuid6MapDetails {
			c.onMapDetails6()
		}
	case netproto.Netmsg6MapChange:
		c.onMapChange6(body)
	case netproto.Netmsg6MapData:
		c.onMapData6(body)
	case netproto.Netmsg6ConReady:
		c.onSystem(netproto.NetmsgConReady, body)
	case netproto.Netmsg6Snap, netproto.Netmsg6SnapEmpty, netproto.Netmsg6SnapSingle:
		c.onSnap(id, body)
	case netproto.Netmsg6InputTiming:
		c.onSystem(netproto.NetmsgInputTiming, body)
	case netproto.Netmsg6Ping:
		c.onSystem(netproto.NetmsgPing, body)
	case netproto.Netmsg6PingReply, netproto.Netmsg6RconAuthStatus, netproto.Netmsg6RconLine,
		netproto.Netmsg6RconCmdAdd, netproto.Netmsg6RconCmdRem:
	default:
		c.stats.UnknownMsgs++
	}
}

// onMapDetails6 keeps the SHA-256 of DDNet's map-details for the next MAP_CHANGE.
func (c *Client) onMapDetails6() {
	name := c.up.GetString()
	sha := c.up.GetRaw(32)
	crc := uint32(c.up.GetInt())
	size := int(c.up.GetInt())
	if c.up.Err() != nil {
		c.bad("map-details", c.up.Err())
		return
	}
	c.details6 = MapKey{Name: name, CRC: crc, Size: size}
	copy(c.details6.SHA256[:], sha)
}

// onMapChange6 handles the 0.6 MAP_CHANGE (name, crc, size) and asks for
// chunk 0 unless the map is cached.
func (c *Client) onMapChange6(body []byte) {
	c.up.Reset(body)
	var m netproto.Msg6MapChange
	if err := m.Unpack(&c.up); err != nil {
		c.fail(fmt.Errorf("bad MAP_CHANGE: %w", err))
		return
	}
	k := MapKey{Name: m.Name, CRC: m.CRC, Size: int(m.Size)}
	d := c.details6
	c.details6 = MapKey{}
	c.mapSHAKnown = d.Name == k.Name && d.CRC == k.CRC && d.Size == k.Size
	if c.mapSHAKnown {
		k.SHA256 = d.SHA256
	}
	if !validName(k.Name) || k.Size <= 0 || k.Size > MaxMapSize {
		c.fail(fmt.Errorf("bad MAP_CHANGE: %q of %d bytes", k.Name, k.Size))
		return
	}
	// mapCPR 1: one chunk per request, the 0.6 rule
	if c.restartMap(k, 1, mapChunk6) {
		c.requestChunk6(0)
	}
}

func (c *Client) requestChunk6(chunk int32) {
	c.pk.Reset()
	c.pk.AddMsgHeader(netproto.Netmsg6RequestMapData, true)
	c.pk.AddInt(chunk)
	c.sendMsg(true)
}

// onMapData6 takes the next chunk (index, crc and size checked) and asks
// for the one after, or finishes the map on the last.
func (c *Client) onMapData6(body []byte) {
	if c.stage != StageMap || c.mapBuf == nil {
		return
	}
	c.up.Reset(body)
	var m netproto.Msg6MapData
	if err := m.Unpack(&c.up); err != nil {
		c.fail(fmt.Errorf("bad MAP_DATA: %w", err))
		return
	}
	want := int32(len(c.mapBuf) / mapChunk6)
	if m.Chunk != want || m.CRC != c.mapKey.CRC || len(m.Data) == 0 || len(c.mapBuf)+len(m.Data) > c.mapKey.Size {
		c.fail(fmt.Errorf("MAP_DATA: chunk %d (%d bytes, crc %08x), want chunk %d of map crc %08x", m.Chunk, len(m.Data), m.CRC, want, c.mapKey.CRC))
		return
	}
	c.mapBuf = append(c.mapBuf, m.Data...)
	if m.Last == 0 {
		c.requestChunk6(want + 1)
		return
	}
	if !c.mapSHAKnown {
		// Without map-details the CRC is all a 0.6 client can check; the
		// cache is keyed by the SHA-256 of what arrived.
		if crc32.ChecksumIEEE(c.mapBuf) != c.mapKey.CRC {
			c.fail(fmt.Errorf("map download: %w", ErrMapCRC))
			return
		}
		c.mapKey.SHA256 = sha256.Sum256(c.mapBuf)
	}
	c.finishMap()
}

// Static sizes of the 0.6 snapshot items (net.md B5.2) for validation: the
// vanilla 0.6.4 client drops items of another size.
var objRules6 = [...]objRule{
	1:  {"PlayerInput", 10, []fieldCheck{rng(0, "direction", -1, 1)}},
	2:  {"Projectile", 6, []fieldCheck{rng(4, "type", 0, 5)}},
	3:  {"Laser", 5, nil},
	4:  {"Pickup", 4, []fieldCheck{rng(2, "type", 0, 7), rng(3, "subtype", 0, 5)}},
	5:  {"Flag", 3, []fieldCheck{rng(2, "team", 0, 1)}},
	6:  {"GameInfo", 8, []fieldCheck{flags(0, "game_flags", 3), flags(1, "game_state_flags", 7)}},
	7:  {"GameData", 4, []fieldCheck{rng(2, "flag_carrier_red", -3, 63), rng(3, "flag_carrier_blue", -3, 63)}},
	8:  {"CharacterCore", 15, nil},
	9:  {"Character", 22, []fieldCheck{rng(6, "direction", -1, 1), rng(9, "hook_state", -1, 5), rng(16, "health", 0, 10), rng(17, "armor", 0, 10), rng(19, "weapon", 0, 5), rng(20, "emote", 0, 6)}},
	10: {"PlayerInfo", 5, []fieldCheck{rng(0, "local", 0, 1), rng(1, "client_id", 0, 63), rng(2, "team", -1, 1)}},
	11: {"ClientInfo", 17, []fieldCheck{rng(14, "use_custom_color", 0, 1)}},
	12: {"SpectatorInfo", 3, []fieldCheck{rng(0, "spectator_id", -1, 63)}},
	13: {"Common", 2, nil},
	14: {"Explosion", 2, nil},
	15: {"Spawn", 2, nil},
	16: {"HammerHit", 2, nil},
	17: {"Death", 3, []fieldCheck{rng(2, "client_id", 0, 63)}},
	18: {"SoundGlobal", 3, []fieldCheck{rng(2, "sound_id", 0, 40)}},
	19: {"SoundWorld", 3, []fieldCheck{rng(2, "sound_id", 0, 40)}},
	20: {"DamageInd", 3, nil},
}

// layouts6 are the server game messages of 0.6 by id (net.md B5.4): 'i' an
// int, 's' a string. The load client decodes every one it gets by these.
var layouts6 = map[int32]string{
	1: "s", 2: "s", 3: "iis", 4: "iiii", 5: "i",
	6:  "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii", // 33 tune params
	8:  "",
	9:  "i",
	10: "ii", 11: "",
	12: "isssssssssssssss", // count + always 15 descriptions
	13: "s", 14: "s", 15: "iss", 16: "iiii",
}

// onGame6 decodes a 0.6 server game message by its layout.
func (c *Client) onGame6(id int32, body []byte) {
	layout, ok := layouts6[id]
	if !ok {
		c.stats.UnknownMsgs++
		return
	}
	c.up.Reset(body)
	for _, f := range layout {
		if f == 'i' {
			c.up.GetInt()
		} else {
			c.up.GetStringBytes(netproto.Sanitize)
		}
	}
	if err := c.up.Err(); err != nil || c.up.Remaining() != 0 {
		c.bad(fmt.Sprintf("0.6 game message %d", id), fmt.Errorf("layout %q: err %v, %d bytes left", layout, err, c.up.Remaining()))
		return
	}
	if id == 8 && c.stage == StageStartInfo { // Sv_ReadyToEnter
		c.sendSys(netproto.NetmsgEnterGame)
		c.stage = StageEntering
		c.enteredSnap = 0
	}
}

// sendStartInfo6 sends the 0.6 Cl_StartInfo (id 20).
func (c *Client) sendStartInfo6() {
	c.pk.Reset()
	c.pk.AddMsgHeader(20, false)
	c.pk.AddString(c.cfg.Name)
	c.pk.AddString(c.cfg.Clan)
	c.pk.AddInt(-1)
	c.pk.AddString("default")
	c.pk.AddInt(0)
	c.pk.AddInt(65408)
	c.pk.AddInt(65408)
	c.sendMsg(true)
}

// snapIDs returns the snapshot message ids and size table of the dialect.
func snapTables(six bool) (snap.MsgIDs, *snap.SizeTable) {
	if six {
		return snap.MsgIDs6, snap.Sizes6
	}
	return snap.MsgIDs7, snap.Sizes7
}
