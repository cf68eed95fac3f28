package server

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/console"
	"twserver/edge"
	"twserver/mapdl"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
)

// rawPeer is a socket on the test server's MemNet that sends and reads raw
// datagrams.
type rawPeer struct {
	t   *testing.T
	mc  *sockio.MemConn
	got chan []byte
}

func newRawPeer(t *testing.T, ts *testServer, addr netip.AddrPort) *rawPeer {
	t.Helper()
	mc, err := ts.mn.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, mc: mc, got: make(chan []byte, 256)}
	go func() {
		var b [RecvBufSize]byte
		for {
			n, _, err := mc.ReadFrom(b[:])
			if err != nil {
				close(p.got)
				return
			}
			select {
			case p.got <- append([]byte(nil), b[:n]...):
			default:
			}
		}
	}()
	t.Cleanup(func() { mc.Close() })
	return p
}

func (p *rawPeer) send(b []byte) { _, _ = p.mc.WriteTo(b, srvAddr) }

// next returns the next datagram within a second, or nil.
func (p *rawPeer) next() []byte {
	select {
	case b := <-p.got:
		return b
	case <-time.After(time.Second):
		return nil
	}
}

// nothing checks that no datagram arrives within 100 ms.
func (p *rawPeer) nothing(what string) {
	p.t.Helper()
	select {
	case b := <-p.got:
		p.t.Errorf("%s: got % x", what, b)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestDDNetHandshake: the stateless CONNECT+TKEN reply carries the token
// of the sender's IP; an ACCEPT with a token the sender could only guess
// (or the token of another IP) opens no slot, the right one does, and the
// slot speaks DDNet's dialect.
func TestDDNetHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		p := newRawPeer(t, ts, cl1Addr)
		p.send(netproto.AppendConnect6(nil, true))
		reply := p.next()
		h, payload, err := netproto.ParsePacket6(reply)
		if err != nil || h.Flags != netproto.Flag6Control || len(reply) != 12 {
			t.Fatalf("reply % x: %v", reply, err)
		}
		ctl, err := netproto.ParseControl6(payload)
		if err != nil || ctl.Type != netproto.Ctrl6ConnectAccept || !ctl.TKEN {
			t.Fatalf("reply %+v %v", ctl, err)
		}
		synctest.Wait()
		if ts.numClients() != 0 {
			t.Fatal("CONNECT took a slot")
		}
		// A spoofer on another address never saw the reply: its guesses,
		// and the token replayed from another IP, take no slot.
		spoof := newRawPeer(t, ts, cl2Addr)
		for _, tok := range []uint32{ctl.Token ^ 1, 1, 0xffffffff, ctl.Token} {
			spoof.send(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, tok, true))
		}
		spoof.nothing("spoofed accepts")
		synctest.Wait()
		if ts.numClients() != 0 || ts.stats.BadToken.Load() < 4 {
			t.Fatalf("spoofed ACCEPTs: %d clients, counters %v", ts.numClients(), ts.Counters())
		}
		p.send(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, ctl.Token, true))
		synctest.Wait()
		if ts.numClients() != 1 || ts.clients[0].conn.Dialect() != netproto.DialectDDNet || ts.clients[0].conn.SecurityToken() != ctl.Token {
			t.Fatalf("after the ACCEPT: %d clients", ts.numClients())
		}
	})
}

// TestDDNetHandshakeAcrossRotation: a DDNet client that asked twice and
// whose two CONNECTACCEPTs straddle a rotation of the reader's secret
// answers with the token of the first (it takes the token only while it
// is connecting), which opens its slot under that token.
func TestDDNetHandshakeAcrossRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		p := newRawPeer(t, ts, cl1Addr)
		token := func() uint32 {
			t.Helper()
			p.send(netproto.AppendConnect6(nil, true))
			_, payload, err := netproto.ParsePacket6(p.next())
			ctl, err2 := netproto.ParseControl6(payload)
			if err != nil || err2 != nil || ctl.Type != netproto.Ctrl6ConnectAccept || !ctl.TKEN {
				t.Fatalf("reply %+v: %v, %v", ctl, err, err2)
			}
			return ctl.Token
		}
		first := token()
		time.Sleep(netproto.SeedRotation + time.Second)
		if second := token(); second == first {
			t.Fatalf("the token %08x did not change over a rotation of the secret", first)
		}
		p.send(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, first, true))
		synctest.Wait()
		if ts.numClients() != 1 || ts.clients[0].conn.SecurityToken() != first {
			t.Fatalf("after the ACCEPT with the first token: %d clients, counters %v", ts.numClients(), ts.Counters())
		}
	})
}

