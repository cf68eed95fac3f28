package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/testport"
	"twserver/loadclient"
	"twserver/sockio"
)

// UpgradeBenchEnv turns the upgrade benchmark on ("1"); it is off by
// default (100 upgrades take minutes). UpgradeBenchClientsEnv and
// UpgradeBenchUpgradesEnv change its clients (63) and upgrades (100).
const (
	UpgradeBenchEnv         = "TWSERVER_UPGRADE_BENCH"
	UpgradeBenchClientsEnv  = "TWSERVER_UPGRADE_BENCH_CLIENTS"
	UpgradeBenchUpgradesEnv = "TWSERVER_UPGRADE_BENCH_UPGRADES"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// TestUpgradeBench is the benchmark of docs/reliability.md: N twload
// clients (0.7 and DDNet alternating, 63 by default) in game across K
// upgrades in a row (100 by default), each started once every
// client is back in game. It reports the clients dropped, the longest time
// a client waited for a snapshot, the tick backs (a client whose game's
// tick started again: the world did not pass) and the games' hold per
// upgrade, and fails on a dropped client.
//
//	TWSERVER_UPGRADE_BENCH=1 go test -run TestUpgradeBench -v -timeout 60m ./cmd/twserver
func TestUpgradeBench(t *testing.T) {
	if os.Getenv(UpgradeBenchEnv) != "1" {
		t.Skip(UpgradeBenchEnv + "=1 runs the upgrade benchmark")
	}
	clients, upgrades := envInt(UpgradeBenchClientsEnv, 63), envInt(UpgradeBenchUpgradesEnv, 100)
	if clients > 64 {
		t.Fatalf("%d clients: at most 64", clients)
	}
	heavytest.Lock(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "twserver")
	buildServer(t, bin, "-X main.version=upgrade-bench")
	port := testport.Pick(t)
	r, _ := startConsoleRig(t, bin, upgradeConfig(port, 64))
	out := r.out

	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	var in atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sums := make(chan loadclient.Summary, 1)
	go func() {
		sum, err := loadclient.Run(ctx, loadclient.RunConfig{
			Server: addr, Clients: clients, RampUp: 2 * time.Second, Duration: time.Duration(upgrades)*10*time.Second + time.Minute,
			Pattern: loadclient.PatternRandom, Seed: 1, Sources: clients, SourceBase: netip.MustParseAddr("127.0.0.1"),
			NamePrefix: "bench", EnterTimeout: 20 * time.Second, Proto: loadclient.ProtoMix,
			Status: func(s loadclient.Status) { in.Store(int32(s.InGame)) },
		})
		if err != nil && ctx.Err() == nil {
			t.Errorf("twload: %v", err)
		}
		sums <- sum
	}()
	waitUntil(t, "every client in game", 30*time.Second, func() bool { return int(in.Load()) == clients })
	start := time.Now()
	for i := range upgrades {
		if line := r.upgrade(); !strings.Contains(line, "the new process serves") {
			t.Fatalf("upgrade %d: %s", i+1, line)
		}
		in.Store(0)
		waitUntil(t, fmt.Sprintf("upgrade %d: every client back in game", i+1), 20*time.Second, func() bool { return int(in.Load()) == clients })
		time.Sleep(sockio.PacedHold + 200*time.Millisecond)
	}
	took := time.Since(start)
	cancel()
	sum := <-sums
	var holds []float64
	for _, m := range regexp.MustCompile(`serves; this one exits paused_ms=([0-9.]+)`).FindAllStringSubmatch(out.String(), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		holds = append(holds, v)
	}
	maxHold := 0.0
	for _, h := range holds {
		maxHold = max(maxHold, h)
	}
	t.Logf("%d upgrades in %v with %d clients: connected %d, failed %d, failures %v, timeouts %d; "+
		"longest time between snapshots %.0f ms; tick backs %d (%.1f per client per upgrade); games held max %.1f ms; crc %d delta %d",
		upgrades, took.Round(time.Second), clients, sum.Connected, sum.Failed, sum.Failures, sum.Timeouts,
		sum.MaxSnapIntervalMs, sum.TickBacks, float64(sum.TickBacks)/float64(clients*upgrades), maxHold,
		sum.CRCErrors, sum.DeltaErrors)
	if sum.Connected != clients || sum.Failed != 0 || len(sum.Failures) != 0 || sum.Timeouts != 0 {
		t.Errorf("clients dropped: connected %d of %d, failures %v", sum.Connected, clients, sum.Failures)
	}
}
