package server

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/loadclient"
)

// pacedConn opens a loopback UDP socket with ReadPaced, skipping where the
// platform has none.
func pacedConn(t *testing.T) PacedConn {
	t.Helper()
	pc, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	p, ok := pc.(PacedConn)
	if !ok {
		t.Skip("no paced reads on this platform")
	}
	return p
}

// TestReadPacedStamps: ReadPaced returns at once on an empty socket, and
// datagrams read 30 ms after they were sent carry the kernel's arrival
// time, not the time of the read.
func TestReadPacedStamps(t *testing.T) {
	p := pacedConn(t)
	bufs := make([][RecvBufSize]byte, ReadBatchSize)
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

// TestPacedReaderLoop runs a server on a real socket with in-game clients:
// once they are in game the reader is paced (it reads at the loop's ticks,
// not per datagram), the clients get every snapshot and their inputs arrive
// in time; a burst of datagrams over PacedBusyDatagrams makes the
// reader read each datagram as it comes, and PacedHold after it the reader
// is paced again.
func TestPacedReaderLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	pc, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pc.(PacedConn); !ok {
		pc.Close()
		t.Skip("no paced reads on this platform")
	}
	cfg := config.Default()
	cfg.Server.MaxClientsPerIP = 8
	cfg.Game.InactiveKickTime = 0
	s, err := New(Options{Config: cfg, Conn: pc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	defer func() { cancel(); <-done }()

	cctx, ccancel := context.WithTimeout(ctx, 8*time.Second)
	defer ccancel()
	var wg sync.WaitGroup
	stats := make([]loadclient.Stats, 3) // within the pre-game bound per address
	clients := make([]*loadclient.Client, len(stats))
	for i := range stats {
		clients[i] = loadclient.New(loadclient.Config{Server: pc.LocalAddr(), Name: fmt.Sprintf("paced%d", i),
			Pattern: loadclient.PatternRandom, Seed: uint64(i + 1)})
		wg.Go(func() { stats[i] = clients[i].Run(cctx) })
	}
	// In game after the handshake, and PacedHold after its last datagram:
	// paced.
	waitPaced := func(want bool, within time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(within); s.pace.on.Load() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("reader paced = %v after %v, want %v", s.pace.on.Load(), within, want)
			}
		}
	}
	for _, cl := range clients {
		for deadline := time.Now().Add(5 * time.Second); !cl.Entered(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("clients not in game after 5 s: %+v", cl.Live())
			}
		}
	}
	waitPaced(true, PacedHold+time.Second)
	time.Sleep(500 * time.Millisecond)
	if !s.pace.on.Load() {
		t.Fatal("reader not paced with every client in game")
	}
	// A burst from a stranger: more than a tick's read takes.
	flood, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(pc.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	garbage := []byte("\x10\x00\x00garbage-not-a-teeworlds-packet")
	for range 2 * PacedBusyDatagrams {
		_, _ = flood.Write(garbage)
	}
	waitPaced(false, time.Second)
	waitPaced(true, PacedHold+time.Second)
	wg.Wait()
	// At most one input in lateShare misses its tick (5 %); under the race
	// detector, whose slowdown makes the loop itself late, one in 5.
	lateShare := int64(20)
	if raceEnabled {
		lateShare = 5
	}
	for _, st := range stats {
		if !st.Entered || st.Failure != "" || st.BadSnapshots() != 0 {
			t.Errorf("client %s: entered %v failure %q bad %d", st.Name, st.Entered, st.Failure, st.BadSnapshots())
		}
		if r := st.SnapRateServerTime(); r < 24.5 || st.SnapGaps != 0 {
			t.Errorf("client %s: %.2f snapshots/s, %d gaps", st.Name, r, st.SnapGaps)
		}
		if st.Timings < 100 || st.LateInputs*lateShare > st.Timings {
			t.Errorf("client %s: %d INPUTTIMING, %d late (want under 1 in %d)", st.Name, st.Timings, st.LateInputs, lateShare)
		}
		t.Logf("client %s: %.2f snapshots/s, %d INPUTTIMING, mean time left %d ms", st.Name, st.SnapRateServerTime(), st.Timings, st.TimeLeftSum/max(st.Timings, 1))
	}
	if q := s.Stats().QueueFull.Load(); q != 0 {
		t.Errorf("%d datagrams dropped with the queue full", q)
	}
	if st := s.Stats(); st.Malformed.Load()+st.BadToken.Load() < PacedBusyDatagrams {
		t.Errorf("burst: %d malformed + %d bad token, want the %d garbage datagrams", st.Malformed.Load(), st.BadToken.Load(), 2*PacedBusyDatagrams)
	}
}
