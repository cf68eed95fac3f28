package netproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

var testClientIP = netip.MustParseAddr("127.0.0.1")

// link connects a client Conn and a server Conn through an in-memory network
// with optional loss, in either dialect (newLink, newLink6). The server's
// stateless part (handshake7 or handshake6) is done here the way a server
// does it.
type link struct {
	t                *testing.T
	now              time.Duration
	gen              *TokenGen
	cli, srv         Conn
	srvUp            bool
	dropCS, dropSC   func(p []byte) bool // drop client→server, server→client datagrams
	cliGot, srvGot   [][]byte
	cliSent, srvSent [][]byte
	buf, dec         []byte
	// handshake handles a client datagram while the server Conn is not up.
	handshake func(l *link, p []byte)
}

// newLink is a 0.7 link.
func newLink(t *testing.T) *link {
	l := &link{t: t, gen: NewTokenGen(TokenSecret{1, 2, 3}, 0), buf: make([]byte, 0, MaxPacketSize),
		dec: make([]byte, 0, MaxPayload), handshake: handshake7}
	l.cli.Reset()
	l.srv.Reset()
	return l
}

// newLink6 is a 0.6 link (vanilla or DDNet, as the client connects).
func newLink6(t *testing.T) *link {
	return &link{t: t, gen: NewTokenGen(TokenSecret{9, 8, 7}, 0), buf: make([]byte, 0, MaxPacketSize),
		dec: make([]byte, 0, MaxPayload6), handshake: handshake6}
}

func (l *link) pump() {
	for range 1000 {
		moved := false
		for p, ok := l.cli.Poll(l.buf[:0]); ok; p, ok = l.cli.Poll(l.buf[:0]) {
			moved = true
			l.cliSent = append(l.cliSent, bytes.Clone(p))
			if l.dropCS == nil || !l.dropCS(p) {
				l.toServer(p)
			}
		}
		for p, ok := l.srv.Poll(l.buf[:0]); ok; p, ok = l.srv.Poll(l.buf[:0]) {
			moved = true
			l.srvSent = append(l.srvSent, bytes.Clone(p))
			if l.dropSC == nil || !l.dropSC(p) {
				l.feed(&l.cli, p, &l.cliGot)
			}
		}
		if !moved {
			return
		}
	}
	l.t.Fatal("pump did not settle")
}

func (l *link) toServer(p []byte) {
	if l.srvUp && l.srv.State() != StateOffline && l.srv.State() != StateError {
		l.feed(&l.srv, p, &l.srvGot)
		return
	}
	l.handshake(l, p)
}

// reply sends a stateless server reply to the client (unless dropped).
func (l *link) reply(p []byte) {
	if l.dropSC == nil || !l.dropSC(p) {
		l.feed(&l.cli, p, &l.cliGot)
	}
}

// handshake7 answers a padded token request with the token of the
// client's IP and accepts a CONNECT that echoes it.
func handshake7(l *link, p []byte) {
	h, payload, err := ParsePacket(p)
	if err != nil {
		l.t.Fatalf("client sent bad packet: %v", err)
	}
	if h.Flags&FlagControl == 0 {
		return
	}
	ctl, err := ParseControl(payload)
	if err != nil {
		l.t.Fatalf("bad control: %v", err)
	}
	switch {
	case ctl.Type == CtrlToken && h.Token == TokenNone && ctl.Padded:
		l.reply(AppendTokenResponse(nil, ctl.Token, l.gen.Token(testClientIP)))
	case ctl.Type == CtrlConnect && l.gen.Check(testClientIP, h.Token):
		l.srv.Accept(l.now, h.Token, ctl.Token)
		l.srvUp = true
	}
}

