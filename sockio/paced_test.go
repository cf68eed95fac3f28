package sockio

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"twserver/internal/cienv"
)

// listenPaced opens the paced socket on addr. Where the system has none
// the test skips; where its setup fails it skips with the cause, except on
// Linux under CI=true, where it fails (cienv): there the paced socket is
// the production socket, and a test that skipped would hide its loss.
func listenPaced(t *testing.T, addr string) PacedConn {
	t.Helper()
	p, err := ListenPaced(addr)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		cienv.Unavailable(t, "the paced socket cannot be set up: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestReadPacedStamps: ReadPaced returns at once on an empty socket, and
// datagrams read 30 ms after they were sent carry the kernel's arrival
// time, not the time of the read.
func TestReadPacedStamps(t *testing.T) {
	p := listenPaced(t, "127.0.0.1:0")
	bufs := make([][recvBufSize]byte, ReadBatchSize)
	ms := make([]Datagram, ReadBatchSize)
	at := make([]time.Time, ReadBatchSize)
	for i := range ms {
		ms[i].Buf = bufs[i][:]
	}
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(p.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The kernel turns its arrival stamps on lazily: the first datagram
	// after a socket asked for them may be stamped when it is read.
	_, _ = c.Write([]byte("warm-up"))
	time.Sleep(10 * time.Millisecond)
	if n, err := p.ReadPaced(ms, at); n != 1 || err != nil {
		t.Fatalf("warm-up: %d, %v", n, err)
	}
	start := time.Now()
	if n, err := p.ReadPaced(ms, at); n != 0 || err != nil {
		t.Fatalf("empty socket: %d, %v", n, err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("ReadPaced on an empty socket took %v", d)
	}
	sent := make([]time.Time, 3)
	for i := range sent {
		sent[i] = time.Now()
		if _, err := c.Write([]byte(fmt.Sprintf("datagram %d", i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(30 * time.Millisecond)
	n, err := p.ReadPaced(ms, at)
	read := time.Now()
	if n != 3 || err != nil {
		t.Fatalf("read %d datagrams, %v; want 3", n, err)
	}
	from := c.LocalAddr().(*net.UDPAddr).AddrPort()
	for i := range n {
		if got, want := string(ms[i].Buf[:ms[i].N]), fmt.Sprintf("datagram %d", i); got != want || ms[i].Addr != from {
			t.Errorf("datagram %d: %q from %v, want %q from %v", i, got, ms[i].Addr, want, from)
		}
		// Arrival within 2 ms of the send (loopback), 30 ms and more before the read.
		if d := at[i].Sub(sent[i]); d < -time.Millisecond || d > 2*time.Millisecond {
			t.Errorf("datagram %d: stamped %v after it was sent", i, d)
		}
		if d := read.Sub(at[i]); d < 30*time.Millisecond {
			t.Errorf("datagram %d: stamped %v before the read, want >= 30ms (the read time, not the arrival)", i, d)
		}
	}
	if n, err := p.ReadPaced(ms, at); n != 0 || err != nil {
		t.Errorf("drained socket: %d, %v", n, err)
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = p.ReadPaced(ms, at) }); a != 0 {
		t.Errorf("ReadPaced allocates %.1f times per call", a)
	}
}
