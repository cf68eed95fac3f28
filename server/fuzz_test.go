package server

import (
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
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
		p.AddString(NetVersion)
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
			s.peers.add(c.addr, c.id)
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
			if c.state == stateEmpty && s.peers.has(c.addr) {
				t.Fatalf("slot %d empty but its address is still a peer", c.id)
			}
		}
	})
}
