package main

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
	"twserver/internal/servertest"

	"twserver/config"
	"twserver/loadclient"
)

// startTwserver runs an in-process twserver on a free loopback port until
// the test ends.
func startTwserver(t *testing.T, maxClients, perIP int) netip.AddrPort {
	t.Helper()
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Server.MaxClients = maxClients
	cfg.Server.MaxClientsPerIP = perIP
	return servertest.Start(t, cfg)
}

// TestAgainstTwserver runs 8 clients for 5 s against twserver, spread over
// 2 source addresses under its per-IP limit of 4, and requires a clean run.
func TestAgainstTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 5 s run against twserver")
	}
	addr := startTwserver(t, 16, 4)
	sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
		Server: addr, Clients: 8, RampUp: 500 * time.Millisecond, Duration: 5 * time.Second,
		Pattern: loadclient.PatternRandom, Seed: 9, Sources: 2, SourceBase: netip.MustParseAddr("127.0.0.2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("connected %d snaps/s %+v latency %+v s2c B/s %+v", sum.Connected, sum.SnapsPerSec, sum.LatencyMs, sum.BytesInPerSec)
	if !sum.OK() || sum.MapDownloads < 1 {
		t.Fatalf("run not clean: %+v", sum)
	}
	t.Logf("snapshot spacing beyond the tick interval %+v, gaps %d", sum.SnapSpacingMs, sum.SnapGaps)
	if sum.SnapSpacingMs.Samples < uint64(sum.Snapshots)/2 {
		t.Errorf("snapshot spacing measured %d times for %d snapshots", sum.SnapSpacingMs.Samples, sum.Snapshots)
	}
	if sum.SnapsPerSec.Min < 5 { // 25 on an idle machine
		t.Errorf("snapshots per second per client %+v, want about 25", sum.SnapsPerSec)
	}
}

// TestTwserverPerIPLimit: a fifth client from one address is refused with a reason.
func TestTwserverPerIPLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startTwserver(t, 16, 4)
	sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
		Server: addr, Clients: 5, Duration: 2 * time.Second, Pattern: loadclient.PatternIdle,
		Sources: 1, SourceBase: netip.MustParseAddr("127.0.0.1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Connected != 4 || sum.Failed != 1 {
		t.Fatalf("connected %d failed %d %v", sum.Connected, sum.Failed, sum.Failures)
	}
	for reason := range sum.Failures {
		if !strings.Contains(reason, "same IP") {
			t.Errorf("failure reason %q", reason)
		}
	}
}

// TestMixAgainstTwserver runs 4 clients of each dialect (0.7, and DDNet's
// 0.6 with the security token) for 5 s in one game: all enter, every
// snapshot passes its CRC, delta and item checks and every message decodes.
func TestMixAgainstTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startTwserver(t, 16, 4)
	sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
		Server: addr, Clients: 8, RampUp: 500 * time.Millisecond, Duration: 5 * time.Second,
		Pattern: loadclient.PatternRandom, Seed: 3, Sources: 2, SourceBase: netip.MustParseAddr("127.0.0.2"),
		Proto: loadclient.ProtoMix,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("connected %d (0.6: %d) snaps/s %+v", sum.Connected, sum.Clients6, sum.SnapsPerSec)
	if !sum.OK() || sum.Clients6 != 4 || sum.UnknownMsgs != 0 {
		t.Fatalf("run not clean: %+v", sum)
	}
	if sum.SnapsPerSec.Min < 5 { // 25 on an idle machine
		t.Errorf("snapshots per second per client %+v, want about 25", sum.SnapsPerSec)
	}
}

// TestMixPerIPLimit: the per-IP limit counts both dialects: with a limit
// of 3, two 0.7 and one 0.6 client from one address get in, and the
// fourth (0.6) is refused with the reference text over 0.6.
func TestMixPerIPLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startTwserver(t, 16, 3)
	sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
		Server: addr, Clients: 4, RampUp: 400 * time.Millisecond, Duration: 4 * time.Second, Pattern: loadclient.PatternIdle,
		Sources: 1, SourceBase: netip.MustParseAddr("127.0.0.1"), Proto: loadclient.ProtoMix,
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Connected != 3 || sum.Failed != 1 {
		t.Fatalf("connected %d failed %d %v; clients %+v", sum.Connected, sum.Failed, sum.Failures, sum.PerClient)
	}
	for _, st := range sum.PerClient {
		if st.Failure != "" && (st.Proto != "0.6" || !strings.Contains(st.Failure, "Only 3 players with the same IP")) {
			t.Errorf("client %d (%s) failed with %q", st.Index, st.Proto, st.Failure)
		}
	}
}

// TestVanillaAgainstTwserver: vanilla 0.6 clients (no token) get in
// through the server's anti-spoof handshake (the tiny map and the
// snapshot tick they acknowledge), then download the real map and play.
func TestVanillaAgainstTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startTwserver(t, 16, 4)
	sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
		Server: addr, Clients: 3, RampUp: 300 * time.Millisecond, Duration: 3 * time.Second,
		Pattern: loadclient.PatternRandom, Seed: 5, Proto: loadclient.Proto06Vanilla,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.OK() || sum.Clients6 != 3 || sum.MapDownloads < 2 {
		t.Fatalf("run not clean: %+v", sum)
	}
}
