package netproto

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestConn6HandshakeBytes checks the DDNet handshake byte for byte (spec
// B2.2, appendix C) and that every later packet carries the token.
func TestConn6HandshakeBytes(t *testing.T) {
	l := newLink6(t)
	l.connect6(true)
	tok := l.gen.Token6(testClientIP)
	tb := AppendToken6(nil, tok)
	want := []string{
		"10 00 00 01 54 4b 45 4e ff ff ff ff",
		"10 00 00 03" + fmt.Sprintf(" % x", tb),
		"00 00 01 40 04 01 03 30 00 00" + fmt.Sprintf(" % x", tb), // vital seq 1, size 4, raw (compression is not smaller)
	}
	if len(l.cliSent) != len(want) {
		t.Fatalf("client sent % x", l.cliSent)
	}
	for i, w := range want {
		if !bytes.Equal(l.cliSent[i], unhex(t, w)) {
			t.Fatalf("packet %d = % x, want %s", i, l.cliSent[i], w)
		}
	}
	if got := l.srvSent[0]; !bytes.Equal(got, unhex(t, "10 00 00 02 54 4b 45 4e"+fmt.Sprintf(" % x", tb))) {
		t.Fatalf("connectaccept % x", got)
	}
	if l.cli.Dialect() != DialectDDNet || l.cli.SecurityToken() != tok || l.srv.SecurityToken() != tok {
		t.Fatalf("dialect %v tokens %x %x", l.cli.Dialect(), l.cli.SecurityToken(), l.srv.SecurityToken())
	}
	// The server's KEEPALIVE after a second acks the message and carries the token.
	l.srvSent = nil
	l.step(KeepAliveInterval + time.Millisecond)
	found := false
	for _, p := range l.srvSent {
		if bytes.Equal(p, append(unhex(t, "10 01 00 00"), tb...)) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no keepalive with ack 1 and token: % x", l.srvSent)
	}
}

// TestConn6Vanilla runs the vanilla handshake: no token anywhere, the
// server repeats CONNECTACCEPT while pending and goes online on the first
// data packet.
func TestConn6Vanilla(t *testing.T) {
	l := newLink6(t)
	l.connect6(false)
	if l.cli.Dialect() != Dialect6 || l.srv.Dialect() != Dialect6 {
		t.Fatalf("dialects %v %v", l.cli.Dialect(), l.srv.Dialect())
	}
	if !bytes.Equal(l.cliSent[0], unhex(t, "10 00 00 01")) || !bytes.Equal(l.srvSent[0], unhex(t, "10 00 00 02")) ||
		!bytes.Equal(l.cliSent[1], unhex(t, "10 00 00 03")) {
		t.Fatalf("handshake % x / % x", l.cliSent, l.srvSent)
	}
	// A pending vanilla slot repeats CONNECTACCEPT.
	var srv Conn
	srv.Accept6(0, Dialect6, 0)
	srv.Poll(nil)
	srv.Update(HandshakeResendInterval + time.Millisecond)
	if p, ok := srv.Poll(nil); !ok || !bytes.Equal(p, unhex(t, "10 00 00 02")) {
		t.Fatalf("no repeated connectaccept: % x", p)
	}
}

// TestConn6DDNetClientOnVanillaServer: a DDNet client given a plain
// CONNECTACCEPT falls back to the vanilla dialect (no token appended).
func TestConn6DDNetClientOnVanillaServer(t *testing.T) {
	var c Conn
	c.Connect6(0, true)
	c.Poll(nil)
	if err := c.FeedDatagram(0, unhex(t, "10 00 00 02"), nil); err != nil {
		t.Fatal(err)
	}
	if c.State() != StateOnline || c.Dialect() != Dialect6 {
		t.Fatalf("%v %v", c.State(), c.Dialect())
	}
	if p, _ := c.Poll(nil); !bytes.Equal(p, unhex(t, "10 00 00 03")) {
		t.Fatalf("accept % x", p)
	}
}

// TestConn6Reliable sends 2000 vital messages of varied sizes both ways
// over 25% loss; compression and the token are exercised on every packet.
func TestConn6Reliable(t *testing.T) {
	for _, tken := range []bool{true, false} {
		t.Run(fmt.Sprint(tken), func(t *testing.T) {
			l := newLink6(t)
			l.connect6(tken)
			rng := rand.New(rand.NewPCG(3, 4))
			drop := func([]byte) bool { return rng.IntN(100) < 25 }
			l.dropCS, l.dropSC = drop, drop
			const total = 2000
			msg := func(i int) []byte {
				m := bytes.Repeat([]byte{byte(i)}, 1+i%700)
				m[0] = byte(i >> 8)
				return m
			}
			sent := 0
			for step := 0; step < 20000 && (len(l.srvGot) < total || len(l.cliGot) < total); step++ {
				for range 3 {
					if sent < total && l.cli.Unacked() < 30 && l.srv.Unacked() < 30 {
						if l.cli.Send(l.now, msg(sent), SendVital) != nil || l.srv.Send(l.now, msg(sent), SendVital) != nil {
							t.Fatal("send failed")
						}
						sent++
					}
				}
				l.step(20 * time.Millisecond)
				if l.cli.State() != StateOnline || l.srv.State() != StateOnline {
					t.Fatalf("step %d: %v %v (%s %s)", step, l.cli.State(), l.srv.State(), l.cli.Reason(), l.srv.Reason())
				}
			}
			for _, got := range [][][]byte{l.srvGot, l.cliGot} {
				if len(got) != total {
					t.Fatalf("got %d of %d", len(got), total)
				}
				for i, m := range got {
					if !bytes.Equal(m, msg(i)) {
						t.Fatalf("message %d differs", i)
					}
				}
			}
		})
	}
}

// TestConn6Rejects covers the malformed and foreign 0.6 cases a
// connection must drop without effect.
func TestConn6Rejects(t *testing.T) {
	const tok = 0x12345678
	newSrv := func() *Conn {
		c := new(Conn)
		c.Accept6(0, DialectDDNet, tok)
		return c
	}
	tb := AppendToken6(nil, tok)
	for _, tc := range []struct {
		name string
		pkt  []byte
		err  error
	}{
		{"wrong token", unhex(t, "00 00 00 01 02 03 04"), ErrBadToken},
		{"no token", unhex(t, "00 00 00"), ErrBadToken},
		{"short header", unhex(t, "00 00"), ErrTruncated},
		{"0.7 packet on 0.6 slot", AppendKeepAlive(nil, 0, 1), ErrBadToken},
		{"ack ahead", append(unhex(t, "00 05 00"), tb...), ErrBadAck},
		{"bad huffman", unhex(t, "80 00 01 ff ff ff"), ErrBadHuffman},
		{"unknown control", append(unhex(t, "10 00 00 09"), tb...), ErrBadControl},
		{"empty control", append(unhex(t, "10 00 00"), tb...), ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSrv()
			err := c.FeedDatagram(time.Millisecond, tc.pkt, make([]byte, 0, MaxPayload6))
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if c.State() != StateOnline || c.LastRecv() != 0 {
				t.Fatalf("state %v lastRecv %v", c.State(), c.LastRecv())
			}
		})
	}
	// A chunk claiming more bytes than the payload holds ends the packet.
	c := newSrv()
	if err := c.FeedDatagram(0, append(unhex(t, "00 00 01 41 00 01 aa"), tb...), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Recv(); ok || c.rd.Err() != ErrBadChunk {
		t.Fatalf("chunk accepted, err %v", c.rd.Err())
	}
	// CLOSE with the token: the reason is read up to its NUL.
	c = newSrv()
	if err := c.FeedDatagram(0, append(append(unhex(t, "10 00 00 04"), "bye\x00"...), tb...), nil); err != nil {
		t.Fatal(err)
	}
	if c.State() != StateError || c.Reason() != "bye" || !c.ClosedByPeer() {
		t.Fatalf("%v %q", c.State(), c.Reason())
	}
	// 0.6 messages are at most 1023 bytes.
	c = newSrv()
	if err := c.Send(0, make([]byte, MaxChunkSize6+1), SendVital); !errors.Is(err, ErrChunkTooLarge) {
		t.Fatalf("oversized message: %v", err)
	}
	// A 0.7 connection rejects 0.6 packets.
	var c7 Conn
	c7.Accept(0, 1, 2)
	if err := c7.Feed6(0, PacketHeader6{}, tb); !errors.Is(err, ErrBadToken) {
		t.Fatalf("0.6 packet on 0.7 conn: %v", err)
	}
}

func TestParseControl6(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Control6
		err  error
	}{
		{"01 54 4b 45 4e ff ff ff ff", Control6{Type: Ctrl6Connect, TKEN: true, Token: Token6Unknown}, nil},
		{"01", Control6{Type: Ctrl6Connect}, nil},
		{"01 54 4b 45 4e ff ff ff", Control6{Type: Ctrl6Connect}, nil}, // magic without a whole token
		{"01 54 4b 45 58 ff ff ff ff", Control6{Type: Ctrl6Connect}, nil},
		{"02 54 4b 45 4e 78 56 34 12", Control6{Type: Ctrl6ConnectAccept, TKEN: true, Token: 0x12345678}, nil},
		{"03 78 56 34 12", Control6{Type: Ctrl6Accept, HasToken: true, Token: 0x12345678}, nil},
		{"03 78 56 34", Control6{Type: Ctrl6Accept}, nil},
		{"00", Control6{Type: Ctrl6KeepAlive}, nil},
		{"05", Control6{Type: 5}, ErrBadControl},
		{"", Control6{}, ErrTruncated},
	} {
		got, err := ParseControl6(unhex(t, tc.in))
		if !errors.Is(err, tc.err) || got.Type != tc.want.Type || got.TKEN != tc.want.TKEN || got.Token != tc.want.Token || got.HasToken != tc.want.HasToken {
			t.Errorf("%q: %+v %v, want %+v %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	c, _ := ParseControl6([]byte("\x04full\x00\x01\x02\x03\x04"))
	if string(c.Reason) != "full" {
		t.Fatalf("reason %q", c.Reason)
	}
	if got := AppendClose6(nil, 3, "This server is full", 0, false); !bytes.Equal(got, append(append(unhex(t, "10 03 00 04"), "This server is full"...), 0)) {
		t.Fatalf("close % x", got)
	}
}

func TestIs7Packet(t *testing.T) {
	for _, tc := range []struct {
		pkt      []byte
		is7, cl7 bool
	}{
		{AppendTokenRequest(nil, 1), true, false},
		{AppendConnect6(nil, true), false, false},
		{AppendConnless(nil, ConnlessHeader{}, nil), false, true},
		{AppendConnless6(nil, nil), false, false},
		{[]byte("xe\x00\x01\x00\x00gie3"), false, false},
	} {
		if Is7Packet(tc.pkt) != tc.is7 && !IsConnless(tc.pkt) || IsConnless(tc.pkt) && Is7Connless(tc.pkt) != tc.cl7 {
			t.Errorf("% x: is7 %v connless7 %v", tc.pkt[:3], Is7Packet(tc.pkt), Is7Connless(tc.pkt))
		}
	}
}

// FuzzConn6 drives a DDNet server Conn with arbitrary datagrams and
// operations: it never panics, every datagram it sends parses as 0.6 and
// ends with the token, and its bounds hold.
func FuzzConn6(f *testing.F) {
	const tok = 0x0a0b0c0d
	tb := AppendToken6(nil, tok)
	f.Add(append(unhex(f, "00 00 01 40 04 01 03 30 00 00"), tb...), []byte{0, 2, 3, 0, 4})
	f.Add(append(unhex(f, "10 00 00 04 61 00"), tb...), []byte{0, 1})
	f.Fuzz(func(t *testing.T, pkt, ops []byte) {
		var c Conn
		c.Accept6(0, DialectDDNet, tok)
		now := time.Duration(0)
		scratch := make([]byte, 0, MaxPayload6)
		buf := make([]byte, 0, MaxPacketSize)
		for _, op := range ops {
			switch op % 5 {
			case 0:
				if c.FeedDatagram(now, pkt, scratch) == nil {
					for ch, ok := c.Recv(); ok; ch, ok = c.Recv() {
						if len(ch.Data) != ch.Size || ch.Size > MaxChunkSize6 {
							t.Fatal("chunk out of bounds")
						}
					}
				}
			case 1:
				c.Send(now, pkt[:min(len(pkt), int(op)*5)], SendFlags(op>>6))
			case 2:
				now += time.Duration(op) * 10 * time.Millisecond
				c.Update(now)
			case 3:
				c.Flush(now)
			case 4:
				c.Disconnect(now, "x")
			}
			if c.Unacked() > MaxResendChunks || c.Pending() > OutboxPackets {
				t.Fatalf("bounds: %d %d", c.Unacked(), c.Pending())
			}
			for p, ok := c.Poll(buf[:0]); ok; p, ok = c.Poll(buf[:0]) {
				h, pl, err := ParsePacket6(p)
				if err != nil || Is7Packet(p) {
					t.Fatalf("sent unparsable packet % x: %v", p, err)
				}
				raw, err := DecodePayload6(nil, h, pl)
				if err != nil {
					t.Fatalf("sent undecodable payload: %v", err)
				}
				if _, err := StripToken6(raw, tok); err != nil {
					t.Fatalf("sent without token: % x", raw)
				}
			}
		}
	})
}

// FuzzControl6 parses arbitrary 0.6 control payloads and checks that the
// handshake builders round-trip.
func FuzzControl6(f *testing.F) {
	f.Add(unhex(f, "01 54 4b 45 4e ff ff ff ff"))
	f.Add(unhex(f, "03 01 02 03 04"))
	f.Add([]byte("\x04reason\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseControl6(b)
		if err != nil {
			return
		}
		if len(c.Reason) > len(b) {
			t.Fatal("reason out of bounds")
		}
		if c.TKEN {
			re := AppendConnectAccept6(nil, c.Token, true)
			back, err := ParseControl6(re[PacketHeaderSize6:])
			if err != nil || !back.TKEN || back.Token != c.Token {
				t.Fatalf("round trip %+v", back)
			}
		}
	})
}

// TestConn6Capture replays the real DDNet 16.4 session: the client's
// datagrams fed to a server Conn and the server's to a client Conn (after
// Connect6) are all accepted, and the client's first messages are DDNet's
// CLIENTVER (a system EX message) and INFO.
func TestConn6Capture(t *testing.T) {
	pkts := loadCapture(t, "sessionddnet.pcap")
	var srv, cli Conn
	cli.Connect6(0, true)
	cli.Poll(nil)
	srvPort := uint16(8304)
	var first []int32
	scratch := make([]byte, 0, MaxPayload6)
	accepted, fed := 0, 0
	for i, p := range pkts {
		if IsConnless(p.data) {
			continue
		}
		now := time.Duration(i) * time.Millisecond
		if p.dst.Port() == srvPort {
			h, payload, err := ParsePacket6(p.data)
			if err != nil {
				t.Fatal(err)
			}
			if srv.State() == StateOffline {
				ctl, err := ParseControl6(payload)
				if err == nil && h.Flags&Flag6Control != 0 && ctl.Type == Ctrl6Accept && ctl.HasToken {
					srv.Accept6(now, DialectDDNet, ctl.Token)
				}
				continue
			}
			fed++
			// This Conn did not send the real server's vital chunks: let
			// it have sent as many as the client acknowledges.
			if h.Ack > srv.seq {
				srv.seq = h.Ack
			}
			if err := srv.FeedDatagram(now, p.data, scratch); err != nil {
				t.Fatalf("client packet %d: %v", i, err)
			}
			accepted++
			for ch, ok := srv.Recv(); ok; ch, ok = srv.Recv() {
				id, sys, _, err := ParseMsgHeader(ch.Data)
				if err != nil {
					t.Fatalf("packet %d: %v", i, err)
				}
				if sys && len(first) < 2 {
					first = append(first, id)
				}
			}
			continue
		}
		if h, _, err := ParsePacket6(p.data); err == nil && h.Ack > cli.seq {
			cli.seq = h.Ack
		}
		if err := cli.FeedDatagram(now, p.data, scratch); err != nil {
			t.Fatalf("server packet %d: %v", i, err)
		}
		for _, ok := cli.Recv(); ok; _, ok = cli.Recv() {
		}
	}
	if accepted < 100 || accepted != fed {
		t.Fatalf("server conn accepted %d of %d client packets", accepted, fed)
	}
	if len(first) != 2 || first[0] != Netmsg6Ex || first[1] != Netmsg6Info {
		t.Fatalf("first system messages %v", first)
	}
	if cli.Dialect() != DialectDDNet || cli.SecurityToken() != srv.SecurityToken() || cli.State() == StateError {
		t.Fatalf("client %v %x/%x %v", cli.Dialect(), cli.SecurityToken(), srv.SecurityToken(), cli.State())
	}
}

// TestConn6Allocs: a DDNet connection's steady state (send, flush, poll,
// feed and receive) allocates nothing.
func TestConn6Allocs(t *testing.T) {
	var srv, cli Conn
	srv.Accept6(0, DialectDDNet, 0x01020304)
	cli.Connect6(0, true)
	cli.Poll(nil)
	cli.FeedDatagram(0, AppendConnectAccept6(nil, 0x01020304, true), nil)
	cli.Poll(nil)
	msg := bytes.Repeat([]byte("snapshot part "), 60)
	buf := make([]byte, 0, MaxPacketSize)
	scratch := make([]byte, 0, MaxPayload6)
	now := time.Duration(0)
	n := testing.AllocsPerRun(100, func() {
		now += 20 * time.Millisecond
		srv.Send(now, msg, SendVital|SendFlush)
		srv.Update(now)
		for p, ok := srv.Poll(buf[:0]); ok; p, ok = srv.Poll(buf[:0]) {
			if cli.FeedDatagram(now, p, scratch) == nil {
				for _, ok := cli.Recv(); ok; _, ok = cli.Recv() {
				}
			}
		}
		cli.Send(now, msg[:30], SendFlush)
		cli.Update(now)
		for p, ok := cli.Poll(buf[:0]); ok; p, ok = cli.Poll(buf[:0]) {
			if srv.FeedDatagram(now, p, scratch) == nil {
				for _, ok := srv.Recv(); ok; _, ok = srv.Recv() {
				}
			}
		}
	})
	if n != 0 || srv.State() != StateOnline || cli.State() != StateOnline {
		t.Fatalf("%v allocs, states %v %v", n, srv.State(), cli.State())
	}
}

// TestAcceptVanilla: after the stateless anti-spoof handshake the server's
// sequence goes on after it, and the client's first vital chunk, whatever
// its number, sets the expected sequence; older ones are then duplicates.
func TestAcceptVanilla(t *testing.T) {
	var c Conn
	c.AcceptVanilla(0, 6)
	if c.State() != StateOnline || c.Dialect() != Dialect6 || c.Sequence() != 6 {
		t.Fatalf("%v %v %d", c.State(), c.Dialect(), c.Sequence())
	}
	pkt := func(seq uint16) []byte {
		b := AppendChunkHeader6(nil, ChunkHeader{Flags: ChunkVital, Size: 1, Seq: seq})
		return AppendPacket6Compressed(nil, PacketHeader6{Ack: 6, NumChunks: 1}, append(b, byte(seq)))
	}
	got := 0
	for _, seq := range []uint16{5, 2, 6} { // 2: a late resend of the handshake's chunks
		if err := c.FeedDatagram(0, pkt(seq), nil); err != nil {
			t.Fatal(err)
		}
		for _, ok := c.Recv(); ok; _, ok = c.Recv() {
			got++
		}
	}
	if got != 2 || c.Ack() != 6 {
		t.Fatalf("delivered %d, ack %d", got, c.Ack())
	}
	c.Send(0, []byte{1}, SendVital|SendFlush)
	p, _ := c.Poll(nil)
	h, payload, _ := ParsePacket6(p)
	var r ChunkReader
	r.Reset6(payload, int(h.NumChunks))
	if ch, ok := r.Next(); !ok || ch.Seq != 7 || h.Ack != 6 {
		t.Fatalf("first chunk after the handshake: seq %d ack %d", ch.Seq, h.Ack)
	}
}
