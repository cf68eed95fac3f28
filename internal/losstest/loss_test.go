package losstest

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"
	"twserver/internal/servertest"

	"twserver/config"
	"twserver/internal/bigmap"
	"twserver/internal/heavytest"
	"twserver/loadclient"
)

// The loss profiles of the reliability measurements (docs/reliability.md "Loss and
// jitter"), each run with lossClients clients that all download the 2 MB
// map of package bigmap. The durations are the CI versions; scripts/loss.sh
// runs them for 120 s each.
const (
	lossClients = 32
	// lossSources gives each client its own address, as 32 players on the
	// internet have: with several per address, the slow downloads under
	// loss would meet the server's pre-game bound per address
	// (edge.MaxPregamePerIP), which is what it is for.
	lossSources = lossClients
	lossRampUp  = 2 * time.Second
	// lossRecoveryBound is the most time from the end of P4's blackout to
	// every client's next verified snapshot (measured 1.5-28 ms: the server
	// never stops sending, and deltas resume from the last acknowledged
	// snapshot, which it still stores).
	lossRecoveryBound = time.Second
	// lossP3MapBound bounds the median map download at P3 on loopback
	// (measured 0.8-0.9 s on an idle machine, 1.9 s while other tests
	// loaded it, with the client flushing as
	// the 0.7.5 client does; the bound leaves room for a loaded CI
	// machine: the server's probes run at its ticks, and the clients' at
	// their 5 ms wake-ups. With fixed 20/50 ms probes and 16 chunks in
	// flight no client finished in 25 s, nor with the reference server).
	lossP3MapBound = 4 * time.Second
	// lossDelay is the base delay each way of the P0d and P3d runs: P0
	// and P3 with a realistic round trip (loopback has none, so P0 takes
	// 10-30 ms and any recovery is many times that).
	lossDelay = 20 * time.Millisecond
	// lossP3dRatioBound is the bound on the median map download at
	// P3 against P0, asserted with lossDelay (measured 1.5x: 3.5 s against
	// 2.3 s; 2.4x while other tests loaded the machine).
	lossP3dRatioBound = 3.0
)

type lossProfile struct {
	name     string
	netem    *loadclient.Netem
	duration time.Duration
}

func lossProfiles() []lossProfile {
	both := func(m loadclient.Impair) *loadclient.Netem { return &loadclient.Netem{Up: m, Down: m} }
	return []lossProfile{
		{"P0", nil, 15 * time.Second},
		{"P1", both(loadclient.Impair{Loss: 0.05, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}), 25 * time.Second},
		// at 100 ms each way the download needs at least 1503 chunks / 32
		// per 200 ms round trip = 9.4 s (about 21 s measured)
		{"P2", both(loadclient.Impair{Loss: 0.10, Reorder: 0.10, Dup: 0.01, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}), 50 * time.Second},
		{"P3", both(loadclient.Impair{Loss: 0.20}), 30 * time.Second},
		{"P4", &loadclient.Netem{BlackoutAt: 8 * time.Second, Blackout: 2 * time.Second}, 15 * time.Second},
		{"P0d", both(loadclient.Impair{Delay: lossDelay}), 15 * time.Second},
		{"P3d", both(loadclient.Impair{Loss: 0.20, Delay: lossDelay}), 20 * time.Second},
	}
}

// startLossServer runs an in-process twserver serving mapFile on a free
// loopback port: 64 slots, 16 playing, 4 per address, no inactivity kick.
func startLossServer(t *testing.T, mapFile string) netip.AddrPort {
	t.Helper()
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", 0
	cfg.Server.MaxClients, cfg.Server.PlayerSlots, cfg.Server.MaxClientsPerIP = 64, 16, 4
	cfg.Map.File = mapFile
	cfg.Game.InactiveKickTime = 0
	return servertest.Start(t, cfg)
}

