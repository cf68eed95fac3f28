package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testport"
	"twserver/loadclient"
)

// Bounds of the soak (issue 11, proof 6; scripts/soak.sh runs the hour).
const (
	soakSample   = 10 * time.Second // sampling interval
	soakMaxDrift = 0.10             // RSS and heap within 10 % of the baseline
	soakTickP99  = 5 * time.Millisecond
	// soakCISkippedShare bounds the skipped ticks of the CI soak (TestSoak2m)
	// on a machine shared with other test packages: 0.1 %, 6 of 6000.
	soakCISkippedShare = 0.001
	soakCIDur          = 2 * time.Minute
	soakCIBaseAt       = time.Minute // baseline sample of the CI run (the hour uses minute 5)
	soakCIClients      = 63
)

// soakSampleOf is one scrape of the server's /metrics.
type soakSampleOf struct {
	at                 time.Duration
	rss, heapGoal      float64 // RSS; Go heap goal (live heap after the last GC plus GOGC's headroom)
	heapInUse, gcs     float64
	ticks, skipped     float64
	tickLE5ms, tickAll float64 // wake-up work histogram: count at le=0.005 and in total
	tickLE10ms         float64 // and at le=0.01, the bound of a wake-up that runs two ticks
}

// scrapeSoak reads the figures the soak checks from a /metrics page.
func scrapeSoak(url string) (soakSampleOf, error) {
	var s soakSampleOf
	resp, err := http.Get(url)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 4<<20))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		switch name {
		case "process_resident_memory_bytes":
			s.rss = v
		case "go_memstats_next_gc_bytes":
			s.heapGoal = v
		case "go_memstats_heap_inuse_bytes":
			s.heapInUse = v
		case "go_gc_duration_seconds_count":
			s.gcs = v
		case "twserver_ticks_total":
			s.ticks = v
		case "twserver_ticks_skipped_total":
			s.skipped = v
		case `twserver_tick_duration_seconds_bucket{le="0.005"}`:
			s.tickLE5ms = v
		case `twserver_tick_duration_seconds_bucket{le="0.01"}`:
			s.tickLE10ms = v
		case "twserver_tick_duration_seconds_count":
			s.tickAll = v
		}
	}
	return s, sc.Err()
}

// soakGOGC is the server's GOGC in TestSoak2m.
const soakGOGC = "10"

