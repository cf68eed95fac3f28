package edge

import (
	"bytes"
	"net/netip"

	"twserver/netproto"
)

// Connless magics (net.md A6.1), the same in both dialects.
const (
	// MagicGetInfo starts a server info request (gie3).
	MagicGetInfo = "\xff\xff\xff\xffgie3"
	// MagicInfo starts a server info reply (inf3).
	MagicInfo = "\xff\xff\xff\xffinf3"
)

var (
	magicGetInfo = []byte(MagicGetInfo)
	magicInfo    = []byte(MagicInfo)
)

// InfoMaxPayload is the largest 0.7 connless payload the server sends
// (net.md A6.2).
const InfoMaxPayload = netproto.MaxPayload - 1

// InfoSnapshot is the server info published by the loop for the reader
// (Edge.Publish): the 0.7 body after the browser token of an inf3 reply and
// the 0.6 forms. Immutable once published.
type InfoSnapshot struct {
	// Body is the 0.7 inf3 body after the token.
	Body []byte
	// Six holds the 0.6 forms (BuildInfo6).
	Six Info6
	// What the reader may accept, from the settings (which can change at
	// run time, so the reader never reads the configuration): 0.7 and 0.6
	// clients and browsers (server.accept_07/06), and vanilla 0.6
	// handshakes (0.6 accepted and no password, edge6.go).
	Accept07, Accept06, Vanilla6 bool
}

// InfoPlayer is one row of the server info client list.
type InfoPlayer struct {
	Name, Clan string
	Country    int32
	Score      int32
	Spectator  bool
	// Bot: a bot (package botslots). The 0.7 info shows it with client type
	// bit 2; the 0.6 info and the masters count humans only (HumansOnly).
	Bot bool
}

// HumansOnly returns hd and rows without the bots: the 0.6 and DDNet
// browsers and the masters show humans only (DDNet's rule for the player
// counts). rows is returned as it is when it holds no bot.
func HumansOnly(hd InfoHead, rows []InfoPlayer) (InfoHead, []InfoPlayer) {
	var out []InfoPlayer
	for i, r := range rows {
		if !r.Bot {
			if out != nil {
				out = append(out, r)
			}
			continue
		}
		if out == nil {
			out = append(make([]InfoPlayer, 0, len(rows)), rows[:i]...)
		}
		if !r.Spectator {
			hd.NumPlayers--
		}
	}
	if out == nil {
		return hd, rows
	}
	return hd, out
}

// answerConnless handles a connless packet with a valid token in the reader:
// only the server info request (gie3) is answered.
func (e *Edge) answerConnless(to netip.AddrPort, h netproto.ConnlessHeader, payload []byte, own netproto.Token, out []byte) {
	if !bytes.HasPrefix(payload, magicGetInfo) {
		e.Stats.Malformed.Add(1)
		return
	}
	tok, _, err := netproto.ParseInt(payload[len(magicGetInfo):])
	if err != nil {
		e.Stats.Malformed.Add(1)
		return
	}
	info := e.info.Load()
	if info == nil {
		return
	}
	var body [netproto.MaxPayload]byte
	b := append(body[:0], magicInfo...)
	b = netproto.AppendInt(b, tok)
	b = append(b, info.Body...)
	if len(b) > InfoMaxPayload {
		return
	}
	out = netproto.AppendConnless(out, netproto.ConnlessHeader{Token: h.ResponseToken, ResponseToken: own}, b)
	e.write(out, to)
	e.Stats.InfoReplies.Add(1)
}

// Append7 packs the fields shared by inf3 and NETMSG_SERVERINFO for
// numClients clients: version .. max clients (net.md A6.2/A6.3).
func (hd *InfoHead) Append7(p *netproto.Packer, numClients int) {
	flags := int32(0)
	if hd.Passworded {
		flags |= 1
	}
	p.AddStringLimit(hd.Version, 32)
	p.AddStringLimit(hd.Name, 64)
	p.AddStringLimit(hd.Hostname, 128)
	p.AddStringLimit(hd.MapName, 32)
	p.AddStringLimit(hd.GameType, 16)
	p.AddInt(flags)
	p.AddInt(int32(hd.SkillLevel))
	p.AddInt(int32(hd.NumPlayers))
	p.AddInt(int32(hd.MaxPlayers))
	p.AddInt(int32(numClients))
	p.AddInt(int32(hd.MaxClients))
}

// BuildInfo7 builds the 0.7 inf3 body after the token for rows: the
// header, then as many rows as fit one packet.
func BuildInfo7(hd InfoHead, rows []InfoPlayer) []byte {
	var p netproto.Packer
	hd.Append7(&p, len(rows))
	var row netproto.Packer
	for _, r := range rows {
		row.Reset()
		row.AddStringLimit(r.Name, 16)
		row.AddStringLimit(r.Clan, 12)
		row.AddInt(r.Country)
		row.AddInt(r.Score)
		// the client type: 1 spectator, 2 bot (0.7.5 masks it with 3)
		typ := int32(0)
		if r.Spectator {
			typ |= 1
		}
		if r.Bot {
			typ |= 2
		}
		row.AddInt(typ)
		// The reply must fit one packet: magic (8) + token (<=5) + body.
		if p.Len()+row.Len() > InfoMaxPayload-8-netproto.MaxVarintSize {
			break
		}
		p.AddRaw(row.Bytes())
	}
	return append([]byte(nil), p.Bytes()...)
}