// handshake6 answers DDNet's CONNECT with a CONNECTACCEPT carrying the
// token of the client's IP and accepts the ACCEPT that echoes it; a
// vanilla CONNECT is accepted at once.
func handshake6(l *link, p []byte) {
	if Is7Packet(p) || IsConnless(p) {
		l.t.Fatalf("client sent a non-0.6 packet % x", p)
	}
	h, payload, err := ParsePacket6(p)
	if err != nil || h.Flags&Flag6Control == 0 {
		return
	}
	ctl, err := ParseControl6(payload)
	if err != nil {
		l.t.Fatalf("bad control: %v", err)
	}
	switch {
	case ctl.Type == Ctrl6Connect && ctl.TKEN:
		reply := AppendConnectAccept6(nil, l.gen.Token6(testClientIP), true)
		l.srvSent = append(l.srvSent, reply)
		l.reply(reply)
	case ctl.Type == Ctrl6Connect:
		l.srv.Accept6(l.now, Dialect6, 0)
		l.srvUp = true
	case ctl.Type == Ctrl6Accept && ctl.HasToken && l.gen.Check6(testClientIP, ctl.Token):
		l.srv.Accept6(l.now, DialectDDNet, ctl.Token)
		l.srvUp = true
	}
}

// feed gives c a datagram and collects the messages it releases. A 0.7
// datagram that does not parse or decode fails the test; what the Conn
// refuses is left to the test to look at.
func (l *link) feed(c *Conn, p []byte, got *[][]byte) {
	if c.Dialect() == Dialect7 {
		h, payload, err := ParsePacket(p)
		if err != nil {
			l.t.Fatalf("bad packet: %v", err)
		}
		if _, err := DecodePayload(l.dec, h, payload); err != nil {
			l.t.Fatalf("decode: %v", err)
		}
	}
	if c.FeedDatagram(l.now, p, l.dec) != nil {
		return
	}
	for ch, ok := c.Recv(); ok; ch, ok = c.Recv() {
		*got = append(*got, bytes.Clone(ch.Data))
	}
}

// step advances the clock, runs both timers and pumps.
func (l *link) step(d time.Duration) {
	l.now += d
	l.cli.Update(l.now)
	if l.srvUp {
		l.srv.Update(l.now)
	}
	l.pump()
}

// connect runs the 0.7 handshake until both sides are online.
func (l *link) connect() {
	l.cli.Connect(l.now, 0x11223344)
	l.pump()
	if l.cli.State() != StateOnline || l.srv.State() != StatePending {
		l.t.Fatalf("after handshake: client %v server %v", l.cli.State(), l.srv.State())
	}
	l.first([]byte{0x03, '0', 0, 0, 0x85, 0x1c})
}

// connect6 runs the 0.6 handshake (tken: DDNet's) and one vital message.
func (l *link) connect6(tken bool) {
	l.cli.Connect6(l.now, tken)
	l.pump()
	if l.cli.State() != StateOnline || !l.srvUp {
		l.t.Fatalf("after handshake: client %v server up %v", l.cli.State(), l.srvUp)
	}
	l.first([]byte{0x03, '0', 0, 0})
}

// first sends the client's first vital message, which puts the server
// online.
func (l *link) first(msg []byte) {
	if err := l.cli.Send(l.now, msg, SendVital|SendFlush); err != nil {
		l.t.Fatal(err)
	}
	l.pump()
	if l.srv.State() != StateOnline || len(l.srvGot) != 1 {
		l.t.Fatalf("server %v, got %d messages", l.srv.State(), len(l.srvGot))
	}
	l.srvGot = nil
}

