package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/cienv"
	"twserver/loadclient"
	"twserver/sockio"
)

// TestPacedReaderLoop runs a server on a real socket with in-game clients:
// once they are in game the reader is paced (it reads at the loop's ticks,
// not per datagram), the clients get every snapshot and their inputs arrive
// in time; a burst of datagrams over sockio.PacedBusyDatagrams makes the
// reader read each datagram as it comes, and sockio.PacedHold after it the reader
// is paced again.
func TestPacedReaderLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	pc, err := sockio.ListenPaced("127.0.0.1:0")
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil { // on Linux under CI=true a failure, with the cause
		cienv.Unavailable(t, "the paced socket cannot be set up: %v", err)
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
	// In game after the handshake, and sockio.PacedHold after its last datagram:
	// paced.
	waitPaced := func(want bool, within time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(within); s.pace.Paced() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("reader paced = %v after %v, want %v", s.pace.Paced(), within, want)
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
	waitPaced(true, sockio.PacedHold+time.Second)
	time.Sleep(500 * time.Millisecond)
	if !s.pace.Paced() {
		t.Fatal("reader not paced with every client in game")
	}
	// A burst from a stranger: more than a tick's read takes.
	flood, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(pc.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	garbage := []byte("\x10\x00\x00garbage-not-a-teeworlds-packet")
	for range 2 * sockio.PacedBusyDatagrams {
		_, _ = flood.Write(garbage)
	}
	waitPaced(false, time.Second)
	waitPaced(true, sockio.PacedHold+time.Second)
	wg.Wait()
	// At most one input in lateShare misses its tick (5 %); under the race
	// detector, whose slowdown makes the loop itself late, one in 5. Inputs
	// a client sent late itself (its driver stalled longer than they were
	// late: loadclient's LateOwn) are the test machine's, not the reader's.
	lateShare := int64(20)
	if raceEnabled {
		lateShare = 5
	}
	// A snapshot a client misses must be one the loop skipped itself, having
	// woken late (the test machine stalled it: CI failed once with one such
	// gap for every client at once while two other test runs shared its two
	// cores), and such stalls stay rare: a reader that held the loop up would
	// skip many.
	skipped := s.ticks.SnapsSkipped.Load()
	if skipped > 2 {
		t.Errorf("the loop skipped %d snapshot ticks, waking late", skipped)
	}
	for _, st := range stats {
		if !st.Entered || st.Failure != "" || st.BadSnapshots() != 0 {
			t.Errorf("client %s: entered %v failure %q bad %d", st.Name, st.Entered, st.Failure, st.BadSnapshots())
		}
		if r := st.SnapRateServerTime(); r < 24.5 || uint64(st.SnapGaps) > skipped {
			t.Errorf("client %s: %.2f snapshots/s, %d gaps (the loop skipped %d snapshot ticks)", st.Name, r, st.SnapGaps, skipped)
		}
		if late := st.LateInputs - st.LateOwn; st.Timings < 100 || late*lateShare > st.Timings {
			t.Errorf("client %s: %d INPUTTIMING, %d late sent on time (want under 1 in %d)", st.Name, st.Timings, late, lateShare)
		}
		t.Logf("client %s: %.2f snapshots/s, %d INPUTTIMING (%d late, %d of them sent late by the client), mean time left %d ms",
			st.Name, st.SnapRateServerTime(), st.Timings, st.LateInputs, st.LateOwn, st.TimeLeftSum/max(st.Timings, 1))
	}
	if q := s.Stats().QueueFull.Load(); q != 0 {
		t.Errorf("%d datagrams dropped with the queue full", q)
	}
	if st := s.Stats(); st.Malformed.Load()+st.BadToken.Load() < sockio.PacedBusyDatagrams {
		t.Errorf("burst: %d malformed + %d bad token, want the %d garbage datagrams", st.Malformed.Load(), st.BadToken.Load(), 2*sockio.PacedBusyDatagrams)
	}
}
