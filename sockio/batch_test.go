package sockio

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"twserver/internal/udppeer"
)

// recvBufSize is the read buffer of the tests: larger than the largest
// datagram, as the server's, so oversized ones are seen.
const recvBufSize = 2048

// udpKinds are the game sockets of ListenUDP, each opened explicitly.
var udpKinds = []struct {
	kind   Kind
	listen func(t *testing.T, addr string) BatchConn
}{
	{KindPaced, func(t *testing.T, addr string) BatchConn { return listenPaced(t, addr) }},
	{KindBatch, func(t *testing.T, addr string) BatchConn {
		t.Helper()
		c, err := ListenBatch(addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}},
}

// TestUDPBatch sends batches over real loopback sockets, from an IPv4 and a
// dual-stack socket: every datagram arrives once, intact, in order per
// peer, and ReadBatch reports each sender as ReadFrom does.
func TestUDPBatch(t *testing.T) {
	for _, k := range udpKinds {
		for _, bind := range []string{"127.0.0.1:0", ":0"} {
			t.Run(string(k.kind)+"/"+bind, func(t *testing.T) { testUDPBatch(t, k.listen(t, bind)) })
		}
	}
}

func testUDPBatch(t *testing.T, bc BatchConn) {
	peers := udppeer.Listen(t, 3)
	const total = SendBatchSize + 17 // more than one sendmmsg
	ms := make([]Datagram, total)
	for i := range ms {
		b := []byte(fmt.Sprintf("datagram %03d", i))
		ms[i] = Datagram{Buf: b, N: len(b), Addr: udppeer.Addr(peers[i%len(peers)])}
	}
	n, err := bc.WriteBatch(ms)
	if err != nil || n != total {
		t.Fatalf("WriteBatch = %d, %v; want %d", n, err, total)
	}
	for p, c := range peers {
		var wants []string
		for i := p; i < total; i += len(peers) {
			wants = append(wants, fmt.Sprintf("datagram %03d", i))
		}
		udppeer.Expect(t, c, 2*time.Second, wants...)
	}

	// The other way: several datagrams queued, one ReadBatch.
	port := bc.LocalAddr().Port()
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(port)}
	for i, c := range peers {
		if _, err := c.WriteToUDP([]byte{byte(i), 1, 2, 3}, to); err != nil {
			t.Fatal(err)
		}
	}
	big := make([]byte, recvBufSize+100) // truncated to the buffer, seen as oversized
	if _, err := peers[0].WriteToUDP(big, to); err != nil {
		t.Fatal(err)
	}
	rs := make([]Datagram, ReadBatchSize)
	for i := range rs {
		rs[i].Buf = make([]byte, recvBufSize)
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
		if !bytes.Equal(rs[i].Buf[:rs[i].N], []byte{byte(i), 1, 2, 3}) || rs[i].Addr != udppeer.Addr(c) {
			t.Errorf("datagram %d: %v from %v, want from %v", i, rs[i].Buf[:rs[i].N], rs[i].Addr, udppeer.Addr(c))
		}
	}
	if last := rs[len(peers)]; last.N != recvBufSize {
		t.Errorf("oversized datagram read as %d bytes, want %d (the buffer)", last.N, recvBufSize)
	}
}

// TestUDPBatchAllocs checks that the batched socket calls allocate nothing
// per datagram: a batch of 63 sent, and read back in one call.
func TestUDPBatchAllocs(t *testing.T) {
	for _, k := range udpKinds {
		t.Run(string(k.kind), func(t *testing.T) { testUDPBatchAllocs(t, k.listen(t, "127.0.0.1:0")) })
	}
}

func testUDPBatchAllocs(t *testing.T, bc BatchConn) {
	payload := make([]byte, 600)
	ms := make([]Datagram, 63)
	for i := range ms {
		ms[i] = Datagram{Buf: payload, N: len(payload), Addr: bc.LocalAddr()} // to itself
	}
	rs := make([]Datagram, ReadBatchSize)
	for i := range rs {
		rs[i].Buf = make([]byte, recvBufSize)
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
