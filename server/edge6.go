package server

import (
	"net/netip"
	"time"

	"twserver/netproto"
	"twserver/world/twmap"
)

// The 0.6 edge: connection packets from addresses without a slot whose
// framing is 0.6 (net.md B1-B2). Only DDNet's security-token handshake
// opens a slot:
//
//	C→S CONNECT "TKEN" ff ff ff ff      answered here, statelessly:
//	S→C CONNECTACCEPT "TKEN" T          T = tokens.Token6(source IP)
//	C→S ACCEPT T                        T checked here, then the loop opens
//	                                    the slot (Online, token T)
//
// T is a keyed hash of the source IP under the reader's rotating secret
// (the 0.7 token's generator), so, exactly as with the 0.7 token, a sender
// that cannot receive at the address it claims never learns T and gets no
// slot. The CONNECT costs a reply of its own size (no amplification) under
// the token budget, the ACCEPT a budgeted hand-off to the loop.
//
// Vanilla 0.6 CONNECTs (no TKEN) carry nothing a reply could be checked
// against, so the slot waits for proof that the sender receives at its
// address, with DDNet's vanilla anti-spoof handshake (sv_vanilla_antispoof,
// reliability.md 2): the CONNECT is answered, statelessly, with
// CONNECTACCEPT and one packet of six vital chunks (numbered 1..6): a
// MAP_CHANGE to a tiny map, its MAP_DATA, CON_READY and three SNAPEMPTY
// whose tick is the IP's vanilla token (TokenGen.VanillaToken6). The client
// loads the map, takes the snapshots and answers with INPUT acknowledging
// that tick: only that INPUT opens the slot (AcceptVanilla; the server's
// sequence goes on at 6, the client's is taken from its next vital chunk)
// and the real MAP_CHANGE follows, without INFO. A spoofed flood of
// CONNECTs therefore takes no slot. Its replies are bounded:
// VanillaAntispoofPerSecond get the map (about 250 bytes), up to
// VanillaRepliesPerSecond the short form naming the stock map dm1 that
// vanilla clients have (about 70 bytes), the rest nothing. The INPUT of a
// stranger is Huffman-decoded within PreconnDecompressPerSecond. With a
// server password, vanilla clients are not accepted (the handshake skips
// INFO, so the password could not be checked).

// Budgets of the vanilla 0.6 handshake (DDNet's sv_van_conn_per_second,
// sv_van_conn_replies_per_second, sv_preconn_decompress_per_second).
const (
	// VanillaAntispoofPerSecond bounds the full anti-spoof replies (with the map).
	VanillaAntispoofPerSecond = 10
	// VanillaRepliesPerSecond bounds all replies to vanilla CONNECTs.
	VanillaRepliesPerSecond = 200
	// PreconnDecompressPerSecond bounds Huffman decoding of strangers' packets.
	PreconnDecompressPerSecond = 800
)

// antispoofSeq is the number of vital chunks of the anti-spoof reply.
const antispoofSeq = 6

// Stock dm1 of 0.6 (name, CRC, size) named by the short anti-spoof reply:
// vanilla clients have it, so nothing needs to be sent.
const (
	dm1Name = "dm1"
	dm1CRC  = 0xf2159e6e
	dm1Size = 5805
)

// antispoofMap is the tiny map of the anti-spoof reply: a 2x2 game layer,
// made by twmap.Encode (a few hundred bytes).
var antispoofMap = func() *twmap.Map {
	data, err := twmap.Encode(&twmap.Spec{Info: twmap.Info{Author: "twserver"}, Width: 2, Height: 2, Game: make([]byte, 4)})
	if err != nil {
		panic("server: anti-spoof map: " + err.Error())
	}
	m, err := twmap.Load("twsrv_antispoof", data)
	if err != nil {
		panic("server: anti-spoof map: " + err.Error())
	}
	return m
}()

