package server

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"twserver/config"
)

// listenPeers opens n loopback UDP sockets to receive what a batch sends.
func listenPeers(t testing.TB, n int) []*net.UDPConn {
	t.Helper()
	peers := make([]*net.UDPConn, n)
	for i := range peers {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		peers[i] = c
	}
	return peers
}

func peerAddr(c *net.UDPConn) netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }

// TestUDPBatch sends batches over real loopback sockets, from an IPv4 and a
// dual-stack socket: every datagram arrives once, intact, in order per
// peer, and ReadBatch reports each sender as ReadFrom does.
func TestUDPBatch(t *testing.T) {
	for _, bind := range []string{"127.0.0.1:0", ":0"} {
		t.Run(bind, func(t *testing.T) {
			pc, err := ListenUDP(bind)
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close()
			bc := pc.(BatchConn)
			peers := listenPeers(t, 3)
			const total = SendBatchSize + 17 // more than one sendmmsg
			ms := make([]Datagram, total)
			for i := range ms {
				b := []byte(fmt.Sprintf("datagram %03d", i))
				ms[i] = Datagram{Buf: b, N: len(b), Addr: peerAddr(peers[i%len(peers)])}
			}
			n, err := bc.WriteBatch(ms)
			if err != nil || n != total {
				t.Fatalf("WriteBatch = %d, %v; want %d", n, err, total)
			}
			for p, c := range peers {
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				buf := make([]byte, 64)
				for i := p; i < total; i += len(peers) {
					k, _, err := c.ReadFromUDPAddrPort(buf)
					if err != nil {
						t.Fatalf("peer %d: %v", p, err)
					}
					if want := fmt.Sprintf("datagram %03d", i); string(buf[:k]) != want {
						t.Fatalf("peer %d got %q, want %q", p, buf[:k], want)
					}
				}
			}

			// The other way: several datagrams queued, one ReadBatch.
			port := pc.LocalAddr().Port()
			to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(port)}
			for i, c := range peers {
				if _, err := c.WriteToUDP([]byte{byte(i), 1, 2, 3}, to); err != nil {
					t.Fatal(err)
				}
			}
			big := make([]byte, RecvBufSize+100) // truncated to the buffer, seen as oversized
			if _, err := peers[0].WriteToUDP(big, to); err != nil {
				t.Fatal(err)
			}
			rs := make([]Datagram, ReadBatchSize)
			for i := range rs {
				rs[i].Buf = make([]byte, RecvBufSize)
			}
			got := 0
			deadline := time.Now().Add(2 * time.Second)
			for got < len(peers)+1 && time.Now().Before(deadline) {
				n, err := bc.ReadBatch(rs[got:])
				if err != nil {
					t.Fatal(err)
				}
				got += n
			}
			if got != len(peers)+1 {
				t.Fatalf("read %d datagrams, want %d", got, len(peers)+1)
			}
			for i, c := range peers {
				if !bytes.Equal(rs[i].Buf[:rs[i].N], []byte{byte(i), 1, 2, 3}) || rs[i].Addr != peerAddr(c) {
					t.Errorf("datagram %d: %v from %v, want from %v", i, rs[i].Buf[:rs[i].N], rs[i].Addr, peerAddr(c))
				}
			}
			if last := rs[len(peers)]; last.N != RecvBufSize {
				t.Errorf("oversized datagram read as %d bytes, want %d (the buffer)", last.N, RecvBufSize)
			}
		})
	}
}

// TestUDPBatchAllocs checks that the batched socket calls allocate nothing
// per datagram: a batch of 63 sent, and read back in one call.
func TestUDPBatchAllocs(t *testing.T) {
	pc, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	bc := pc.(BatchConn)
	payload := make([]byte, 600)
	ms := make([]Datagram, 63)
	for i := range ms {
		ms[i] = Datagram{Buf: payload, N: len(payload), Addr: pc.LocalAddr()} // to itself
	}
	rs := make([]Datagram, ReadBatchSize)
	for i := range rs {
		rs[i].Buf = make([]byte, RecvBufSize)
	}
	round := func() {
		if n, err := bc.WriteBatch(ms[:ReadBatchSize]); err != nil || n != ReadBatchSize {
			t.Fatalf("WriteBatch = %d, %v", n, err)
		}
		for got := 0; got < ReadBatchSize; {
			n, err := bc.ReadBatch(rs[got:])
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	}
	round()
	if a := testing.AllocsPerRun(50, round); a != 0 {
		t.Errorf("%.1f allocations per batch of %d sent and read", a, ReadBatchSize)
	}
}

// newUDPServerInGame returns a server on a real loopback socket with n
// in-game clients whose addresses are real UDP sockets (so every datagram
// is delivered), and the sockets.
func newUDPServerInGame(tb testing.TB, n int) (*Server, []*net.UDPConn) {
	tb.Helper()
	pc, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pc.Close() })
	cfg := config.Default()
	cfg.Server.MaxClients = 64
	cfg.Server.PlayerSlots = 16
	cfg.Server.MaxClientsPerIP = 64
	cfg.Game.InactiveKickTime = 0
	s := newServerInGame(tb, cfg, pc, n)
	peers := listenPeers(tb, n)
	for i, c := range s.clients[:n] {
		delete(s.byAddr, c.addr)
		s.edge.Peers.Remove(c.addr)
		c.addr = peerAddr(peers[i])
		s.byAddr[c.addr] = i
		s.edge.Peers.Add(c.addr, i)
		c.snapRate = snapRateFull
	}
	for _, p := range peers {
		_ = p.SetReadBuffer(1 << 20)
	}
	return s, peers
}