// TestVanillaAntispoof: a vanilla 0.6 CONNECT gets CONNECTACCEPT and the
// stateless anti-spoof packet (six vital chunks: the tiny map, CON_READY,
// three SNAPEMPTY at the IP's token); floods of CONNECTs and INPUTs with
// guessed ticks from spoofed sources take no slot; the INPUT that
// acknowledges the token opens a vanilla slot that goes on to the real map.
func TestVanillaAntispoof(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		p := newRawPeer(t, ts, cl1Addr)
		p.send(netproto.AppendConnect6(nil, false))
		if b := p.next(); string(b) != "\x10\x00\x00\x02" {
			t.Fatalf("connectaccept % x", b)
		}
		b := p.next()
		h, payload, err := netproto.ParsePacket6(b)
		if err != nil || h.NumChunks != edge.AntispoofSeq {
			t.Fatalf("anti-spoof packet % x: %v", b, err)
		}
		payload, _ = netproto.DecodePayload6(nil, h, payload)
		var r netproto.ChunkReader
		r.Reset6(payload, int(h.NumChunks))
		var ids []int32
		var tick int32
		for ch, ok := r.Next(); ok; ch, ok = r.Next() {
			id, _, n, _ := netproto.ParseMsgHeader(ch.Data)
			ids = append(ids, id)
			if id == netproto.Netmsg6SnapEmpty {
				var u netproto.Unpacker
				u.Reset(ch.Data[n:])
				tick = u.GetInt()
			}
			if id == netproto.Netmsg6MapChange {
				var u netproto.Unpacker
				u.Reset(ch.Data[n:])
				var mc netproto.Msg6MapChange
				if mc.Unpack(&u) != nil || mc.Name != edge.AntispoofMap().Name || int(mc.Size) != edge.AntispoofMap().Size {
					t.Errorf("map change %+v", mc)
				}
			}
		}
		want := []int32{netproto.Netmsg6MapChange, netproto.Netmsg6MapData, netproto.Netmsg6ConReady,
			netproto.Netmsg6SnapEmpty, netproto.Netmsg6SnapEmpty, netproto.Netmsg6SnapEmpty}
		if fmt.Sprint(ids) != fmt.Sprint(want) || tick <= 0 || len(b) > netproto.MaxPacketSize {
			t.Fatalf("anti-spoof messages %v tick %d (%d bytes)", ids, tick, len(b))
		}
		input := func(ack int32) []byte {
			var pk netproto.Packer
			pk.AddMsgHeader(netproto.Netmsg6Input, true)
			pk.AddInt(ack)
			pk.AddInt(ack + 1)
			pk.AddInt(40)
			for range 10 {
				pk.AddInt(0)
			}
			ch := netproto.AppendChunkHeader6(nil, netproto.ChunkHeader{Size: pk.Len()})
			return netproto.AppendPacket6Compressed(nil, netproto.PacketHeader6{NumChunks: 1, Ack: edge.AntispoofSeq}, append(ch, pk.Bytes()...))
		}
		// Spoofed sources: CONNECTs and INPUTs with guessed ticks.
		spoof := newRawPeer(t, ts, cl2Addr)
		for i := range int32(100) {
			spoof.send(netproto.AppendConnect6(nil, false))
			spoof.send(input(i))
			spoof.send(input(tick + i + 1))
		}
		synctest.Wait()
		if ts.numClients() != 0 {
			t.Fatalf("spoofed vanilla traffic took %d slots", ts.numClients())
		}
		p.send(input(tick))
		synctest.Wait()
		c := ts.clients[0]
		if ts.numClients() != 1 || c.conn.Dialect() != netproto.Dialect6 || c.state != session.Connecting {
			t.Fatalf("after the INPUT: %d clients, dialect %v state %v", ts.numClients(), c.conn.Dialect(), c.state)
		}
		if m := p.next(); m == nil {
			t.Fatal("no real MAP_CHANGE after the handshake")
		}
	})
}