// appendAntispoof6 appends the packet of the anti-spoof reply for token
// tick (full: with the map, else naming dm1).
func appendAntispoof6(dst []byte, tick int32, full bool) []byte {
	var chunks [netproto.MaxPayload6]byte
	var p netproto.Packer
	b := chunks[:0]
	seq := uint16(0)
	add := func() {
		seq++
		b = netproto.AppendChunkHeader6(b, netproto.ChunkHeader{Flags: netproto.ChunkVital, Size: p.Len(), Seq: seq})
		b = append(b, p.Bytes()...)
	}
	mc := netproto.Msg6MapChange{Name: dm1Name, CRC: dm1CRC, Size: dm1Size}
	md := netproto.Msg6MapData{Last: 1}
	if full {
		m := antispoofMap
		mc = netproto.Msg6MapChange{Name: m.Name, CRC: m.CRC, Size: int32(m.Size)}
		md = netproto.Msg6MapData{Last: 1, CRC: m.CRC, Data: m.Data}
	}
	p.Reset()
	p.AddMsgHeader(mc.ID(), true)
	mc.Pack(&p)
	add()
	p.Reset()
	p.AddMsgHeader(md.ID(), true)
	md.Pack(&p)
	add()
	p.Reset()
	p.AddMsgHeader(netproto.Netmsg6ConReady, true)
	add()
	for range antispoofSeq - 3 {
		p.Reset()
		p.AddMsgHeader(netproto.Netmsg6SnapEmpty, true)
		p.AddInt(tick)
		p.AddInt(tick + 1) // delta from tick -1: no base
		add()
	}
	return netproto.AppendPacket6Compressed(dst, netproto.PacketHeader6{NumChunks: antispoofSeq}, b)
}

// screenVanilla6 handles a stranger's 0.6 packet without DDNet's token
// (reader): a CONNECT gets the anti-spoof reply, an INPUT acknowledging
// the IP's vanilla token goes to the loop (true).
func (s *Server) screenVanilla6(p *rxPacket, h netproto.PacketHeader6, payload []byte, tokens *netproto.TokenGen, now time.Time, out []byte) bool {
	if info := s.info.Load(); info == nil || !info.vanilla6 { // 0.6 off, or a password set
		s.stats.BadToken.Add(1)
		return false
	}
	ip := p.addr.Addr()
	if h.Flags&netproto.Flag6Control != 0 {
		ctl, err := netproto.ParseControl6(payload)
		if err != nil || ctl.Type != netproto.Ctrl6Connect {
			s.stats.BadToken.Add(1)
			return false
		}
		if !s.budget.vanReplies.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		full := s.budget.vanFull.AllowN(now, 1)
		s.write(netproto.AppendConnectAccept6(out, 0, false), p.addr)
		s.write(appendAntispoof6(out[:0], tokens.VanillaToken6(ip), full), p.addr)
		s.stats.TokenReplies.Add(1)
		return false
	}
	tick, ok := s.vanillaInputTick(h, payload)
	return s.passConnect(ok && tokens.CheckVanilla6(ip, tick), now)
}

// vanillaInputTick returns the acknowledged tick of the INPUT that is the
// first chunk of a stranger's 0.6 data packet (decompressed within
// PreconnDecompressPerSecond).
func (s *Server) vanillaInputTick(h netproto.PacketHeader6, payload []byte) (int32, bool) {
	if h.Flags&netproto.Flag6Compression != 0 {
		if !s.budget.preconnDecompress.Allow() {
			return 0, false
		}
		var raw [netproto.MaxPayload6]byte
		dec, err := netproto.HuffmanDecompress(raw[:0], payload, netproto.MaxPayload6)
		if err != nil {
			return 0, false
		}
		payload = dec
	}
	var r netproto.ChunkReader
	r.Reset6(payload, int(h.NumChunks))
	ch, ok := r.Next()
	if !ok {
		return 0, false
	}
	id, sys, n, err := netproto.ParseMsgHeader(ch.Data)
	if err != nil || !sys || id != netproto.Netmsg6Input {
		return 0, false
	}
	var u netproto.Unpacker
	u.Reset(ch.Data[n:])
	tick := u.GetInt()
	return tick, u.Err() == nil
}

