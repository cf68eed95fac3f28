package server

import (
	"net/netip"
	"strconv"
	"testing"

	"twserver/config"
	"twserver/session"
	"twserver/sockio"
	"twserver/world"

	"github.com/rs/zerolog"
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
	mn := sockio.NewMemNet()
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
		c.snapRate = session.SnapRateFull
	}
	return s
}

// newServerInGame returns a server on conn that is not running, with n
// clients in game (slots 0..n-1, addresses 127.0.1.i:40000, server token 1);
// before (if any) is applied to the server ahead of the clients' accepts.
func newServerInGame(tb testing.TB, cfg config.Config, conn sockio.PacketConn, n int, before ...func(*Server)) *Server {
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
		c.state = session.Ingame
		c.addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}), 40000) // nobody listens: writes are dropped
		c.conn.Accept(s.now(), 1, 2)
		c.budget, c.dlBudget = session.NewClientBudget(), session.NewDownloadBudget()
		s.byAddr[c.addr] = i
		s.edge.Peers.Add(c.addr, i)
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
	if s.enc.Own.Enc.NumMessages() == 0 {
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
		if c.state == session.Ingame && c.storage.Len() > 0 {
			c.lastAckedTick = c.storage.Newest()
			c.storage.Ack(c.lastAckedTick)
			c.snapRate = session.SnapRateFull
		}
	}
}

// discardConn is a PacketConn whose writes go nowhere (no copies).
type discardConn struct{ writes, bytes int }

func (d *discardConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, sockio.ErrClosed
}
func (d *discardConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	d.writes++
	d.bytes += len(b)
	return len(b), nil
}
func (d *discardConn) LocalAddr() netip.AddrPort { return srvAddr }
func (d *discardConn) Close() error              { return nil }

// itoa is strconv.Itoa (the tests' short name).
func itoa(n int) string { return strconv.Itoa(n) }