// TestLossProfiles is proof 4 of the reliability issue in its CI length:
// 32 clients download the 2 MB map and play through P0-P4 (impairment
// inside the clients' sockets, a fresh server per profile).
func TestLossProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the loss profiles (about 3.5 minutes)")
	}
	heavytest.Lock(t)
	data, err := bigmap.Generate()
	if err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(t.TempDir(), bigmap.Name+".map")
	if err := os.WriteFile(mapFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var p0Map, p0dMap float64
	for _, p := range lossProfiles() {
		t.Run(p.name, func(t *testing.T) {
			addr := startLossServer(t, mapFile)
			sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
				Server: addr, Clients: lossClients, RampUp: lossRampUp, Duration: p.duration,
				Pattern: loadclient.PatternRandom, Seed: 11, Sources: lossSources,
				SourceBase: netip.MustParseAddr("127.0.0.2"), FreshMaps: true,
				EnterTimeout: p.duration, Netem: p.netem,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): in game %d/%d, failures %v, map downloads %d in %+v ms, enter %+v ms, snapshot coverage %+v, %.1f snapshots/s per client (server time), too weak %d, timeouts %d, injected up %+v down %+v",
				p.name, p.netem, sum.Connected, sum.Clients, sum.Failures, sum.MapDownloads, sum.MapDownloadMs, sum.ConnectMs,
				sum.SnapCoverage, sum.SnapsPerServerSec.Mean, sum.TooWeak, sum.Timeouts, sum.Injected.Up, sum.Injected.Down)
			// The impairment did what the profile asks, within binomial
			// bounds: a lossless or undelayed path fails here.
			var netem loadclient.Netem
			if p.netem != nil {
				netem = *p.netem
			}
			for _, d := range []struct {
				name string
				s    loadclient.LinkStats
				imp  loadclient.Impair
			}{{"up", sum.Injected.Up, netem.Up}, {"down", sum.Injected.Down, netem.Down}} {
				for _, err := range CheckLink(d.s, d.imp, netem.Blackout > 0) {
					t.Errorf("%s: injected %s: %v (counters %+v)", p.name, d.name, err, d.s)
				}
			}
			if bad := sum.CRCErrors + sum.DeltaErrors + sum.BadItems + sum.BadMessages; bad > 0 {
				t.Errorf("%d bad snapshots, items or messages: %s", bad, sum.FirstBadNote)
			}
			if sum.TooWeak > 0 {
				t.Errorf("%d clients dropped for a too weak connection", sum.TooWeak)
			}
			switch p.name {
			case "P3", "P3d":
				if min := lossClients * 95 / 100; sum.Connected < min || sum.MapDownloads < min {
					t.Errorf("%s: %d in game, %d map downloads; want at least %d", p.name, sum.Connected, sum.MapDownloads, min)
				}
				if p50 := time.Duration(sum.MapDownloadMs.P50 * 1e6); p.name == "P3" && p50 > lossP3MapBound {
					t.Errorf("P3: median map download %v, want at most %v", p50, lossP3MapBound)
				}
				if p.name == "P3" && p0Map > 0 {
					t.Logf("P3/P0 median map download: %.0fx (%.0f ms / %.0f ms)", sum.MapDownloadMs.P50/p0Map, sum.MapDownloadMs.P50, p0Map)
				}
				if p.name == "P3d" && p0dMap > 0 {
					ratio := sum.MapDownloadMs.P50 / p0dMap
					t.Logf("P3d/P0d median map download: %.1fx (%.0f ms / %.0f ms)", ratio, sum.MapDownloadMs.P50, p0dMap)
					if ratio > lossP3dRatioBound {
						t.Errorf("P3d: median map download %.1fx P0d's, want at most %.1fx", ratio, lossP3dRatioBound)
					}
				}
			default:
				if sum.Connected != lossClients || sum.MapDownloads != lossClients || sum.Failed != 0 {
					t.Errorf("%s: %d in game, %d map downloads, failures %v; want all %d", p.name, sum.Connected, sum.MapDownloads, sum.Failures, lossClients)
				}
			}
			switch p.name {
			case "P0":
				p0Map = sum.MapDownloadMs.P50
			case "P0d":
				p0dMap = sum.MapDownloadMs.P50
			}
			if p.name == "P4" {
				t.Logf("P4: %d in game before the blackout, %d recovered in %+v ms", sum.BlackoutInGame, sum.BlackoutRecovered, sum.BlackoutRecoveryMs)
				if sum.BlackoutInGame != lossClients || sum.BlackoutRecovered != lossClients {
					t.Errorf("P4: %d clients in game before the blackout, %d recovered; want %d", sum.BlackoutInGame, sum.BlackoutRecovered, lossClients)
				}
				if max := time.Duration(sum.BlackoutRecoveryMs.Max * 1e6); max > lossRecoveryBound {
					t.Errorf("P4: snapshots resumed up to %v after the blackout, want at most %v", max, lossRecoveryBound)
				}
			}
		})
	}
}
