package edge

import (
	"bytes"
	"cmp"
	"net/netip"
	"strconv"
	"time"

	"twserver/netproto"
)

// 0.6 connless server info (net.md B6): no token exchange, so every reply
// goes to whatever address the request claims. Both forms are answered in
// the reader under the same info budget as 0.7 (InfoRepliesPerSecond, one
// unit per datagram sent), and the client list is only included for
// Info6FullPerSecond requests a second (DDNet's sv_server_info_per_second);
// beyond that the reply is the short header alone. That bounds what a
// spoofed-source flood can make the server send to a victim: at most
// Info6FullPerSecond full replies (MaxInfo6Packets datagrams of at most
// MaxPacketSize bytes each) plus short replies of a few dozen bytes, within
// InfoRepliesPerSecond datagrams a second in total.

// Info6FullPerSecond bounds the 0.6 info replies with a client list per second.
const Info6FullPerSecond = 50

// MaxInfo6Packets bounds the datagrams of one extended (iext/iex+) reply:
// 64 clients fit in far fewer.
const MaxInfo6Packets = 8

// Vanilla 0.6 info limits (net.md B6.2).
const (
	// info6MaxClients is the most clients a vanilla inf3 lists and reports.
	info6MaxClients = 16
	// GameVersion6 is the version in 0.6 server info; the browsers need "0.6" first.
	GameVersion6 = "0.6.4"
)

// 0.6 connless magics (net.md B6.1, B6.4).
var (
	magicInfoExt     = []byte("\xff\xff\xff\xffiext")
	magicInfoExtMore = []byte("\xff\xff\xff\xffiex+")
)

// Versions returns the versions the 0.7 and the 0.6 server info show for
// twserver build build on game version game7: "0.7.5, twserver BUILD" and
// "0.6.4, twserver BUILD", as mods put theirs after the game's (the
// browsers' compatible-version filters read only the first three bytes;
// at most netproto.MaxInfoVersionLen bytes are sent), or the game versions
// alone for an empty build.
func Versions(game7, build string) [2]string {
	if build == "" {
		return [2]string{game7, GameVersion6}
	}
	return [2]string{game7 + ", twserver " + build, GameVersion6 + ", twserver " + build}
}

// Info6 is the 0.6 part of a published InfoSnapshot: bodies after the
// token string, prebuilt by the loop (BuildInfo6).
type Info6 struct {
	vanilla      []byte   // inf3 body with at most 16 clients
	vanillaShort []byte   // inf3 body without the client list
	extHead      []byte   // iext fields after the token, before the clients
	extShort     []byte   // extHead with zero clients listed (short reply)
	extRows      [][]byte // one iext/iex+ row per client
}

// InfoHead is what the info of either dialect says of the server besides
// its clients.
type InfoHead struct {
	// Name is the server name, GameType the running game's.
	Name, GameType string
	// Version and Version6 are the versions of the 0.7 and the 0.6 info
	// (Versions; an empty Version6 is GameVersion6), Hostname and
	// SkillLevel the 0.7 settings shown (the 0.6 info has neither).
	Version, Version6, Hostname string
	SkillLevel                  int
	// MapName, MapCRC and MapSize describe the current map.
	MapName string
	MapCRC  uint32
	MapSize int
	// Passworded is set when joining needs a password.
	Passworded bool
	// NumPlayers counts the in-game non-spectators; MaxPlayers and
	// MaxClients are the limits shown (never fewer than are there).
	NumPlayers, MaxPlayers, MaxClients int
}

// appendStr6 appends a NUL-terminated string, cut to limit bytes.
func appendStr6(b []byte, s string, limit int) []byte {
	if len(s) > limit {
		s = s[:limit]
	}
	return append(append(b, s...), 0)
}

// info6NumLen is the longest decimal int32 with its sign and NUL.
const info6NumLen = 12

// appendNum6 appends a decimal string (0.6 info numbers are strings).
func appendNum6(b []byte, v int) []byte { return append(strconv.AppendInt(b, int64(v), 10), 0) }

