//go:build linux

package sockio

import (
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"twserver/internal/udppeer"
)

// floodReader reads from u on the test's goroutine and checks the
// sequence numbers that sendSeq wrote.
type floodReader struct {
	t    *testing.T
	u    BatchConn
	rs   []Datagram
	next uint32
}

func newFloodReader(t *testing.T, u BatchConn) *floodReader {
	r := &floodReader{t: t, u: u, rs: make([]Datagram, ReadBatchSize)}
	for i := range r.rs {
		r.rs[i].Buf = make([]byte, recvBufSize)
	}
	return r
}

// read reads until want datagrams arrived, each the next of the sequence.
func (r *floodReader) read(want int) {
	r.t.Helper()
	for got := 0; got < want; {
		n, err := r.u.ReadBatch(r.rs)
		if err != nil {
			r.t.Fatalf("ReadBatch after %d of %d: %v", got, want, err)
		}
		for _, m := range r.rs[:n] {
			if seq := binary.BigEndian.Uint32(m.Buf[:m.N]); m.N != 200 || seq != r.next {
				r.t.Fatalf("datagram %d bytes, sequence %d; want 200 bytes, %d", m.N, seq, r.next)
			}
			r.next++
		}
		got += n
	}
}

func (r *floodReader) polled() bool {
	u := r.u.(*udpConn)
	u.pmu.Lock()
	defer u.pmu.Unlock()
	return u.polled != nil
}

// listenPolledUDP is the batch socket (udpConn, KindBatch), ListenUDP's
// fallback where the paced socket is not available.
func listenPolledUDP(t *testing.T) *udpConn {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	u, err := newUDPConn(c)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// flood sends 3200 sequence-numbered datagrams to the socket at 64 a
// millisecond (about 50 ms: over FloodReadRate) and reads them all.
func (r *floodReader) flood(peer *net.UDPConn, to *net.UDPAddr) {
	r.t.Helper()
	const n = 3200
	errc := make(chan error, 1)
	first := r.next // read here: the sender runs while read advances r.next
	go func() { errc <- sendSeq(peer, to, first, n, 64, time.Millisecond) }()
	r.read(n)
	if err := <-errc; err != nil {
		r.t.Fatal(err)
	}
}

// calm sends a trickle, reading it, until flooding reports false or
// floodHold and a second have passed (then it fails), and then a burst of 5.
func (r *floodReader) calm(peer *net.UDPConn, to *net.UDPAddr, flooding func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(floodHold + time.Second)
	for flooding() && time.Now().Before(deadline) {
		if err := sendSeq(peer, to, r.next, 1, 1, 0); err != nil {
			r.t.Fatal(err)
		}
		r.read(1)
		time.Sleep(20 * time.Millisecond)
	}
	if flooding() {
		r.t.Fatalf("still pausing %v after the flood", floodHold+time.Second)
	}
	if err := sendSeq(peer, to, r.next, 5, 5, 0); err != nil {
		r.t.Fatal(err)
	}
	r.read(5)
}

// sendSeq sends n sequence-numbered datagrams of 200 bytes from c to to, in
// bursts of burst with a pause between bursts.
func sendSeq(c *net.UDPConn, to *net.UDPAddr, first uint32, n, burst int, pause time.Duration) error {
	b := make([]byte, 200)
	for i := range n {
		binary.BigEndian.PutUint32(b, first+uint32(i))
		if _, err := c.WriteToUDP(b, to); err != nil {
			return err
		}
		if (i+1)%burst == 0 {
			time.Sleep(pause)
		}
	}
	return nil
}

// TestUDPFloodRead drives the real socket through a flood: above
// FloodReadRate the reader leaves the runtime's poller and reads in pauses,
// every datagram still arrives once and in order, and floodHold after the
// flood it waits through the poller again.
func TestUDPFloodRead(t *testing.T) {
	u := listenPolledUDP(t)
	defer u.Close()
	pc := PacketConn(u)
	r := newFloodReader(t, u)
	peer := udppeer.Listen(t, 1)[0]
	to := net.UDPAddrFromAddrPort(pc.LocalAddr())
	if !r.polled() {
		t.Fatal("a new socket is not read through the poller")
	}

	r.flood(peer, to)
	if !u.rate.flood || r.polled() {
		t.Fatalf("after a flood: flood %v, polled %v; want the pausing reader", u.rate.flood, r.polled())
	}
	// A trickle: read in pauses until floodHold has passed, then through
	// the poller again.
	r.calm(peer, to, func() bool { return u.rate.flood })
	if !r.polled() {
		t.Fatal("the calm reader is not back on the poller")
	}
}

// TestUDPCloseWakesReader: Close makes a waiting ReadBatch return
// net.ErrClosed, through the poller and in the pausing reader.
func TestUDPCloseWakesReader(t *testing.T) {
	for _, flood := range []bool{false, true} {
		u := listenPolledUDP(t)
		pc := PacketConn(u)
		if flood {
			u.rate.flood = true
			u.unregister()
		}
		rs := []Datagram{{Buf: make([]byte, recvBufSize)}}
		done := make(chan error, 1)
		go func() {
			_, err := u.ReadBatch(rs)
			done <- err
		}()
		time.Sleep(20 * time.Millisecond)
		if err := pc.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("flood %v: ReadBatch after Close: %v, want net.ErrClosed", flood, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("flood %v: ReadBatch still waiting 2 s after Close", flood)
		}
		if _, err := u.WriteTo([]byte{1}, pc.LocalAddr()); !errors.Is(err, net.ErrClosed) {
			t.Errorf("flood %v: WriteTo after Close: %v, want net.ErrClosed", flood, err)
		}
	}
}

// TestUDPFloodReadAllocs: the pausing reader allocates nothing per batch.
func TestUDPFloodReadAllocs(t *testing.T) {
	u := listenPolledUDP(t)
	defer u.Close()
	pc := PacketConn(u)
	u.rate.flood = true
	u.unregister()
	payload := make([]byte, 600)
	ms := make([]Datagram, ReadBatchSize)
	for i := range ms {
		ms[i] = Datagram{Buf: payload, N: len(payload), Addr: pc.LocalAddr()} // to itself
	}
	rs := make([]Datagram, ReadBatchSize)
	for i := range rs {
		rs[i].Buf = make([]byte, recvBufSize)
	}
	round := func() {
		if n, err := u.WriteBatch(ms); err != nil || n != len(ms) {
			t.Fatalf("WriteBatch = %d, %v", n, err)
		}
		for got := 0; got < len(ms); {
			n, err := u.ReadBatch(rs[got:])
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	}
	round()
	if a := testing.AllocsPerRun(50, round); a != 0 {
		t.Errorf("%.1f allocations per batch of %d sent and read while pausing", a, len(ms))
	}
	if !u.rate.flood {
		t.Error("the reader left the flood mode during the test")
	}
}

// TestPacedFloodRead: the paced socket's blocking reader also pauses under
// a flood (FloodReadRate), every datagram still arrives once and in order,
// and after floodHold of calm it blocks in the kernel again.
func TestPacedFloodRead(t *testing.T) {
	pc := listenPaced(t, "127.0.0.1:0")
	u := pc.(*pacedUDP)
	r := newFloodReader(t, u)
	peer := udppeer.Listen(t, 1)[0]
	to := net.UDPAddrFromAddrPort(pc.LocalAddr())
	r.flood(peer, to)
	if !u.rate.flood {
		t.Fatal("after a flood the paced reader does not pause")
	}
	r.calm(peer, to, func() bool { return u.rate.flood })
}
