package server

import (
	"net/netip"
	"testing"
	"time"

	"twserver/config"
	"twserver/edge"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
)

// FuzzClientMessage feeds arbitrary chunks from an in-game client to the
// loop's message handler: it must never panic, and the slot bookkeeping
// must stay consistent (a dropped client frees its slot and address).
func FuzzClientMessage(f *testing.F) {
	var p netproto.Packer
	add := func(fill func()) {
		p.Reset()
		fill()
		f.Add(append([]byte(nil), p.Bytes()...), true)
	}
	add(func() {
		p.AddMsgHeader(netproto.NetmsgInfo, true)
		p.AddString(session.NetVersion)
		p.AddString("")
		p.AddInt(0x0705)
	})
	add(func() {
		p.AddMsgHeader(netproto.NetmsgInput, true)
		for _, v := range []int32{10, 12, 40, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5} {
			p.AddInt(v)
		}
	})
	add(func() { p.AddMsgHeader(netproto.NetmsgRequestMapData, true) })
	add(func() { p.AddMsgHeader(netproto.NetmsgRconAuth, true); p.AddString("pw") })
	add(func() { p.AddMsgHeader(netproto.NetmsgRconCmd, true); p.AddString("status") })
	add(func() { _ = gamemsg.Encode(&p, &gamemsg.ClSay{Mode: 1, Target: -1, Message: "hi"}) })
	add(func() { _ = gamemsg.Encode(&p, &gamemsg.ClCallVote{Type: "kick", Value: "0"}) })
	add(func() { _ = gamemsg.Encode(&p, &gamemsg.ClSetTeam{Team: -1}) })
	add(func() { _ = gamemsg.Encode(&p, &gamemsg.ClEmoticon{Emoticon: 3}) })
	add(func() { _ = gamemsg.Encode(&p, &gamemsg.ClKill{}) })
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff}, false)

	f.Fuzz(func(t *testing.T, data []byte, vital bool) {
		s := newIdleServer(t, 2)
		s.cfg.Server.RconPassword = "pw"
		for _, c := range s.clients {
			s.byAddr[c.addr] = c.id
			s.edge.Peers.Add(c.addr, c.id)
		}
		flags := netproto.ChunkFlags(0)
		if vital {
			flags = netproto.ChunkVital
		}
		c := s.clients[0]
		s.onMessage(c, netproto.Chunk{ChunkHeader: netproto.ChunkHeader{Flags: flags}, Data: data}, time.Now())
		s.doTick()
		s.updateConns()
		s.flushAll()
		for _, c := range s.clients {
			_, mapped := s.byAddr[c.addr]
			if c.state == stateEmpty && mapped {
				t.Fatalf("slot %d empty but its address is still mapped", c.id)
			}
			if c.state == stateEmpty && s.edge.Peers.Has(c.addr) {
				t.Fatalf("slot %d empty but its address is still a peer", c.id)
			}
		}
	})
}

// countConn is a PacketConn that counts the bytes written to each address.
type countConn struct{ sent map[netip.AddrPort]int }

func (c *countConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, sockio.ErrClosed
}
func (c *countConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	c.sent[a] += len(b)
	return len(b), nil
}
func (c *countConn) LocalAddr() netip.AddrPort { return srvAddr }
func (c *countConn) Close() error              { return nil }

// isVanillaConnect reports whether b is a vanilla 0.6 CONNECT.
func isVanillaConnect(b []byte) bool {
	if netproto.Is7Packet(b) {
		return false
	}
	h, payload, err := netproto.ParsePacket6(b)
	if err != nil || h.Flags&netproto.Flag6Control == 0 || h.Flags&netproto.Flag6Compression != 0 {
		return false
	}
	ctl, err := netproto.ParseControl6(payload)
	return err == nil && ctl.Type == netproto.Ctrl6Connect && !ctl.TKEN
}

// FuzzDatagram feeds arbitrary datagrams through the reader's screen and
// the loop, from an in-game client's address or from a stranger, then runs
// a tick: nothing may panic, the slot bookkeeping must stay consistent, and
// a stranger's connection-oriented datagram is never answered with more
// bytes than it carried, except a vanilla 0.6 CONNECT (the anti-spoof reply).
func FuzzDatagram(f *testing.F) {
	secret := netproto.TokenSecret{7}
	stranger := netip.MustParseAddrPort("198.51.100.7:4000")
	tok := netproto.NewTokenGen(secret, 0).Token(stranger.Addr())
	f.Add(inputPacket(5), true)
	f.Add(netproto.AppendControl(nil, 0, 1, netproto.CtrlClose, []byte("bye\x00")), true)
	f.Add(netproto.AppendTokenRequest(nil, 5), false)
	f.Add(netproto.AppendConnect(nil, tok, 5), false)
	f.Add(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 5},
		append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 1)), false)
	f.Add([]byte{0x10, 0, 1, 0, 0, 0, 1, 0x40, 1, 1, 3}, true)
	// 0.6: DDNet's CONNECT and ACCEPT, a vanilla CONNECT, both info requests.
	tok6 := netproto.NewTokenGen(secret, 0).Token6(stranger.Addr())
	f.Add(netproto.AppendConnect6(nil, true), false)
	f.Add(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, tok6, true), false)
	f.Add(netproto.AppendConnect6(nil, false), false)
	f.Add(netproto.AppendConnless6(nil, append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 1)), false)
	f.Add(append([]byte("xe\x01\x02\x00\x00"), append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 1)...), false)

	f.Fuzz(func(t *testing.T, data []byte, fromClient bool) {
		conn := &countConn{sent: map[netip.AddrPort]int{}}
		cfg := config.Default()
		s := newServerInGame(t, cfg, conn, 1)
		s.edge.Budget = edge.NewBudget(10, 10, 10)
		tokens := netproto.NewTokenGen(secret, 0)
		from := stranger
		if fromClient {
			from = s.clients[0].addr
		}
		p := &rxPacket{addr: from, at: time.Now(), cid: -1}
		p.n = copy(p.buf[:], data)
		var out [netproto.MaxPacketSize]byte
		var pass bool
		if p.cid, pass = s.edge.Screen(p.data(), p.addr, tokens, time.Now(), out[:0]); pass {
			s.handlePacket(p)
		}
		s.doTick()
		s.updateConns()
		s.flushAll()
		for _, c := range s.clients {
			_, mapped := s.byAddr[c.addr]
			if c.state == stateEmpty && (mapped || s.edge.Peers.Has(c.addr)) {
				t.Fatalf("slot %d empty but its address is still mapped", c.id)
			}
			if c.state != stateEmpty && (!mapped || !s.edge.Peers.Has(c.addr)) {
				t.Fatalf("slot %d in use but its address %v is not mapped", c.id, c.addr)
			}
		}
		if !fromClient && len(data) > 0 && !netproto.IsConnless(data) {
			// A CONNECT accepts a slot whose ACCEPT (and its resends) may
			// follow; compare only what the datagram itself caused.
			limit := len(data)
			if isVanillaConnect(data) {
				// the one exception: DDNet's anti-spoof reply, bounded
				// per second by the vanilla budgets (edge6.go)
				limit = 4 + len(edge.AppendAntispoof6(nil, tokens.VanillaToken6(stranger.Addr()), true))
			}
			if n := conn.sent[stranger]; n > limit {
				t.Fatalf("%d-byte datagram from a stranger answered with %d bytes", len(data), n)
			}
		}
	})
}
