package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/netproto"
	"twserver/world"
)

// newIdleServer returns a server that is not running: tests drive its loop
// functions directly from the test goroutine.
func newIdleServer(tb testing.TB, players int) *Server {
	tb.Helper()
	return newIdleServerWith(tb, players, nil)
}

// newIdleServerWith is newIdleServer with a hook that adjusts the
// configuration first.
func newIdleServerWith(tb testing.TB, players int, adjust func(*config.Config)) *Server {
	tb.Helper()
	mn := NewMemNet()
	mc, err := mn.Listen(srvAddr)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default()
	cfg.Server.MaxClients = max(players, 1)
	cfg.Server.MaxClientsPerIP = cfg.Server.MaxClients
	if adjust != nil {
		adjust(&cfg)
	}
	s := newServerInGame(tb, cfg, mc, players)
	for _, c := range s.clients[:players] {
		c.snapRate = snapRateFull
	}
	return s
}

// newServerInGame returns a server on conn that is not running, with n
// clients in game (slots 0..n-1, addresses 127.0.1.i:40000, server token 1);
// before (if any) is applied to the server ahead of the clients' accepts.
func newServerInGame(tb testing.TB, cfg config.Config, conn PacketConn, n int, before ...func(*Server)) *Server {
	tb.Helper()
	s, err := New(Options{Config: cfg, Conn: conn, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range before {
		f(s)
	}
	for i := range n {
		c := s.clients[i]
		c.reset()
		c.openConn()
		c.state = stateIngame
		c.addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}), 40000) // nobody listens: writes are dropped
		c.conn.Accept(s.now(), 1, 2)
		c.budget, c.dlBudget = newClientBudget(), newDownloadBudget()
		s.byAddr[c.addr] = i
		s.peers.add(c.addr, i)
		c.name = "p" + itoa(i)
		c.resetSnapState()
		if err := s.world.AddPlayer(i, world.PlayerInfo{Name: c.name}); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// TestTickAllocs checks that a steady-state tick with in-game players
// (world tick, snapshot build, delta, parts, connection send) does not allocate.
func TestTickAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s := newIdleServer(t, 8)
	step := func() { stepAcked(s) }
	for range 300 { // spawn, warm up buffers
		step()
	}
	if a := testing.AllocsPerRun(100, step); a > 0 {
		t.Errorf("steady-state tick allocates %.1f times", a)
	}
	if s.snapW.enc.NumMessages() == 0 {
		t.Errorf("no snapshot was encoded")
	}
	if s.clients[0].storage.Len() == 0 {
		t.Errorf("no snapshot stored")
	}
}

func BenchmarkTick8Players(b *testing.B) {
	// The players never send input: with inactivity kicks on, the world
	// would move them to the spectators after 3 minutes of game time and a
	// long run would measure an empty server.
	s := newIdleServerWith(b, 8, func(cfg *config.Config) { cfg.Game.InactiveKickTime = 0 })
	for range 300 {
		stepAcked(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		stepAcked(s)
	}
	b.StopTimer()
	for i := range 8 {
		if s.world.Team(i) == world.TeamSpectators {
			b.Fatalf("player %d ended as a spectator: the benchmark measured an emptier server", i)
		}
	}
}

// stepAcked runs one tick and then acknowledges, for every client, the
// newest snapshot sent, as a client's next INPUT would: the following
// snapshots are deltas.
func stepAcked(s *Server) {
	s.doTick()
	s.updateConns()
	s.flushAll()
	ackNewest(s)
}

// ackNewest acknowledges, for every in-game client, the newest snapshot
// sent, and puts it at the full snapshot rate.
func ackNewest(s *Server) {
	for _, c := range s.clients {
		if c.state == stateIngame && c.storage.Len() > 0 {
			c.lastAckedTick = c.storage.Newest()
			c.storage.Ack(c.lastAckedTick)
			c.snapRate = snapRateFull
		}
	}
}

// discardConn is a PacketConn whose writes go nowhere (no copies).
type discardConn struct{ writes, bytes int }

func (d *discardConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, ErrClosed
}
func (d *discardConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	d.writes++
	d.bytes += len(b)
	return len(b), nil
}
func (d *discardConn) LocalAddr() netip.AddrPort { return srvAddr }
func (d *discardConn) Close() error              { return nil }

// TestScreenAllocs checks that traffic from addresses without a slot —
// garbage, bad tokens, token requests, info requests — allocates nothing.
func TestScreenAllocs(t *testing.T) {
	dc := &discardConn{}
	s, err := New(Options{Config: config.Default(), Conn: dc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.budget = newConnlessBudget(1<<30, 1<<30, 1<<30)
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
	s.budget.vanFull.SetBurst(1 << 30)
	s.budget.vanFull.SetLimit(1 << 30)
	s.budget.vanReplies.SetBurst(1 << 30)
	s.budget.vanReplies.SetLimit(1 << 30)
	var p rxPacket
	var out [netproto.MaxPacketSize]byte
	now := time.Now()
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			a := testing.AllocsPerRun(100, func() {
				p.n = copy(p.buf[:], in)
				p.addr = from
				if s.screen(&p, tokens, now, out[:0]) {
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
