package server

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/netproto"
)

// rawPeer is a socket on the test server's MemNet that sends and reads raw
// datagrams.
type rawPeer struct {
	t   *testing.T
	mc  *MemConn
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

// TestVanillaConnectFlood: vanilla 0.6 CONNECTs (no token to check a
// reply against) from many spoofed sources take no slot and get no reply.
func TestVanillaConnectFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		peers := make([]*rawPeer, 8)
		for i := range peers {
			peers[i] = newRawPeer(t, ts, netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(i + 1)}), 40000))
			for range 50 {
				peers[i].send(netproto.AppendConnect6(nil, false))
				peers[i].send(netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, 0, false))
			}
		}
		for _, p := range peers {
			p.nothing("vanilla connect")
		}
		synctest.Wait()
		if ts.numClients() != 0 {
			t.Fatalf("%d slots taken", ts.numClients())
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
		p.send(netproto.AppendConnless6(nil, append(append([]byte(nil), magicGetInfo...), 7)))
		b := p.next()
		want := "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffinf3" + "7\x00" + GameVersion6 + "\x00six test\x00" + ts.curMap.Name + "\x00DM\x00" + "0\x000\x00"
		if !bytes.HasPrefix(b, []byte(want)) {
			t.Fatalf("inf3 = %q, want prefix %q", b, want)
		}
		fields := strings.Split(string(b[14:]), "\x00")
		if len(fields) != 11 || fields[7] != "8" || fields[9] != "8" { // max players and clients of the default config
			t.Fatalf("inf3 fields %q", fields)
		}
		ext := append([]byte("xe\x12\x34\x00\x00"), magicGetInfo...)
		p.send(append(ext, 9))
		b = p.next()
		want = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffiext" + "1192969\x00" // 9 | 0x1234<<8
		if !bytes.HasPrefix(b, []byte(want)) {
			t.Fatalf("iext = %q", b)
		}
		// Malformed: too short, no token byte.
		p.send(netproto.AppendConnless6(nil, magicGetInfo))
		p.nothing("gie3 without token")
	})
}

// TestInfo6Budget: beyond Info6FullPerSecond a second, 0.6 replies leave
// out the client list, and beyond InfoRepliesPerSecond nothing is sent:
// what a spoofed flood can send to a victim is bounded.
func TestInfo6Budget(t *testing.T) {
	dc := &discardConn{}
	s, err := New(Options{Config: config.Default(), Conn: dc, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.info.Store(&infoSnapshot{six: info6{vanilla: bytes.Repeat([]byte("x"), 1000), vanillaShort: []byte("short")}})
	req := netproto.AppendConnless6(nil, append(append([]byte(nil), magicGetInfo...), 1))
	now := time.Now()
	var out [netproto.MaxPacketSize]byte
	for range 2 * InfoRepliesPerSecond {
		s.screenConnless6(cl1Addr, req, now, out[:0])
	}
	if got := s.stats.InfoReplies.Load(); got != InfoRepliesPerSecond {
		t.Errorf("%d replies, want %d", got, InfoRepliesPerSecond)
	}
	if dc.bytes > Info6FullPerSecond*1100+(InfoRepliesPerSecond-Info6FullPerSecond)*40 {
		t.Errorf("%d bytes sent for %d requests of %d bytes", dc.bytes, 2*InfoRepliesPerSecond, len(req))
	}
}