func TestConnHandshakeBytes(t *testing.T) {
	l := newLink(t)
	l.connect()
	st := l.gen.Token(testClientIP)
	var stb [4]byte
	binary.BigEndian.PutUint32(stb[:], uint32(st))
	want := []string{
		"04 00 00 ff ff ff ff 05 11 22 33 44",                                // token request, padded
		"04 00 00" + fmt.Sprintf(" %x", stb) + " 01 11 22 33 44",             // connect, padded
		"00 00 01" + fmt.Sprintf(" %x", stb) + " 40 06 01 03 30 00 00 85 1c", // INFO, raw (smaller than compressed)
	}
	if len(l.cliSent) != 3 {
		t.Fatalf("client sent %d packets", len(l.cliSent))
	}
	for i, w := range want {
		wb := unhex(t, w)
		p := l.cliSent[i]
		if i < 2 {
			if len(p) != PacketHeaderSize+TokenControlSize || !bytes.Equal(p[:len(wb)], wb) || bytes.Count(p[len(wb):], []byte{0}) != len(p)-len(wb) {
				t.Fatalf("packet %d = % x", i, p[:min(len(p), 16)])
			}
		} else if !bytes.Equal(p, wb) {
			t.Fatalf("packet %d = % x, want % x", i, p, wb)
		}
	}
	if len(l.srvSent) != 1 || !bytes.Equal(l.srvSent[0], unhex(t, "04 00 00 11 22 33 44 02")) {
		t.Fatalf("server sent % x", l.srvSent)
	}
	// After 1 s of silence the server sends a KEEPALIVE acking the INFO.
	l.srvSent = nil
	l.step(KeepAliveInterval + time.Millisecond)
	found := false
	for _, p := range l.srvSent {
		if bytes.Equal(p, unhex(t, "04 01 00 11 22 33 44 00")) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no keepalive with ack 1: % x", l.srvSent)
	}
}

// TestConnReliableLossy delivers 3000 vital messages in both directions over a
// network losing 30% of datagrams; the sequence space wraps around twice.
func TestConnReliableLossy(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { testConnLossy(t, seed) })
	}
}

func testConnLossy(t *testing.T, seed uint64) {
	l := newLink(t)
	l.connect()
	rng := rand.New(rand.NewPCG(seed, 2))
	drop := func([]byte) bool { return rng.IntN(100) < 30 }
	l.dropCS, l.dropSC = drop, drop
	const total = 3000
	sentC, sentS := 0, 0
	for i := 0; i < 20000 && (len(l.cliGot) < total || len(l.srvGot) < total); i++ {
		for k := 0; k < 8 && sentS < total && l.srv.Unacked() < 200; k++ {
			msg := fmt.Appendf(nil, "s%d", sentS)
			if err := l.srv.Send(l.now, msg, SendVital); err != nil {
				t.Fatal(err)
			}
			sentS++
		}
		for k := 0; k < 8 && sentC < total && l.cli.Unacked() < 200; k++ {
			msg := fmt.Appendf(nil, "c%d", sentC)
			if err := l.cli.Send(l.now, msg, SendVital); err != nil {
				t.Fatal(err)
			}
			sentC++
		}
		l.srv.Flush(l.now)
		l.cli.Flush(l.now)
		l.pump()
		l.step(20 * time.Millisecond)
		if l.cli.State() != StateOnline || l.srv.State() != StateOnline {
			e := l.srv.resend.at(0)
			t.Logf("srv oldest seq %d first %v last %v now %v; srv seq %d peerAck %d; cli ack %d; rejected %d/%d drops %d/%d", e.seq, e.firstSend, e.lastSend, l.now, l.srv.seq, l.srv.peerAck, l.cli.ack, l.srv.Stats.Rejected, l.cli.Stats.Rejected, l.srv.Stats.OutboxDrops, l.cli.Stats.OutboxDrops)
			ce := l.cli.resend.at(0)
			t.Logf("cli oldest seq %d first %v last %v; cli seq %d peerAck %d; srv ack %d; cli lastSend %v lastRecv %v", ce.seq, ce.firstSend, ce.lastSend, l.cli.seq, l.cli.peerAck, l.srv.ack, l.cli.lastSend, l.cli.lastRecv)
			for _, p := range l.cliSent[max(0, len(l.cliSent)-40):] {
				h, _, _ := ParsePacket(p)
				t.Logf("cli sent %+v len %d", h, len(p))
			}
			t.Fatalf("step %d: client %v (%s) server %v (%s)", i, l.cli.State(), l.cli.Reason(), l.srv.State(), l.srv.Reason())
		}
	}
	check := func(name string, got [][]byte, prefix string) {
		if len(got) != total {
			t.Fatalf("%s got %d messages, want %d", name, len(got), total)
		}
		for i, m := range got {
			if string(m) != fmt.Sprintf("%s%d", prefix, i) {
				t.Fatalf("%s message %d = %q", name, i, m)
			}
		}
	}
	check("client", l.cliGot, "s")
	check("server", l.srvGot, "c")
	if l.srv.Stats.ChunksResent == 0 {
		t.Fatal("no resends despite loss")
	}
	// Let everything be acked.
	l.dropCS, l.dropSC = nil, nil
	for range 200 {
		l.step(20 * time.Millisecond)
	}
	if l.srv.Unacked() != 0 || l.cli.Unacked() != 0 {
		t.Fatalf("unacked: server %d client %d", l.srv.Unacked(), l.cli.Unacked())
	}
}