// screen6 screens a 0.6 connection datagram from an address without a
// slot (reader goroutine); true hands it to the loop.
func (s *Server) screen6(p *rxPacket, tokens *netproto.TokenGen, now time.Time, out []byte) bool {
	h, payload, err := netproto.ParsePacket6(p.data())
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	// DDNet never compresses control packets. A stranger's data packet is
	// a DDNet client's first messages, sent right behind its ACCEPT (that
	// hand-off may still wait in the loop's queue, ahead of it), or a
	// vanilla client's INPUT of the anti-spoof handshake.
	if h.Flags&netproto.Flag6Control == 0 {
		if s.accepted6.has(p.addr, now) {
			p.cid = cidAccepted6
			return true
		}
		return s.screenVanilla6(p, h, payload, tokens, now, out)
	}
	if h.Flags&netproto.Flag6Compression != 0 {
		s.stats.BadToken.Add(1)
		return false
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	if !ctl.TKEN && !ctl.HasToken {
		return s.screenVanilla6(p, h, payload, tokens, now, out)
	}
	ip := p.addr.Addr()
	switch {
	case ctl.Type == netproto.Ctrl6Connect && ctl.TKEN:
		if !s.budget.token.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		s.write(netproto.AppendConnectAccept6(out, tokens.Token6(ip), true), p.addr)
		s.stats.TokenReplies.Add(1)
		return false
	case ctl.Type == netproto.Ctrl6Accept && ctl.HasToken:
		if !s.passConnect(tokens.Check6(ip, ctl.Token), now) {
			return false
		}
		s.accepted6.add(p.addr, now)
		return true
	}
	s.stats.BadToken.Add(1)
	return false
}

// Bounds of the reader's memory of DDNet ACCEPTs it handed to the loop.
// A DDNet client sends its first data packet (CLIENTVER, INFO) right
// behind its ACCEPT, before the loop has opened the slot and told the
// reader (peerTable), so the reader lets a 0.6 data packet through to the
// loop when its address sent a checked ACCEPT within PendingAcceptWindow6;
// the loop reads it in order, after the ACCEPT, as the new slot's traffic
// (or drops it if the ACCEPT was refused). Without this the first data
// packet was dropped and the client's resend, a second later, got it in.
const (
	// PendingAccepts6 is how many recent ACCEPTs the reader remembers
	// (the oldest is forgotten first): at ConnectsPerSecond it covers
	// the last PendingAccepts6/ConnectsPerSecond seconds at least.
	PendingAccepts6 = 64
	// PendingAcceptWindow6 is how long after its ACCEPT an address's data
	// packets pass before the loop has opened its slot.
	PendingAcceptWindow6 = time.Second
)

// cidAccepted6 tags a data packet let through for a DDNet ACCEPT that was
// handed to the loop (rxPacket.cid): the loop feeds it to the slot that
// ACCEPT opened, and drops it if there is none (never a CONNECT).
const cidAccepted6 = -2

// acceptedRing holds the addresses of the last PendingAccepts6 checked
// DDNet ACCEPTs with their arrival times. Only the goroutine that screens
// (the reader, or the loop while the reader waits for it) touches it.
type acceptedRing struct {
	addr [PendingAccepts6]netip.AddrPort
	at   [PendingAccepts6]time.Time
	next int
	last time.Time // the newest ACCEPT's arrival
}

func (r *acceptedRing) add(a netip.AddrPort, now time.Time) {
	r.addr[r.next], r.at[r.next] = a, now
	r.next = (r.next + 1) % PendingAccepts6
	r.last = now
}

// has reports whether a sent a checked ACCEPT within PendingAcceptWindow6
// before now. With no ACCEPT in the window (always, under a flood of
// strangers' data packets: an ACCEPT needs a valid token) it answers
// without scanning the ring.
func (r *acceptedRing) has(a netip.AddrPort, now time.Time) bool {
	if r.last.IsZero() || now.Sub(r.last) > PendingAcceptWindow6 {
		return false
	}
	for i := range r.addr {
		if r.addr[i] == a && now.Sub(r.at[i]) <= PendingAcceptWindow6 {
			return true
		}
	}
	return false
}

// connect6 opens a slot for a checked DDNet ACCEPT, or a vanilla INPUT
// that acknowledged the anti-spoof token (loop: the reader checked the
// tokens).
func (s *Server) connect6(p *rxPacket) {
	h, payload, err := netproto.ParsePacket6(p.data())
	if err != nil {
		return
	}
	if h.Flags&netproto.Flag6Control == 0 {
		if _, ok := s.vanillaInputTick(h, payload); ok {
			s.onConnect(p.addr, connectReq{dialect: netproto.Dialect6})
		}
		return
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil || ctl.Type != netproto.Ctrl6Accept || !ctl.HasToken {
		return
	}
	s.onConnect(p.addr, connectReq{dialect: netproto.DialectDDNet, sec: ctl.Token})
}

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
		s.onConnect(addr, connectReq{dialect: netproto.DialectDDNet, sec: sec})
		return true
	}
	return false
}