// BuildInfo6 prebuilds the 0.6 info bodies for rows (loop, when it
// publishes the info).
func BuildInfo6(hd InfoHead, rows []InfoPlayer) Info6 {
	var in Info6
	hd, rows = HumansOnly(hd, rows)
	flags := 0
	if hd.Passworded {
		flags = 1
	}
	numPlayers, maxPlayers, maxClients := hd.NumPlayers, hd.MaxPlayers, hd.MaxClients
	// Vanilla: at most 16 slots shown; a bigger server shows "[n/m]" in its
	// name and a capped count, as DDNet does.
	name := hd.Name
	nc, np, mc, mp := len(rows), numPlayers, maxClients, maxPlayers
	if maxClients > info6MaxClients {
		name += " [" + strconv.Itoa(len(rows)) + "/" + strconv.Itoa(maxClients) + "]"
		if nc >= info6MaxClients {
			nc = info6MaxClients - 1
			if len(rows) >= maxClients {
				nc = info6MaxClients
			}
		}
		np = min(np, nc)
		mc, mp = info6MaxClients, min(mp, info6MaxClients)
	}
	v6 := cmp.Or(hd.Version6, GameVersion6)
	head := func(b []byte, n int) []byte {
		b = appendStr6(b, v6, netproto.MaxInfoVersionLen)
		b = appendStr6(b, name, netproto.MaxInfoNameLen)
		b = appendStr6(b, hd.MapName, netproto.MaxInfoMapLen)
		b = appendStr6(b, hd.GameType, netproto.MaxInfoGameTypeLen)
		b = appendNum6(b, flags)
		b = appendNum6(b, min(np, n))
		b = appendNum6(b, mp)
		b = appendNum6(b, n)
		return appendNum6(b, mc)
	}
	// Every body is a capped slice of one buffer sized for them all (two
	// heads of each form, each row in both forms), so a rebuild costs a few
	// allocations, not several per client.
	size := 4 * (len(v6) + len(name) + len(hd.MapName) + len(hd.GameType) + 16*info6NumLen)
	for _, r := range rows {
		size += 2 * (len(r.Name) + len(r.Clan) + 3*info6NumLen + 3)
	}
	buf := make([]byte, 0, size)
	cut := func(start int) []byte { return buf[start:len(buf):len(buf)] }
	start := len(buf)
	buf = head(buf, nc)
	in.vanillaShort = cut(start)
	start = len(buf)
	buf = head(buf, nc)
	for i, r := range rows {
		if i >= nc {
			break
		}
		buf = appendRow6(buf, r, false)
	}
	in.vanilla = cut(start)
	ext := func(b []byte, n, np int) []byte {
		b = appendStr6(b, v6, netproto.MaxInfoVersionLen)
		b = appendStr6(b, hd.Name, 256)
		b = appendStr6(b, hd.MapName, netproto.MaxInfoMapLen)
		b = appendNum6(b, int(int32(hd.MapCRC)))
		b = appendNum6(b, hd.MapSize)
		b = appendStr6(b, hd.GameType, netproto.MaxInfoGameTypeLen)
		b = appendNum6(b, flags)
		b = appendNum6(b, np)
		b = appendNum6(b, maxPlayers)
		b = appendNum6(b, n)
		b = appendNum6(b, maxClients)
		return append(b, 0) // reserved
	}
	start = len(buf)
	buf = ext(buf, len(rows), numPlayers)
	in.extHead = cut(start)
	start = len(buf)
	buf = ext(buf, 0, 0)
	in.extShort = cut(start)
	in.extRows = make([][]byte, len(rows))
	for i, r := range rows {
		start = len(buf)
		buf = appendRow6(buf, r, true)
		in.extRows[i] = cut(start)
	}
	return in
}