// TestSoak2m is the CI version of the soak: 63 clients for 2 minutes
// against the twserver binary; every 10 s its RSS and Go heap goal (from
// /metrics: go_memstats_next_gc_bytes, which follows the live heap, the
// server run with GOGC=soakGOGC, as a mean of 3 samples; the heap in use
// saw-tooths between GCs and is only logged) stay within 10 % of
// their value at minute 1, and over the run
// at least 99 % of the wake-ups take under 5 ms of work per tick they run
// (p99 < 5 ms a tick; a lone game runs its ticks in pairs, so 10 ms a
// wake-up) with next to no tick skipped.
func TestSoak2m(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 2-minute soak")
	}
	heavytest.Lock(t)
	bin := buildTwserver(t)
	dir := t.TempDir()
	port := refserver.FreeUDPPort(t)
	mport := testport.Pick(t)
	cfg := fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = %d\nmax_clients = 64\nplayer_slots = %d\nmax_clients_per_ip = %d\n"+
		"[game]\ninactive_kick_time = 0\n[metrics]\nlisten = \"127.0.0.1:%d\"\n", port, fullSlots, fullPerIP, mport)
	cfgPath := filepath.Join(dir, "twserver.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", cfgPath, "-no-console", "-log-level", "warn")
	cmd.Dir = dir
	// At the default target a 63-client game collects about once a minute,
	// so the heap goal at minute 1 could date from the ramp-up's first
	// seconds and the next collection's step look like growth. With
	// soakGOGC it collects every few seconds: the goal follows the live
	// heap, and 10 % of it is a leak, not a collection's timing.
	cmd.Env = append(os.Environ(), "GOGC="+soakGOGC)
	startProcess(t, cmd, "")
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sumc := make(chan loadclient.Summary, 1)
	go func() {
		s, err := loadclient.Run(ctx, loadclient.RunConfig{
			Server: netip.MustParseAddrPort(fmt.Sprintf("127.0.0.1:%d", port)), Clients: soakCIClients,
			RampUp: fullRampUp, Duration: soakCIDur - fullRampUp, Pattern: loadclient.PatternRandom, Seed: 11,
			Sources: fullSources, SourceBase: netip.MustParseAddr("127.0.0.2"),
		})
		if err != nil {
			t.Error(err)
		}
		sumc <- s
	}()
	start := time.Now()
	var samples []soakSampleOf
	for at := soakSample; at <= soakCIDur; at += soakSample {
		time.Sleep(time.Until(start.Add(at)))
		s, err := scrapeSoak(url)
		if err != nil {
			t.Fatalf("scrape at %v: %v", at, err)
		}
		s.at = at
		samples = append(samples, s)
		t.Logf("%4.0f s: rss %.1f MB, heap goal %.1f MB (in use %.1f MB, %.0f GCs), ticks %.0f skipped %.0f",
			at.Seconds(), s.rss/1e6, s.heapGoal/1e6, s.heapInUse/1e6, s.gcs, s.ticks, s.skipped)
	}
	sum := <-sumc
	if !sum.OK() {
		t.Errorf("load run not clean: %d/%d in game, failures %v, crc %d", sum.Connected, sum.Clients, sum.Failures, sum.CRCErrors)
	}
	// RSS moves smoothly: each sample from minute 1 on against minute 1's.
	// The heap goal steps at each collection (every few seconds here), so
	// it is compared as the mean of three samples: those around minute 1
	// against each later run of three.
	at := map[time.Duration]soakSampleOf{}
	for _, s := range samples {
		at[s.at] = s
	}
	base := at[soakCIBaseAt]
	goalMean := func(mid time.Duration) float64 {
		return (at[mid-soakSample].heapGoal + at[mid].heapGoal + at[mid+soakSample].heapGoal) / 3
	}
	baseGoal := goalMean(soakCIBaseAt)
	drift := func(v, b float64) bool { return b <= 0 || (v-b)/b > soakMaxDrift || (b-v)/b > soakMaxDrift }
	for _, s := range samples {
		if s.at < soakCIBaseAt {
			continue
		}
		if drift(s.rss, base.rss) {
			t.Errorf("%v: RSS %.1f MB, baseline %.1f MB at %v: beyond %.0f %%", s.at, s.rss/1e6, base.rss/1e6, soakCIBaseAt, soakMaxDrift*100)
		}
		if _, ok := at[s.at+soakSample]; !ok || s.at <= soakCIBaseAt+soakSample {
			continue
		}
		if g := goalMean(s.at); drift(g, baseGoal) {
			t.Errorf("%v: Go heap goal %.1f MB (mean of 3 samples), baseline %.1f MB around %v: beyond %.0f %%", s.at, g/1e6, baseGoal/1e6, soakCIBaseAt, soakMaxDrift*100)
		}
	}
	last := samples[len(samples)-1]
	// twserver_tick_duration_seconds observes each wake-up's work; a lone
	// game ticks in pairs (server/pairs.go), so most wake-ups run two
	// ticks and the budget of a wake-up is two ticks' (5 ms each).
	perWake, under := 1.0, last.tickLE5ms
	if last.tickAll > 0 && last.ticks/last.tickAll > 1.5 {
		perWake, under = 2, last.tickLE10ms
	}
	budget := time.Duration(perWake) * soakTickP99
	if last.tickAll == 0 || under < 0.99*last.tickAll {
		t.Errorf("%.0f of %.0f wake-ups (%.2f ticks each) under %v of work: p99 not under it", under, last.tickAll, last.ticks/last.tickAll, budget)
	}
	// The 60-minute script on an idle host asks for 0 skipped ticks. Here
	// other test packages share the 2 cores, and a late OS wake-up makes
	// the loop run a tick back to back (skipped, never lost): at most
	// soakCISkippedShare of them pass, more fail.
	if last.ticks == 0 || last.skipped > soakCISkippedShare*last.ticks {
		t.Errorf("%.0f ticks skipped of %.0f: more than %.1f %%", last.skipped, last.ticks, 100*soakCISkippedShare)
	}
	t.Logf("snapshots/s per client %+v; wake-ups under %v of work: %.2f %% (under 5 ms: %.2f %%)", sum.SnapsPerSec, budget, 100*under/last.tickAll, 100*last.tickLE5ms/last.tickAll)
}
