package server

import (
	"bytes"
	"testing"

	"twserver/encpool"
	"twserver/netproto"
)

// mix06 makes the in-game clients i ≡ 1 mod 3 of s DDNet clients and those
// i ≡ 2 mod 3 vanilla 0.6 clients (whose id maps show 16 of the players).
func mix06(s *Server, n int) {
	for i := range n {
		c := s.clients[i]
		switch i % 3 {
		case 1:
			c.conn.Accept6(s.now(), netproto.DialectDDNet, uint32(0x5eed0000+i))
			s.trans6.Connect(i, true)
		case 2:
			c.conn.AcceptVanilla(s.now(), 0)
			s.trans6.Connect(i, false)
		}
	}
}

// sameDatagrams fails t unless alone and shared hold the same datagrams,
// byte for byte, to the same addresses, in the same order.
func sameDatagrams(t *testing.T, alone, shared *recordConn) {
	t.Helper()
	if len(alone.datagrams) != len(shared.datagrams) {
		t.Fatalf("%d datagrams alone, %d with the pool", len(alone.datagrams), len(shared.datagrams))
	}
	for i := range alone.datagrams {
		if alone.to[i] != shared.to[i] || !bytes.Equal(alone.datagrams[i], shared.datagrams[i]) {
			t.Fatalf("datagram %d differs: to %v (%d bytes) alone, to %v (%d bytes) with the pool",
				i, alone.to[i], len(alone.datagrams[i]), shared.to[i], len(shared.datagrams[i]))
		}
	}
}

// TestEncodePoolSameDatagrams06 is TestEncodePoolSameDatagrams with 0.7,
// DDNet and vanilla 0.6 clients mixed (on the same tick clock): the pool
// translates and encodes the 0.6 snapshots too (a dialect6.SnapWorker per worker), and the wire is
// the lone loop's, byte for byte, over 200 ticks.
func TestEncodePoolSameDatagrams06(t *testing.T) {
	pool := encpool.New(3)
	defer pool.Close()
	var alone, shared recordConn
	a := poolTestServer(t, &alone, 63, nil, tickClock)
	b := poolTestServer(t, &shared, 63, pool, tickClock)
	mix06(a, 63)
	mix06(b, 63)
	for range 200 {
		stepMoving(a, 63)
		stepMoving(b, 63)
	}
	to6 := 0
	for _, to := range alone.to {
		if i, ok := a.byAddr[to]; ok && a.clients[i].conn.Dialect().Is6() {
			to6++
		}
	}
	if len(alone.datagrams) < 63*100 || to6 < 42*100 {
		t.Fatalf("only %d datagrams (%d to 0.6 clients) in 200 ticks of 63 clients", len(alone.datagrams), to6)
	}
	sameDatagrams(t, &alone, &shared)
}

// TestEncodePoolAllocs06: a snapshot tick of 63 clients, two thirds of them
// 0.6, encoded by the pool allocates nothing in steady state.
func TestEncodePoolAllocs06(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	pool := encpool.New(2)
	defer pool.Close()
	s := poolTestServer(t, &discardConn{}, 63, pool)
	mix06(s, 63)
	for range 300 {
		stepMoving(s, 63)
	}
	if a := testing.AllocsPerRun(50, func() { stepMoving(s, 63); stepMoving(s, 63) }); a != 0 {
		t.Errorf("a snapshot tick of 0.7 and 0.6 clients with the encode pool allocates %.1f times", a)
	}
}