func TestConnTimers(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		l := newLink(t)
		l.connect()
		l.dropCS = func([]byte) bool { return true }
		l.dropSC = func([]byte) bool { return true }
		for l.srv.State() == StateOnline && l.now < time.Minute {
			l.step(100 * time.Millisecond)
		}
		if l.srv.State() != StateError || l.srv.Reason() != ReasonTimeout {
			t.Fatalf("server %v %q", l.srv.State(), l.srv.Reason())
		}
		if l.now < TimeoutDuration || l.now > TimeoutDuration+time.Second {
			t.Fatalf("timed out at %v", l.now)
		}
	})
	t.Run("not acked", func(t *testing.T) {
		l := newLink(t)
		l.connect()
		// The server hears nothing but keeps sending keepalives: the
		// client's vital chunk is never acked.
		l.dropCS = func([]byte) bool { return true }
		start := l.now
		if err := l.cli.Send(l.now, []byte{1}, SendVital|SendFlush); err != nil {
			t.Fatal(err)
		}
		resends := 0
		for l.cli.State() == StateOnline && l.now < time.Minute {
			before := l.cli.Stats.ChunksResent
			l.step(100 * time.Millisecond)
			resends += int(l.cli.Stats.ChunksResent - before)
			l.srv.lastRecv = l.now // keep the server from timing out itself
		}
		if l.cli.State() != StateError || l.cli.Reason() != ReasonNotAcked {
			t.Fatalf("client %v %q", l.cli.State(), l.cli.Reason())
		}
		if d := l.now - start; d < ResendTimeout || d > ResendTimeout+time.Second {
			t.Fatalf("gave up after %v", d)
		}
		if resends < 8 || resends > 10 {
			t.Fatalf("%d resends in 10 s, want one per second", resends)
		}
	})
	t.Run("token timeout", func(t *testing.T) {
		l := newLink(t)
		l.dropCS = func([]byte) bool { return true }
		l.cli.Connect(0, 1)
		l.pump()
		for l.cli.State() == StateToken && l.now < time.Minute {
			l.step(100 * time.Millisecond)
		}
		if l.cli.State() != StateError || l.cli.Reason() != ReasonUnableToConnect {
			t.Fatalf("client %v %q", l.cli.State(), l.cli.Reason())
		}
		// One request at start, then one every 0.5 s for 5 s.
		if n := len(l.cliSent); n < 9 || n > 11 {
			t.Fatalf("%d token requests", n)
		}
	})
	t.Run("accept repeated while pending", func(t *testing.T) {
		l := newLink(t)
		l.cli.Connect(0, 7)
		l.pump()
		l.dropSC = func([]byte) bool { return true }
		l.srvSent = nil
		for range 20 {
			l.step(100 * time.Millisecond)
		}
		accepts := 0
		for _, p := range l.srvSent {
			if bytes.Equal(p, unhex(t, "04 00 00 00 00 00 07 02")) {
				accepts++
			}
		}
		if accepts < 3 || accepts > 4 {
			t.Fatalf("%d ACCEPT repeats in 2 s", accepts)
		}
	})
}

func TestConnClose(t *testing.T) {
	l := newLink(t)
	l.connect()
	l.cli.Disconnect(l.now, "bye\x01")
	l.pump()
	if l.cli.State() != StateOffline {
		t.Fatalf("client %v", l.cli.State())
	}
	if l.srv.State() != StateError || !l.srv.ClosedByPeer() || l.srv.Reason() != "bye " {
		t.Fatalf("server %v %v %q", l.srv.State(), l.srv.ClosedByPeer(), l.srv.Reason())
	}
	// Closed by the peer: our Disconnect sends nothing back.
	l.srv.Disconnect(l.now, "x")
	if l.srv.Pending() != 0 {
		t.Fatal("CLOSE answered with CLOSE")
	}
	if err := l.srv.Send(l.now, []byte{1}, 0); !errors.Is(err, ErrNotOnline) {
		t.Fatalf("send after close: %v", err)
	}
}

