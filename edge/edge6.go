package edge

import (
	"net/netip"
	"sync"
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

// AntispoofSeq is the number of vital chunks of the anti-spoof reply.
const AntispoofSeq = 6

// Stock dm1 of 0.6 (name, CRC, size) named by the short anti-spoof reply:
// vanilla clients have it, so nothing needs to be sent.
const (
	dm1Name = "dm1"
	dm1CRC  = 0xf2159e6e
	dm1Size = 5805
)

// antispoofMap is the tiny map of the anti-spoof reply: a 2x2 game layer,
// made by twmap.Encode (a few hundred bytes) when a 0.6 client first needs
// it, not at start: a server without 0.6 clients never pays for the encoder.
var antispoofMap = sync.OnceValue(func() *twmap.Map {
	data, err := twmap.Encode(&twmap.Spec{Info: twmap.Info{Author: "twserver"}, Width: 2, Height: 2, Game: make([]byte, 4)})
	if err != nil {
		panic("edge: anti-spoof map: " + err.Error())
	}
	m, err := twmap.Load("twsrv_antispoof", data)
	if err != nil {
		panic("edge: anti-spoof map: " + err.Error())
	}
	return m
})

// AppendAntispoof6 appends the packet of the anti-spoof reply for token
// tick (full: with the map, else naming dm1).
func AppendAntispoof6(dst []byte, tick int32, full bool) []byte {
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
		m := antispoofMap()
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
	for range AntispoofSeq - 3 {
		p.Reset()
		p.AddMsgHeader(netproto.Netmsg6SnapEmpty, true)
		p.AddInt(tick)
		p.AddInt(tick + 1) // delta from tick -1: no base
		add()
	}
	return netproto.AppendPacket6Compressed(dst, netproto.PacketHeader6{NumChunks: AntispoofSeq}, b)
}

// screenVanilla6 handles a stranger's 0.6 packet without DDNet's token
// (reader): a CONNECT gets the anti-spoof reply, an INPUT acknowledging
// the IP's vanilla token goes to the loop (true).
func (e *Edge) screenVanilla6(addr netip.AddrPort, h netproto.PacketHeader6, payload []byte, tokens *netproto.TokenGen, now time.Time, out []byte) bool {
	if info := e.info.Load(); info == nil || !info.Vanilla6 { // 0.6 off, or a password set
		e.Stats.BadToken.Add(1)
		return false
	}
	ip := addr.Addr()
	if h.Flags&netproto.Flag6Control != 0 {
		ctl, err := netproto.ParseControl6(payload)
		if err != nil || ctl.Type != netproto.Ctrl6Connect {
			e.Stats.BadToken.Add(1)
			return false
		}
		if !e.Budget.VanReplies.AllowN(now, 1) {
			e.Stats.ConnlessDropped.Add(1)
			return false
		}
		full := e.Budget.VanFull.AllowN(now, 1)
		e.write(netproto.AppendConnectAccept6(out, 0, false), addr)
		e.write(AppendAntispoof6(out[:0], tokens.VanillaToken6(ip), full), addr)
		e.Stats.TokenReplies.Add(1)
		return false
	}
	tick, ok := e.vanillaInputTick(h, payload)
	return e.passConnect(ok && tokens.CheckVanilla6(ip, tick), now)
}

// vanillaInputTick returns the acknowledged tick of the INPUT that is the
// first chunk of a stranger's 0.6 data packet (decompressed within
// PreconnDecompressPerSecond).
func (e *Edge) vanillaInputTick(h netproto.PacketHeader6, payload []byte) (int32, bool) {
	if h.Flags&netproto.Flag6Compression != 0 {
		if !e.Budget.PreconnDecompress.Allow() {
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

// screen screens a 0.6 connection datagram from an address without a
// slot (reader goroutine); pass hands it to the loop.
func (edge6) screen(e *Edge, b []byte, addr netip.AddrPort, tokens *netproto.TokenGen, now time.Time, out []byte) (int, bool) {
	h, payload, err := netproto.ParsePacket6(b)
	if err != nil {
		e.Stats.Malformed.Add(1)
		return CIDNone, false
	}
	// DDNet never compresses control packets. A stranger's data packet is
	// a DDNet client's first messages, sent right behind its ACCEPT (that
	// hand-off may still wait in the loop's queue, ahead of it), or a
	// vanilla client's INPUT of the anti-spoof handshake.
	if h.Flags&netproto.Flag6Control == 0 {
		if e.accepted6.has(addr, now) {
			return CIDAccepted6, true
		}
		return CIDNone, e.screenVanilla6(addr, h, payload, tokens, now, out)
	}
	if h.Flags&netproto.Flag6Compression != 0 {
		e.Stats.BadToken.Add(1)
		return CIDNone, false
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil {
		e.Stats.Malformed.Add(1)
		return CIDNone, false
	}
	if !ctl.TKEN && !ctl.HasToken {
		return CIDNone, e.screenVanilla6(addr, h, payload, tokens, now, out)
	}
	ip := addr.Addr()
	switch {
	case ctl.Type == netproto.Ctrl6Connect && ctl.TKEN:
		if !e.Budget.Token.AllowN(now, 1) {
			e.Stats.ConnlessDropped.Add(1)
			return CIDNone, false
		}
		e.write(netproto.AppendConnectAccept6(out, tokens.Token6(ip), true), addr)
		e.Stats.TokenReplies.Add(1)
		return CIDNone, false
	case ctl.Type == netproto.Ctrl6Accept && ctl.HasToken:
		if !e.passConnect(tokens.Check6(ip, ctl.Token), now) {
			return CIDNone, false
		}
		e.accepted6.add(addr, now)
		return CIDNone, true
	}
	e.Stats.BadToken.Add(1)
	return CIDNone, false
}

// request reads a checked DDNet ACCEPT, or a vanilla INPUT that
// acknowledged the anti-spoof token (the reader checked the tokens).
func (edge6) request(e *Edge, b []byte) (Request, bool) {
	h, payload, err := netproto.ParsePacket6(b)
	if err != nil {
		return Request{}, false
	}
	if h.Flags&netproto.Flag6Control == 0 {
		if _, ok := e.vanillaInputTick(h, payload); ok {
			return Request{Dialect: netproto.Dialect6}, true
		}
		return Request{}, false
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil || ctl.Type != netproto.Ctrl6Accept || !ctl.HasToken {
		return Request{}, false
	}
	return DDNetRequest(ctl.Token), true
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

// CIDAccepted6 tags a data packet let through for a DDNet ACCEPT that was
// handed to the loop (Screen's cid): the loop feeds it to the slot that
// ACCEPT opened, and drops it if there is none (never a CONNECT).
const CIDAccepted6 = -2

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

// AntispoofMap returns the tiny map of the anti-spoof reply (never modify it).
func AntispoofMap() *twmap.Map { return antispoofMap() }
