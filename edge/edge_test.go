package edge

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"twserver/netproto"
)

var (
	cl1Addr = netip.MustParseAddrPort("127.0.0.2:50001")
	cl2Addr = netip.MustParseAddrPort("127.0.0.3:50002")
)

// countWriter counts what an edge sends.
type countWriter struct{ writes, bytes int }

func (w *countWriter) write(b []byte, _ netip.AddrPort) { w.writes++; w.bytes += len(b) }

// newTestEdge returns an edge writing to w with the info a server of the
// default configuration publishes (both dialects, no password) and 2
// clients listed.
func newTestEdge(w *countWriter) *Edge {
	e := New(w.write)
	rows := []InfoPlayer{{Name: "a", Country: -1}, {Name: "b", Country: -1, Spectator: true}}
	var p netproto.Packer
	p.AddStringLimit("0.7.5", 32)
	p.AddStringLimit("test", 64)
	e.Publish(&InfoSnapshot{Body: bytes.Clone(p.Bytes()),
		Six:      BuildInfo6(InfoHead{Name: "test", GameType: "DM", MapName: "m", NumPlayers: 1, MaxPlayers: 8, MaxClients: 8}, rows),
		Accept07: true, Accept06: true, Vanilla6: true})
	return e
}

// TestConnlessBudgets: info requests, token requests and CONNECTs from
// addresses without a slot are answered up to their rate per second; the
// rest are counted in ConnlessDropped.
func TestConnlessBudgets(t *testing.T) {
	s := newTestEdge(&countWriter{})
	tokens := netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
	from := netip.MustParseAddrPort("198.51.100.7:4000")
	tok := tokens.Token(from.Addr())
	var out [netproto.MaxPacketSize]byte
	send := func(b []byte, n int, now time.Time) (handed int) {
		for range n {
			if _, pass := s.Screen(b, from, tokens, now, out[:0]); pass {
				handed++
			}
		}
		return handed
	}
	info := netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 5}, append(append([]byte(nil), magicGetInfo...), 1))
	now := time.Now()
	send(info, InfoRepliesPerSecond+10, now)
	if got, drop := s.Stats.InfoReplies.Load(), s.Stats.ConnlessDropped.Load(); got != InfoRepliesPerSecond || drop != 10 {
		t.Errorf("info: %d answered, %d dropped; want %d and 10", got, drop, InfoRepliesPerSecond)
	}
	send(info, InfoRepliesPerSecond, now.Add(time.Second))
	if got := s.Stats.InfoReplies.Load(); got != 2*InfoRepliesPerSecond {
		t.Errorf("info after 1 s: %d answered, want %d", got, 2*InfoRepliesPerSecond)
	}
	s.Stats.ConnlessDropped.Store(0)
	send(netproto.AppendTokenRequest(nil, 5), TokenRepliesPerSecond+3, now)
	if got, drop := s.Stats.TokenReplies.Load(), s.Stats.ConnlessDropped.Load(); got != TokenRepliesPerSecond || drop != 3 {
		t.Errorf("token: %d answered, %d dropped; want %d and 3", got, drop, TokenRepliesPerSecond)
	}
	s.Stats.ConnlessDropped.Store(0)
	if handed := send(netproto.AppendConnect(nil, tok, 5), ConnectsPerSecond+7, now); handed != ConnectsPerSecond {
		t.Errorf("%d CONNECTs handed to the loop, want %d", handed, ConnectsPerSecond)
	}
	if drop := s.Stats.ConnlessDropped.Load(); drop != 7 {
		t.Errorf("%d CONNECTs dropped, want 7", drop)
	}
}