// TestInfo6: gie3 with the vanilla header is answered with inf3 (numbers
// as decimal strings, the request's token byte), with DDNet's "xe" header
// with iext and the 24-bit token.
func TestInfo6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.Name = "six test" })
		p := newRawPeer(t, ts, cl1Addr)
		p.send(netproto.AppendConnless6(nil, append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 7)))
		b := p.next()
		want := "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffinf3" + "7\x00" + edge.GameVersion6 + "\x00six test\x00" + ts.curMap.Name + "\x00DM\x00" + "0\x000\x00"
		if !bytes.HasPrefix(b, []byte(want)) {
			t.Fatalf("inf3 = %q, want prefix %q", b, want)
		}
		fields := strings.Split(string(b[14:]), "\x00")
		if len(fields) != 11 || fields[7] != "8" || fields[9] != "16" { // max players and clients of the default config
			t.Fatalf("inf3 fields %q", fields)
		}
		ext := append([]byte("xe\x12\x34\x00\x00"), []byte(edge.MagicGetInfo)...)
		p.send(append(ext, 9))
		b = p.next()
		want = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffiext" + "1192969\x00" // 9 | 0x1234<<8
		if !bytes.HasPrefix(b, []byte(want)) {
			t.Fatalf("iext = %q", b)
		}
		// Malformed: too short, no token byte.
		p.send(netproto.AppendConnless6(nil, []byte(edge.MagicGetInfo)))
		p.nothing("gie3 without token")
	})
}

// conn6Peer is a DDNet-dialect client made of a netproto.Conn on the test
// server's MemNet: it sends system messages and collects what arrives.
type conn6Peer struct {
	*rawPeer
	conn netproto.Conn
	got  [][]byte // message chunks received, header included
}

func newConn6Peer(t *testing.T, ts *testServer) *conn6Peer {
	c := &conn6Peer{rawPeer: newRawPeer(t, ts, cl1Addr)}
	c.conn.Connect6(0, true)
	c.pump()
	if c.conn.State() != netproto.StateOnline || c.conn.Dialect() != netproto.DialectDDNet {
		t.Fatalf("not online: %v %v", c.conn.State(), c.conn.Dialect())
	}
	return c
}