// drainPeers reads and discards everything queued on the peers' sockets.
func drainPeers(peers []*net.UDPConn) int {
	buf := make([]byte, RecvBufSize)
	n := 0
	for _, p := range peers {
		_ = p.SetReadDeadline(time.Now().Add(time.Millisecond))
		for {
			if _, _, err := p.ReadFromUDPAddrPort(buf); err != nil {
				break
			}
			n++
		}
	}
	return n
}

// TestSnapshotTickSendAllocs checks the loop's whole send path on a real
// socket: a snapshot tick for 63 clients, every datagram written through
// the send batch (sendmmsg), allocates nothing.
func TestSnapshotTickSendAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s, peers := newUDPServerInGame(t, 63)
	for range 100 {
		stepAcked(s)
	}
	drainPeers(peers)
	sent := s.gauges.Sent.Load()
	if a := testing.AllocsPerRun(20, func() { stepAcked(s); stepAcked(s) }); a != 0 {
		t.Errorf("snapshot tick with 63 clients over UDP allocates %.1f times", a)
	}
	if s.gauges.Sent.Load()-sent < 63*20 {
		t.Errorf("only %d datagrams sent in 20 snapshot ticks of 63 clients", s.gauges.Sent.Load()-sent)
	}
	if got := drainPeers(peers); got < 63*20 {
		t.Errorf("the peers received %d datagrams, want at least %d", got, 63*20)
	}
}

// BenchmarkSendBatch63 measures writing one snapshot tick's datagrams (63
// clients, one 600-byte datagram each) through the send batch to real
// loopback sockets.
func BenchmarkSendBatch63(b *testing.B) {
	s, peers := newUDPServerInGame(b, 63)
	payload := make([]byte, 600)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for _, c := range s.clients[:63] {
			s.queueOut(append(s.nextOut(), payload...), c.addr)
		}
		s.flushOut()
		if i++; i%16 == 0 {
			b.StopTimer()
			drainPeers(peers)
			b.StartTimer()
		}
	}
}

// BenchmarkSendUnbatched63 is BenchmarkSendBatch63 with one WriteTo per
// datagram (the path before batching), for comparison.
func BenchmarkSendUnbatched63(b *testing.B) {
	s, peers := newUDPServerInGame(b, 63)
	payload := make([]byte, 600)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for _, c := range s.clients[:63] {
			_, _ = s.conn.WriteTo(payload, c.addr)
		}
		if i++; i%16 == 0 {
			b.StopTimer()
			drainPeers(peers)
			b.StartTimer()
		}
	}
}

// TestMemConnBatch checks the in-memory twin's batch form: a batch written
// arrives in order, and ReadBatch takes what is queued without waiting for more.
func TestMemConnBatch(t *testing.T) {
	mn := NewMemNet()
	a, _ := mn.Listen(netip.MustParseAddrPort("10.0.0.1:1"))
	b, _ := mn.Listen(netip.MustParseAddrPort("10.0.0.2:2"))
	ms := make([]Datagram, 5)
	for i := range ms {
		ms[i] = Datagram{Buf: []byte{byte(i)}, N: 1, Addr: b.LocalAddr()}
	}
	if n, err := a.WriteBatch(ms); n != 5 || err != nil {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	rs := make([]Datagram, 8)
	for i := range rs {
		rs[i].Buf = make([]byte, 4)
	}
	n, err := b.ReadBatch(rs)
	if err != nil || n != 5 {
		t.Fatalf("ReadBatch = %d, %v; want 5", n, err)
	}
	for i := range n {
		if rs[i].N != 1 || rs[i].Buf[0] != byte(i) || rs[i].Addr != a.LocalAddr() {
			t.Errorf("datagram %d: %v from %v", i, rs[i].Buf[:rs[i].N], rs[i].Addr)
		}
	}
}

// TestFirstTickStart checks the staggered schedules of several games:
// tick 0 starts at the first instant from now on that is the game's phase
// past a tick boundary of the process-wide origin, and unaligned games
// start at once.
func TestFirstTickStart(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		align        bool
		phase, after time.Duration // after: now - tickOrigin
		want         time.Duration // start - tickOrigin
	}{
		{false, 5 * ms, 33 * ms, 33 * ms},
		{true, 0, 0, 0},
		{true, 0, 1, 20 * ms},
		{true, 5 * ms, 33 * ms, 45 * ms},
		{true, 5 * ms, 45 * ms, 45 * ms},
		{true, 5 * ms, 46 * ms, 65 * ms},
		{true, 15 * ms, 2 * ms, 15 * ms},
	} {
		s := &Server{alignTicks: tc.align, tickPhase: tc.phase}
		got := s.firstTickStart(tickOrigin.Add(tc.after)).Sub(tickOrigin)
		if got != tc.want {
			t.Errorf("align %v phase %v at %v: tick 0 at %v, want %v", tc.align, tc.phase, tc.after, got, tc.want)
		}
	}
}
