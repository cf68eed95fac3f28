package server

import (
	"net/netip"
	"testing"
	"time"

	"twserver/config"
	"twserver/encpool"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
	"twserver/world"
)

// recordConn is a PacketConn that keeps every datagram written, in order.
type recordConn struct {
	datagrams [][]byte
	to        []netip.AddrPort
}

func (r *recordConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, sockio.ErrClosed
}
func (r *recordConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	r.datagrams = append(r.datagrams, append([]byte(nil), b...))
	r.to = append(r.to, a)
	return len(b), nil
}
func (r *recordConn) LocalAddr() netip.AddrPort { return srvAddr }
func (r *recordConn) Close() error              { return nil }

// poolTestServer returns a server with n in-game clients (16 playing,
// moving and firing) on conn, using pool (nil: none); before as in
// newServerInGame.
func poolTestServer(tb testing.TB, conn sockio.PacketConn, n int, pool *encpool.Pool, before ...func(*Server)) *Server {
	tb.Helper()
	cfg := config.Default()
	cfg.Server.MaxClients = 64
	cfg.Server.PlayerSlots = 16
	cfg.Server.MaxClientsPerIP = 64
	cfg.Game.InactiveKickTime = 0
	s := newServerInGame(tb, cfg, conn, n, before...)
	s.enc = encpool.NewFan(pool)
	s.enc.Pin(true) // always, whatever the tick took
	for _, c := range s.clients[:n] {
		c.snapRate = session.SnapRateFull
	}
	return s
}

// stepMoving runs one tick with every player running, jumping and
// shooting in a pattern, then flushes and acknowledges like stepAcked.
func stepMoving(s *Server, n int) {
	next := s.world.CurrentTick() + 1
	for i := range n {
		in := world.Input{Direction: int32((int(next)/30+i)%3 - 1), TargetX: int32(100 - i*7), TargetY: int32(i*5 - 60),
			Jump: (next / 17) % 2, Fire: next / 9, WantedWeapon: int32(1 + i%3)}
		if c := s.clients[i]; c.inputs != nil { // nil: dropped
			c.inputs.Store(next, in)
		}
	}
	stepAcked(s)
}

// tickClock makes s's clock its world's tick times TickDuration, as if each
// hand-driven step took exactly one tick: netproto's timers (resends of the
// vital chunks the test clients never acknowledge, flushes, keepalives) fire
// at the same ticks in every run, however slow, so two servers stepped side
// by side can be compared datagram by datagram.
func tickClock(s *Server) {
	s.clock = func() time.Duration { return time.Duration(s.world.CurrentTick()) * netproto.TickDuration }
}

// TestEncodePoolSameDatagrams checks that fanning the snapshots out to the
// pool changes nothing on the wire: two servers with the same seed,
// players and clock, one encoding alone and one with a pool of 3 workers,
// write the same datagrams, byte for byte, in the same order, over 200
// ticks (4 s of their clock, so with vital resends).
func TestEncodePoolSameDatagrams(t *testing.T) {
	pool := encpool.New(3)
	defer pool.Close()
	var alone, shared recordConn
	a := poolTestServer(t, &alone, 63, nil, tickClock)
	b := poolTestServer(t, &shared, 63, pool, tickClock)
	for i := range 200 {
		stepMoving(a, 63)
		if i == 100 {
			// A test process descheduled between the two servers (a slow
			// run under -race) must not matter: on the wall clock, one
			// server resent its unacked vital chunks here and the other not.
			time.Sleep(netproto.ResendInterval + 100*time.Millisecond)
		}
		stepMoving(b, 63)
	}
	if len(alone.datagrams) < 63*100 {
		t.Fatalf("only %d datagrams in 200 ticks of 63 clients", len(alone.datagrams))
	}
	sameDatagrams(t, &alone, &shared)
}

// TestEncodePoolAllocs checks that a snapshot tick of 63 clients encoded by
// the pool allocates nothing in steady state.
func TestEncodePoolAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	pool := encpool.New(2)
	defer pool.Close()
	s := poolTestServer(t, &discardConn{}, 63, pool)
	for range 300 {
		stepMoving(s, 63)
	}
	if a := testing.AllocsPerRun(50, func() { stepMoving(s, 63); stepMoving(s, 63) }); a != 0 {
		t.Errorf("a snapshot tick with the encode pool allocates %.1f times", a)
	}
}

// TestEncodePoolShared runs two servers' snapshot ticks at once on one
// pool (as the games of one process do) under the race detector's eye.
func TestEncodePoolShared(t *testing.T) {
	pool := encpool.New(2)
	defer pool.Close()
	a := poolTestServer(t, &discardConn{}, 40, pool)
	b := poolTestServer(t, &discardConn{}, 40, pool)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			stepMoving(b, 40)
		}
	}()
	for range 100 {
		stepMoving(a, 40)
	}
	<-done
	if a.gauges.Snapshots.Load() < 40*40 || b.gauges.Snapshots.Load() < 40*40 {
		t.Errorf("snapshots: %d and %d, want at least %d each", a.gauges.Snapshots.Load(), b.gauges.Snapshots.Load(), 40*40)
	}
}

// BenchmarkSnapshotTick63 measures a snapshot tick of 63 clients (16
// playing): world tick, per-client build, delta, varints, Huffman, parts,
// connection send; sequential and with an encode pool of GOMAXPROCS-1
// workers (ns/op is wall time: the parallel one spends about as much CPU).
func BenchmarkSnapshotTick63(b *testing.B) {
	for _, tc := range []struct {
		name string
		pool bool
	}{{"sequential", false}, {"pool", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var pool *encpool.Pool
			if tc.pool {
				pool = encpool.New(0)
				defer pool.Close()
				if pool.Workers() == 0 {
					b.Skip("GOMAXPROCS 1: no worker")
				}
			}
			s := poolTestServer(b, &discardConn{}, 63, pool)
			for range 100 {
				stepMoving(s, 63)
			}
			b.ReportAllocs()
			for b.Loop() {
				stepMoving(s, 63) // odd tick: no snapshot
				stepMoving(s, 63)
			}
		})
	}
}