// TestScreenAllocs checks that traffic from addresses without a slot —
// garbage, bad tokens, token requests, info requests — allocates nothing.
func TestScreenAllocs(t *testing.T) {
	dc := &countWriter{}
	s := newTestEdge(dc)
	s.Budget = NewBudget(1<<30, 1<<30, 1<<30)
	tokens := netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
	from := netip.MustParseAddrPort("198.51.100.7:4000")
	tok := tokens.Token(from.Addr())
	inputs := map[string][]byte{
		"garbage":       {1, 2, 3, 4, 5, 6, 7, 8, 9},
		"data":          netproto.AppendPacket(nil, netproto.PacketHeader{NumChunks: 1, Token: tok}, []byte{0x40, 1, 1, 3}),
		"bad connect":   netproto.AppendConnect(nil, tok^1, 5),
		"token request": netproto.AppendTokenRequest(nil, 5),
		"info request": netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 5},
			append(append([]byte(nil), magicGetInfo...), 1)),
		// 0.6: DDNet's and vanilla CONNECT, a bad ACCEPT, a guessed INPUT, both info requests
		"connect6 tken":    netproto.AppendConnect6(nil, true),
		"connect6 vanilla": netproto.AppendConnect6(nil, false),
		"bad accept6":      netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, 12345, true),
		"input6": netproto.AppendPacket6Compressed(nil, netproto.PacketHeader6{NumChunks: 1},
			append(netproto.AppendChunkHeader6(nil, netproto.ChunkHeader{Size: 4}), 0x21, 0x05, 0x06, 0x28)),
		"info6":     netproto.AppendConnless6(nil, append(append([]byte(nil), magicGetInfo...), 1)),
		"info6 ext": append([]byte("xe\x01\x02\x00\x00"), append(append([]byte(nil), magicGetInfo...), 1)...),
	}
	s.Budget.VanFull.SetBurst(1 << 30)
	s.Budget.VanFull.SetLimit(1 << 30)
	s.Budget.VanReplies.SetBurst(1 << 30)
	s.Budget.VanReplies.SetLimit(1 << 30)
	var out [netproto.MaxPacketSize]byte
	now := time.Now()
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			a := testing.AllocsPerRun(100, func() {
				if _, pass := s.Screen(in, from, tokens, now, out[:0]); pass {
					t.Fatalf("%s was handed to the loop", name)
				}
			})
			if a != 0 {
				t.Errorf("%s: %.1f allocations per packet", name, a)
			}
		})
	}
	if dc.writes == 0 {
		t.Errorf("no replies written")
	}
}

// TestVanillaReplyBudget: beyond VanillaRepliesPerSecond a second, vanilla
// CONNECTs get no reply, and beyond VanillaAntispoofPerSecond the short
// reply: what a spoofed flood can send to a victim is bounded.
func TestVanillaReplyBudget(t *testing.T) {
	dc := &countWriter{}
	s := newTestEdge(dc)
	tokens := netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
	now := time.Now()
	var out [netproto.MaxPacketSize]byte
	for range 3 * VanillaRepliesPerSecond {
		if _, pass := s.Screen(netproto.AppendConnect6(nil, false), cl1Addr, tokens, now, out[:0]); pass {
			t.Fatal("a vanilla CONNECT went to the loop")
		}
	}
	tick := tokens.VanillaToken6(cl1Addr.Addr())
	full := len(AppendAntispoof6(nil, tick, true)) + 4 // and the 4-byte CONNECTACCEPT
	short := len(AppendAntispoof6(nil, tick, false)) + 4
	want := VanillaAntispoofPerSecond*full + (VanillaRepliesPerSecond-VanillaAntispoofPerSecond)*short
	if dc.bytes != want || dc.writes != 2*VanillaRepliesPerSecond {
		t.Errorf("%d datagrams, %d bytes; want %d, %d (full reply %d bytes, short %d)", dc.writes, dc.bytes, 2*VanillaRepliesPerSecond, want, full, short)
	}
}

// TestInfo6Budget: beyond Info6FullPerSecond a second, 0.6 replies leave
// out the client list, and beyond InfoRepliesPerSecond nothing is sent:
// what a spoofed flood can send to a victim is bounded.
func TestInfo6Budget(t *testing.T) {
	dc := &countWriter{}
	s := New(dc.write)
	s.Publish(&InfoSnapshot{Accept06: true, Six: Info6{vanilla: bytes.Repeat([]byte("x"), 1000), vanillaShort: []byte("short")}})
	req := netproto.AppendConnless6(nil, append(append([]byte(nil), magicGetInfo...), 1))
	now := time.Now()
	var out [netproto.MaxPacketSize]byte
	for range 2 * InfoRepliesPerSecond {
		s.screenConnless6(cl1Addr, req, now, out[:0])
	}
	if got := s.Stats.InfoReplies.Load(); got != InfoRepliesPerSecond {
		t.Errorf("%d replies, want %d", got, InfoRepliesPerSecond)
	}
	if dc.bytes > Info6FullPerSecond*1100+(InfoRepliesPerSecond-Info6FullPerSecond)*40 {
		t.Errorf("%d bytes sent for %d requests of %d bytes", dc.bytes, 2*InfoRepliesPerSecond, len(req))
	}
}