// pump sends what the Conn has and feeds it what arrives within a second
// (the server flushes unflushed messages after 500 ms).
func (c *conn6Peer) pump() {
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		for p, ok := c.conn.Poll(nil); ok; p, ok = c.conn.Poll(nil) {
			c.send(p)
		}
		select {
		case b := <-c.got6():
			if c.conn.FeedDatagram(0, b, nil) == nil {
				for ch, ok := c.conn.Recv(); ok; ch, ok = c.conn.Recv() {
					c.got = append(c.got, append([]byte(nil), ch.Data...))
				}
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (c *conn6Peer) got6() chan []byte { return c.rawPeer.got }

// sys sends a vital system message.
func (c *conn6Peer) sys(id int32, fill func(p *netproto.Packer)) {
	var p netproto.Packer
	p.AddMsgHeader(id, true)
	if fill != nil {
		fill(&p)
	}
	c.conn.Send(0, p.Bytes(), netproto.SendVital|netproto.SendFlush)
	c.pump()
}

// ids returns the system message ids received (game messages as -id).
func (c *conn6Peer) ids() []int32 {
	var out []int32
	for _, m := range c.got {
		id, sys, _, _ := netproto.ParseMsgHeader(m)
		if !sys {
			id = -id
		}
		out = append(out, id)
	}
	return out
}

// TestSystem6: the 0.6 system layer: CLIENTVER and what-is (answered
// i-dont-know), INFO (map-details then MAP_CHANGE), a map chunk on
// request, PING, and RCON with the 0.6 auth status and command list.
func TestSystem6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.RconPassword = "pw" })
		c := newConn6Peer(t, ts)
		cv := netproto.DDNetUUID("clientver@ddnet.tw")
		c.sys(netproto.Netmsg6Ex, func(p *netproto.Packer) {
			p.AddRaw(cv[:])
			p.AddRaw(make([]byte, 16))
			p.AddInt(16040)
			p.AddString("DDNet 16.4")
		})
		if ts.clients[0].ddnetVersion != 16040 {
			t.Errorf("clientver not kept: %d", ts.clients[0].ddnetVersion)
		}
		wi := netproto.DDNetUUID("what-is@ddnet.tw")
		c.sys(netproto.Netmsg6Ex, func(p *netproto.Packer) { p.AddRaw(wi[:]); p.AddRaw(cv[:]) })
		c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion6); p.AddString("") })
		c.sys(netproto.Netmsg6RequestMapData, func(p *netproto.Packer) { p.AddInt(0) })
		c.sys(netproto.Netmsg6Ping, nil)
		c.sys(netproto.Netmsg6RconAuth, func(p *netproto.Packer) { p.AddString(""); p.AddString("pw"); p.AddInt(1) })
		c.sys(netproto.Netmsg6RconCmd, func(p *netproto.Packer) { p.AddString("status") })
		ids := fmt.Sprint(c.ids())
		// EX (i-dont-know), EX (map-details), MAP_CHANGE, MAP_DATA, PING_REPLY, RCON_AUTH_STATUS, ...
		want := fmt.Sprintf("[%d %d %d %d %d %d", netproto.Netmsg6Ex, netproto.Netmsg6Ex, netproto.Netmsg6MapChange,
			netproto.Netmsg6MapData, netproto.Netmsg6PingReply, netproto.Netmsg6RconAuthStatus)
		if !strings.HasPrefix(ids, want) {
			t.Fatalf("messages %s, want prefix %s", ids, want)
		}
		var lines, cmds int
		for _, m := range c.got {
			switch id, _, _, _ := netproto.ParseMsgHeader(m); id {
			case netproto.Netmsg6RconLine:
				lines++
			case netproto.Netmsg6RconCmdAdd:
				cmds++
			}
		}
		if lines < 2 || cmds != len(console.RconCommands()) {
			t.Errorf("%d rcon lines, %d commands (want %d): %s", lines, cmds, len(console.RconCommands()), ids)
		}
		var u netproto.Unpacker
		u.Reset(c.got[5][1:])
		if a, l := u.GetInt(), u.GetInt(); a != 1 || l != 1 {
			t.Errorf("RCON_AUTH_STATUS %d %d", a, l)
		}
		u.Reset(c.got[3][1:])
		var md netproto.Msg6MapData
		if err := md.Unpack(&u); err != nil || md.Chunk != 0 || len(md.Data) != mapdl.ChunkSize6 || md.CRC != ts.map6().CRC {
			t.Errorf("MAP_DATA %+v %v", md, err)
		}
	})
}

// TestRefusals6: a 0.6 client with the 0.7 version string, or while
// server.accept_06 is off, is refused with the reference texts over 0.6.
func TestRefusals6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		c := newConn6Peer(t, ts)
		c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion); p.AddString("") })
		if c.conn.State() != netproto.StateError || c.conn.Reason() != "Wrong version. Server is running '"+session.NetVersion6+"' and client '"+session.NetVersion+"'" {
			t.Errorf("state %v reason %q", c.conn.State(), c.conn.Reason())
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.Accept06 = false })
		p := newRawPeer(t, ts, cl1Addr)
		var c netproto.Conn
		c.Connect6(0, true)
		for range 3 {
			for b, ok := c.Poll(nil); ok; b, ok = c.Poll(nil) {
				p.send(b)
			}
			if b := p.next(); b != nil {
				c.FeedDatagram(0, b, nil)
			}
		}
		if c.State() != netproto.StateError || c.Reason() != "0.6 connections are not accepted at this time" {
			t.Errorf("state %v reason %q", c.State(), c.Reason())
		}
		if ts.numClients() != 0 {
			t.Error("a slot was taken")
		}
	})
}