// serverConn returns an online server connection with token 1, peer token 2.
func serverConn(t *testing.T) *Conn {
	c := new(Conn)
	c.Accept(0, 1, 2)
	c.Poll(nil)
	if err := c.Feed(0, PacketHeader{Token: 1}, nil); err != nil || c.State() != StateOnline {
		t.Fatalf("%v %v", err, c.State())
	}
	return c
}

func vitalPayload(seqs ...uint16) []byte {
	var p []byte
	for _, s := range seqs {
		p = AppendChunkHeader(p, ChunkHeader{Flags: ChunkVital, Size: 1, Seq: s})
		p = append(p, byte(s))
	}
	return p
}

func TestConnSequencing(t *testing.T) {
	c := serverConn(t)
	recv := func(seqs ...uint16) []byte {
		t.Helper()
		if err := c.Feed(0, PacketHeader{Token: 1, NumChunks: uint8(len(seqs))}, vitalPayload(seqs...)); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for ch, ok := c.Recv(); ok; ch, ok = c.Recv() {
			got = append(got, ch.Data...)
		}
		return got
	}
	if got := recv(1, 2); !bytes.Equal(got, []byte{1, 2}) {
		t.Fatalf("in order: % x", got)
	}
	if got := recv(2, 1); len(got) != 0 {
		t.Fatalf("duplicates delivered: % x", got)
	}
	if c.outFlags&FlagResend != 0 {
		t.Fatal("duplicate requested a resend")
	}
	if got := recv(4); len(got) != 0 {
		t.Fatalf("gap delivered: % x", got)
	}
	c.Flush(0)
	p, ok := c.Poll(nil)
	h, _, _ := ParsePacket(p)
	if !ok || h.Flags&FlagResend == 0 || h.Ack != 2 || h.NumChunks != 0 {
		t.Fatalf("resend request: %+v % x", h, p)
	}
	if got := recv(3, 4); !bytes.Equal(got, []byte{3, 4}) {
		t.Fatalf("after resend: % x", got)
	}
	// Undrained chunks are not acknowledged.
	c.Feed(0, PacketHeader{Token: 1, NumChunks: 1}, vitalPayload(5))
	if got := recv(5); !bytes.Equal(got, []byte{5}) || c.Ack() != 5 {
		t.Fatalf("redelivery: % x ack %d", got, c.Ack())
	}
}

func TestConnFeedRejects(t *testing.T) {
	tests := []struct {
		name    string
		h       PacketHeader
		payload string
		err     error
	}{
		{"wrong token", PacketHeader{Token: 9, Ack: 2}, "", ErrBadToken},
		{"no token", PacketHeader{Token: TokenNone, Ack: 2}, "", ErrBadToken},
		{"ack ahead of sequence", PacketHeader{Token: 1, Ack: 3}, "", ErrBadAck},
		{"ack behind peer ack", PacketHeader{Token: 1, Ack: 0}, "", ErrBadAck},
		{"empty control", PacketHeader{Token: 1, Ack: 1, Flags: FlagControl}, "", ErrTruncated},
		{"unknown control", PacketHeader{Token: 1, Ack: 1, Flags: FlagControl}, "03", ErrBadControl},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := serverConn(t)
			c.Send(0, []byte{1}, SendVital) // sequence 1
			c.Send(0, []byte{2}, SendVital) // sequence 2
			if err := c.Feed(0, PacketHeader{Token: 1, Ack: 1}, nil); err != nil {
				t.Fatal(err)
			}
			rejected := c.Stats.Rejected
			if err := c.Feed(0, tc.h, unhex(t, tc.payload)); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if c.State() != StateOnline {
				t.Fatalf("state %v", c.State())
			}
			// A packet that does not belong to the connection (checked
			// before anything else) leaves it untouched.
			if foreign := errors.Is(tc.err, ErrBadToken) || errors.Is(tc.err, ErrBadAck); foreign &&
				(c.peerAck != 1 || c.Unacked() != 1 || c.Stats.Rejected != rejected+1) {
				t.Fatalf("rejected packet had effects: peer ack %d, unacked %d, rejected %d", c.peerAck, c.Unacked(), c.Stats.Rejected)
			}
		})
	}
	var off Conn
	if err := off.Feed(0, PacketHeader{}, nil); !errors.Is(err, ErrNotOnline) {
		t.Fatalf("offline feed: %v", err)
	}
}