// TestAcceptedRing: the reader lets a 0.6 data packet from a stranger
// through only within PendingAcceptWindow6 of a checked ACCEPT from that
// very address, tagged so the loop never reads it as a connection request.
func TestAcceptedRing(t *testing.T) {
	s := newTestEdge(&countWriter{})
	tokens := netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
	now := time.Now()
	var out [netproto.MaxPacketSize]byte
	var pk netproto.Packer
	pk.AddMsgHeader(netproto.Netmsg6Info, true)
	pk.AddString("0.6 626fce9a778df4d4")
	chunk := netproto.AppendChunkHeader6(nil, netproto.ChunkHeader{Flags: netproto.ChunkVital, Size: pk.Len(), Seq: 1})
	data := append(netproto.AppendPacketHeader6(nil, netproto.PacketHeader6{NumChunks: 1}), append(chunk, pk.Bytes()...)...)
	data = netproto.AppendToken6(data, tokens.Token6(cl1Addr.Addr()))
	screen := func(addr netip.AddrPort, b []byte, at time.Time) (int, bool) {
		return s.Screen(b, addr, tokens, at, out[:0])
	}
	if _, ok := screen(cl1Addr, data, now); ok {
		t.Fatal("a stranger's data packet went to the loop")
	}
	accept := netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, tokens.Token6(cl1Addr.Addr()), true)
	if _, ok := screen(cl1Addr, accept, now); !ok {
		t.Fatal("the checked ACCEPT did not go to the loop")
	}
	if cid, ok := screen(cl1Addr, data, now.Add(time.Millisecond)); !ok || cid != CIDAccepted6 {
		t.Fatalf("the data behind the ACCEPT: passed %v, cid %d", ok, cid)
	}
	other := netip.AddrPortFrom(cl1Addr.Addr(), cl1Addr.Port()+1)
	if _, ok := screen(other, data, now); ok {
		t.Error("another port's data packet went to the loop")
	}
	if _, ok := screen(cl1Addr, data, now.Add(PendingAcceptWindow6+time.Millisecond)); ok {
		t.Error("data went to the loop after PendingAcceptWindow6")
	}
	for i := range PendingAccepts6 { // newer ACCEPTs push the first out
		a := netip.AddrPortFrom(cl2Addr.Addr(), uint16(1000+i))
		screen(a, netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, tokens.Token6(a.Addr()), true), now)
	}
	if _, ok := screen(cl1Addr, data, now.Add(time.Millisecond)); ok {
		t.Error("the ring kept more than PendingAccepts6 addresses")
	}
}

// TestInfo7Fits: the 0.7 info reply stays one packet however many clients
// with long names are listed: rows that do not fit are left out.
func TestInfo7Fits(t *testing.T) {
	rows := make([]InfoPlayer, 64)
	for i := range rows {
		rows[i] = InfoPlayer{Name: "a long player name", Clan: "a long clan", Country: 999}
	}
	hd := InfoHead{Name: "server", Version: "0.7.5", MapName: "m", GameType: "DM", MaxPlayers: 64, MaxClients: 64}
	body := BuildInfo7(hd, rows)
	if len(body)+len(MagicInfo)+netproto.MaxVarintSize > InfoMaxPayload {
		t.Fatalf("body of %d bytes does not fit %d", len(body), InfoMaxPayload)
	}
	var few netproto.Packer
	hd.Append7(&few, 64)
	if len(body) <= few.Len()+100 {
		t.Fatalf("body of %d bytes lists almost no rows", len(body))
	}
}

// TestScreener: the reader's screener drops a malformed datagram, hands a
// slot's packet to the loop tagged with its slot, and rotates its tokens
// when due on the clock it is given (a token stays valid one rotation).
func TestScreener(t *testing.T) {
	e := newTestEdge(&countWriter{})
	sc := e.NewScreener(0)
	peer := netip.MustParseAddrPort("198.51.100.8:4000")
	e.Peers.Add(peer, 3)
	now := time.Now()
	if cid, pass := sc.Screen([]byte{1}, peer, now, 0); pass || cid != CIDNone || e.Stats.Malformed.Load() != 1 {
		t.Errorf("malformed: cid %d pass %v, malformed %d", cid, pass, e.Stats.Malformed.Load())
	}
	pkt := netproto.AppendConnect6(nil, false)
	if cid, pass := sc.Screen(pkt, peer, now, 0); !pass || cid != 3 {
		t.Errorf("slot's packet: cid %d pass %v", cid, pass)
	}
	tok := sc.tokens.Token(peer.Addr())
	sc.Screen(pkt, peer, now, netproto.SeedRotation)
	if !sc.tokens.Check(peer.Addr(), tok) {
		t.Error("token of the last secret refused after one rotation")
	}
	sc.Screen(pkt, peer, now, 2*netproto.SeedRotation)
	if sc.tokens.Check(peer.Addr(), tok) {
		t.Error("tokens not rotated on the clock")
	}
}