// TestRejoin6: a DDNet client reconnecting from the address of its slot
// (new CONNECT, then ACCEPT with the token) gets a new connection and goes
// through INFO and the map again; a repeated ACCEPT without a new CONNECT
// changes nothing.
func TestRejoin6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		c := newConn6Peer(t, ts)
		c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion6); p.AddString("") })
		if ts.clients[0].state != session.Connecting {
			t.Fatalf("state %v", ts.clients[0].state)
		}
		sec := ts.clients[0].conn.SecurityToken()
		c.send(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, sec, true)) // a stray duplicate
		synctest.Wait()
		if ts.clients[0].state != session.Connecting || ts.numClients() != 1 {
			t.Fatalf("a stray ACCEPT reset the slot: %v", ts.clients[0].state)
		}
		// The client starts over from the same socket.
		c.got = nil
		c.conn.Connect6(0, true)
		c.pump()
		if c.conn.State() != netproto.StateOnline || c.conn.SecurityToken() != sec {
			t.Fatalf("reconnect: %v token %x", c.conn.State(), c.conn.SecurityToken())
		}
		synctest.Wait()
		if ts.numClients() != 1 || ts.clients[0].state != session.Auth {
			t.Fatalf("after the rejoin: %d clients, state %v", ts.numClients(), ts.clients[0].state)
		}
		c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion6); p.AddString("") })
		if ids := fmt.Sprint(c.ids()); !strings.Contains(ids, fmt.Sprint(netproto.Netmsg6MapChange)) {
			t.Fatalf("no MAP_CHANGE after the rejoin: %s", ids)
		}
	})
}

// TestVanillaPasswordAtRunTime: setting a server password on the console
// stops the vanilla handshake (it would skip the password check) at once;
// DDNet's is unaffected.
func TestVanillaPasswordAtRunTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		p := newRawPeer(t, ts, cl1Addr)
		if _, err := io.WriteString(ts.cons, "password secret\n"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		p.send(netproto.AppendConnect6(nil, false))
		p.nothing("vanilla CONNECT with a password set")
		p.send(netproto.AppendConnect6(nil, true))
		if b := p.next(); len(b) != 12 {
			t.Fatalf("DDNet CONNECT not answered: % x", b)
		}
	})
}

// TestDDNetDataBehindAccept: a DDNet client sends its INFO right behind its
// ACCEPT, before the loop has opened the slot; the server takes it at once
// (it answers with MAP_CHANGE without the client's resend a second later).
func TestDDNetDataBehindAccept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		c := &conn6Peer{rawPeer: newRawPeer(t, ts, cl1Addr)}
		flush := func() {
			for p, ok := c.conn.Poll(nil); ok; p, ok = c.conn.Poll(nil) {
				c.send(p)
			}
		}
		c.conn.Connect6(0, true)
		flush()
		if err := c.conn.FeedDatagram(0, c.next(), nil); err != nil || c.conn.State() != netproto.StateOnline {
			t.Fatalf("no CONNECTACCEPT: %v %v", err, c.conn.State())
		}
		var p netproto.Packer
		p.AddMsgHeader(netproto.Netmsg6Info, true)
		p.AddString(session.NetVersion6)
		p.AddString("")
		if err := c.conn.Send(0, p.Bytes(), netproto.SendVital|netproto.SendFlush); err != nil {
			t.Fatal(err)
		}
		flush() // the ACCEPT and the INFO, back to back
		for end := time.After(200 * time.Millisecond); ; {
			select {
			case b := <-c.got6():
				if c.conn.FeedDatagram(0, b, nil) == nil {
					for ch, ok := c.conn.Recv(); ok; ch, ok = c.conn.Recv() {
						if id, sys, _, _ := netproto.ParseMsgHeader(ch.Data); sys && id == netproto.Netmsg6MapChange {
							return
						}
					}
				}
			case <-end:
				t.Fatalf("no MAP_CHANGE within 200 ms of the INFO (counters %v)", ts.Counters())
			}
		}
	})
}