func TestConnLimits(t *testing.T) {
	c := serverConn(t)
	if err := c.Send(0, make([]byte, MaxChunkSize+1), 0); !errors.Is(err, ErrChunkTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
	if err := c.Send(0, make([]byte, MaxChunkSize), SendVital|SendFlush); err != nil {
		t.Fatalf("largest: %v", err)
	}
	p, _ := c.Poll(nil)
	if len(p) > MaxConnPacketSize {
		t.Fatalf("packet of %d bytes", len(p))
	}
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = c.Send(0, make([]byte, 1000), SendVital)
	}
	if !errors.Is(err, ErrResendBufferFull) || c.State() != StateError || c.Reason() != ReasonOutOfBuffer {
		t.Fatalf("err %v state %v %q", err, c.State(), c.Reason())
	}
	// Unpolled datagrams beyond OutboxPackets are dropped and counted.
	c = serverConn(t)
	for range OutboxPackets + 5 {
		c.Send(0, []byte{1}, SendFlush)
	}
	if c.Pending() != OutboxPackets || c.Stats.OutboxDrops != 5 {
		t.Fatalf("pending %d drops %d", c.Pending(), c.Stats.OutboxDrops)
	}
	// Many small chunks: at most MaxPacketChunks per packet.
	c = serverConn(t)
	for range 300 {
		c.Send(0, nil, 0)
	}
	c.Flush(0)
	packets, chunks := 0, 0
	for p, ok := c.Poll(nil); ok; p, ok = c.Poll(nil) {
		h, _, _ := ParsePacket(p)
		if h.NumChunks == 0 {
			t.Fatal("chunk count wrapped to 0")
		}
		packets++
		chunks += int(h.NumChunks)
	}
	if packets != 2 || chunks != 300 {
		t.Fatalf("300 chunks went out as %d chunks in %d packets, want 2 packets", chunks, packets)
	}
}

func TestConnAllocs(t *testing.T) {
	srv := serverConn(t)
	var cli Conn
	cli.Reset()
	cli.client, cli.state, cli.token, cli.peerToken = true, StateOnline, 2, 1
	msg := bytes.Repeat([]byte("snapshot data "), 40)
	buf := make([]byte, 0, MaxPacketSize)
	dec := make([]byte, 0, MaxPayload)
	now := time.Duration(0)
	allocs := testing.AllocsPerRun(200, func() {
		now += 20 * time.Millisecond
		srv.Send(now, msg, SendVital|SendFlush)
		srv.Update(now)
		for p, ok := srv.Poll(buf[:0]); ok; p, ok = srv.Poll(buf[:0]) {
			h, payload, _ := ParsePacket(p)
			payload, _ = DecodePayload(dec, h, payload)
			cli.Feed(now, h, payload)
			for _, ok := cli.Recv(); ok; _, ok = cli.Recv() {
			}
		}
		cli.Update(now)
		for p, ok := cli.Poll(buf[:0]); ok; p, ok = cli.Poll(buf[:0]) {
			h, payload, _ := ParsePacket(p)
			payload, _ = DecodePayload(dec, h, payload)
			srv.Feed(now, h, payload)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per exchange", allocs)
	}
	if srv.State() != StateOnline || cli.State() != StateOnline || srv.Unacked() > 60 {
		t.Fatalf("states %v %v unacked %d", srv.State(), cli.State(), srv.Unacked())
	}
}