// TestRetoken: a 0.7 connection accepted under its address's token goes on
// when the client sends under the address's token of the next secret (the
// 0.7.5 client takes every TOKEN reply it gets, also one after CONNECT),
// but not under a token of another address, of a secret no longer
// accepted, or on a 0.6 connection; before, such datagrams were dropped
// until the client timed out.
func TestRetoken(t *testing.T) {
	e := newTestEdge(&countWriter{})
	sc := e.NewScreener(0)
	ip := cl1Addr.Addr()
	first := sc.tokens.Token(ip)
	c := new(netproto.Conn)
	c.Accept(0, first, 0x01020304)
	packet := func(tok netproto.Token) []byte {
		return netproto.AppendPacket(nil, netproto.PacketHeader{Token: tok}, nil)
	}
	var scratch [netproto.MaxPacketSize]byte
	if err := e.Feed(c, ip, 0, packet(first), scratch[:0]); err != nil || c.State() != netproto.StateOnline {
		t.Fatalf("the CONNECT's token: %v, state %v", err, c.State())
	}
	sc.Screen([]byte{1}, cl1Addr, time.Now(), netproto.SeedRotation) // the secret rotates
	second := sc.tokens.Token(ip)
	if second == first {
		t.Fatal("the token did not change with the secret")
	}
	for _, tt := range []struct {
		name string
		tok  netproto.Token
	}{
		{"another address's token", sc.tokens.Token(cl2Addr.Addr())},
		{"no token", netproto.TokenNone},
		{"a made-up token", first ^ second ^ 0x5a5a},
	} {
		if err := e.Feed(c, ip, 0, packet(tt.tok), scratch[:0]); err != netproto.ErrBadToken || c.Token() != first {
			t.Errorf("%s: %v, token %x; want ErrBadToken and the token kept", tt.name, err, c.Token())
		}
	}
	if err := e.Feed(c, ip, time.Millisecond, packet(second), scratch[:0]); err != nil || c.Token() != second {
		t.Fatalf("the next secret's token: %v, token %x, want it taken", err, c.Token())
	}
	if err := e.Feed(c, ip, time.Millisecond, packet(first), scratch[:0]); err != nil || c.Token() != first {
		t.Errorf("back to the first token (a packet sent before): %v, token %x", err, c.Token())
	}
	if n := e.Stats.Retokened.Load(); n != 2 {
		t.Errorf("Retokened %d, want 2", n)
	}
	sc.Screen([]byte{1}, cl1Addr, time.Now(), 3*netproto.SeedRotation) // two rotations: first is no longer accepted
	c.Retoken(sc.tokens.Token(ip))
	if err := e.Feed(c, ip, 2*time.Millisecond, packet(first), scratch[:0]); err != netproto.ErrBadToken {
		t.Errorf("a token of a secret rotated out: %v, want ErrBadToken", err)
	}
	// A 0.6 connection has no 0.7 token to change.
	c6 := new(netproto.Conn)
	c6.Accept6(0, netproto.DialectDDNet, 7)
	if e.Retoken(c6, ip, packet(sc.tokens.Token(ip))) {
		t.Error("a DDNet connection retokened")
	}
}

// TestRetokenWhileRotating: the loop checks a connection's new token
// (Retoken) while the reader rotates the secrets (Screen); CI runs it under
// the race detector, which fails it if the two share the secrets unguarded.
func TestRetokenWhileRotating(t *testing.T) {
	e := newTestEdge(&countWriter{})
	sc := e.NewScreener(0)
	ip := cl1Addr.Addr()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 500 {
			sc.Screen([]byte{1}, cl1Addr, time.Now(), time.Duration(i+1)*netproto.SeedRotation)
		}
	}()
	c := new(netproto.Conn)
	c.Accept(0, netproto.TokenNone-1, 0x01020304)
	var retokened int
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if e.Retoken(c, ip, netproto.AppendPacket(nil, netproto.PacketHeader{Token: sc.tokens.Token(ip)}, nil)) {
			retokened++
		}
	}
	if retokened == 0 {
		t.Error("no token taken while the secrets rotated")
	}
}