// appendRow6 appends one client row: name, clan, country, score, is_player
// (and DDNet's reserved empty string in the extended form).
func appendRow6(b []byte, r InfoPlayer, ext bool) []byte {
	b = appendStr6(b, r.Name, 16)
	b = appendStr6(b, r.Clan, 12)
	b = appendNum6(b, int(r.Country))
	b = appendNum6(b, int(r.Score))
	player := 1
	if r.Spectator {
		player = 0
	}
	b = appendNum6(b, player)
	if ext {
		b = append(b, 0)
	}
	return b
}

// screenConnless6 answers a 0.6 connless datagram in the reader: gie3
// with the vanilla header gets inf3, with DDNet's "xe" header iext (+iex+).
// LAN discovery is the same request sent to the broadcast address, so it is
// answered the same way (unicast, to the sender).
func (e *Edge) screenConnless6(to netip.AddrPort, pkt []byte, now time.Time, out []byte) {
	hdr, payload, err := netproto.ParseConnless6(pkt)
	if err != nil || len(payload) < len(magicGetInfo)+1 || !bytes.HasPrefix(payload, magicGetInfo) {
		e.Stats.Malformed.Add(1)
		return
	}
	info := e.info.Load()
	if info == nil || !info.Accept06 {
		return // not listed in 0.6 browsers
	}
	tok := int(payload[len(magicGetInfo)])
	extended := hdr[0] == 'x' && hdr[1] == 'e'
	if extended {
		tok |= int(hdr[2])<<16 | int(hdr[3])<<8 // the "extra token", 16 bit big-endian, above the byte
	}
	if !e.Budget.Info.AllowN(now, 1) {
		e.Stats.ConnlessDropped.Add(1)
		return
	}
	full := e.Budget.Info6Full.AllowN(now, 1)
	var body [netproto.MaxPacketSize]byte
	if !extended {
		b := append(body[:0], magicInfo...)
		b = appendNum6(b, tok)
		if full {
			b = append(b, info.Six.vanilla...)
		} else {
			b = append(b, info.Six.vanillaShort...)
		}
		e.write(netproto.AppendConnless6(out, b), to)
		e.Stats.InfoReplies.Add(1)
		return
	}
	// Extended: the main packet, then as many iex+ packets as the rows need.
	const room = netproto.MaxPayload6 - 18 // DDNet's bound for one reply (net.md B6.4)
	b := append(body[:0], magicInfoExt...)
	b = appendNum6(b, tok)
	if !full {
		b = append(b, info.Six.extShort...)
		e.write(netproto.AppendConnless6(out, b), to)
		e.Stats.InfoReplies.Add(1)
		return
	}
	b = append(b, info.Six.extHead...)
	rows := info.Six.extRows
	for pkt := 0; pkt < MaxInfo6Packets; pkt++ {
		for len(rows) > 0 && len(b)+len(rows[0]) <= room {
			b = append(b, rows[0]...)
			rows = rows[1:]
		}
		e.write(netproto.AppendConnless6(out[:0], b), to)
		e.Stats.InfoReplies.Add(1)
		if len(rows) == 0 || !e.Budget.Info.AllowN(now, 1) {
			return
		}
		b = append(body[:0], magicInfoExtMore...)
		b = appendNum6(b, tok)
		b = appendNum6(b, pkt+1)
		b = append(b, 0) // reserved
	}
}

// AppendInGame6 appends the in-game server info a 0.6 client is sent
// instead of 0.7's NETMSG_SERVERINFO: a connless inf3 with token "-1" and
// no client list (net.md B6.3). Loop goroutine.
func (in *InfoSnapshot) AppendInGame6(dst []byte) []byte {
	var body [netproto.MaxPacketSize]byte
	b := append(body[:0], magicInfo...)
	b = appendNum6(b, -1)
	b = append(b, in.Six.vanillaShort...)
	return netproto.AppendConnless6(dst, b)
}

// InGame6Changed reports whether the in-game info a 0.6 client is sent
// (AppendInGame6) differs between two published infos (nil: unknown, so
// changed).
func InGame6Changed(before, after *InfoSnapshot) bool {
	return before == nil || after == nil || !bytes.Equal(before.Six.vanillaShort, after.Six.vanillaShort)
}
