package server

import (
	"net/netip"
	"testing"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/world"
)

// newIdleServer returns a server that is not running: tests drive its loop
// functions directly from the test goroutine.
func newIdleServer(tb testing.TB, players int) *Server {
	tb.Helper()
	mn := NewMemNet()
	mc, err := mn.Listen(srvAddr)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default()
	cfg.Server.MaxClients = max(players, 1)
	cfg.Server.MaxClientsPerIP = cfg.Server.MaxClients
	s, err := New(Options{Config: cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range players {
		c := s.clients[i]
		c.reset()
		c.state = stateIngame
		c.addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 1, byte(i)}), 40000) // nobody listens: writes are dropped
		c.conn.Accept(s.now(), 1, 2)
		c.name = "p"
		c.resetSnapState()
		c.snapRate = snapRateFull
		if err := s.world.AddPlayer(i, world.PlayerInfo{Name: "p"}); err != nil {
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
	if s.enc.NumMessages() == 0 {
		t.Errorf("no snapshot was encoded")
	}
	if s.clients[0].storage.Len() == 0 {
		t.Errorf("no snapshot stored")
	}
}

func BenchmarkTick8Players(b *testing.B) {
	s := newIdleServer(b, 8)
	for range 300 {
		stepAcked(s)
	}
	b.ReportAllocs()
	for b.Loop() {
		stepAcked(s)
	}
}

// stepAcked runs one tick and then acknowledges, for every client, the
// newest snapshot sent, as a client's next INPUT would: the following
// snapshots are deltas.
func stepAcked(s *Server) {
	s.doTick()
	s.updateConns()
	s.flushAll()
	for _, c := range s.clients {
		if c.state == stateIngame && c.storage.Len() > 0 {
			c.lastAckedTick = c.storage.Newest()
			c.storage.Ack(c.lastAckedTick)
			c.snapRate = snapRateFull
		}
	}
}
