package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/nodns"
	"twserver/internal/refserver"
	"twserver/loadclient"
)

// The full-load runs: 63 clients (one short of the 64 slots) for 30 s after
// a 5 s ramp-up, spread over 16 loopback source addresses while the server
// allows 4 clients per address, 16 of them playing and the rest spectating.
const (
	fullClients  = 63
	fullDuration = 30 * time.Second
	fullRampUp   = 5 * time.Second
	fullSources  = 16
	fullPerIP    = 4
	fullSlots    = 16
)

// startProcess runs cmd until the test ends and waits until its output
// contains ready. The process is stopped with SIGTERM (SIGKILL after 5 s).
func startProcess(t *testing.T, cmd *exec.Cmd, ready string) *refserver.Buffer {
	t.Helper()
	var out refserver.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), ready) {
		select {
		case <-exited:
			t.Fatalf("%s exited before it was ready:\n%s", cmd.Path, out.String())
		case <-deadline:
			t.Fatalf("%s not ready after 20 s:\n%s", cmd.Path, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return &out
}

// buildTwserver builds a static cmd/twserver into a temporary directory.
func buildTwserver(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build twserver with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "twserver")
	start := time.Now()
	build := exec.Command(gobin, "build", "-trimpath", "-o", bin, "twserver/cmd/twserver")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the scripts and images build it
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build twserver: %v\n%s", err, out)
	}
	t.Logf("built twserver in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// startTwserverBinary runs the twserver binary on a free loopback port with
// the full-load settings.
func startTwserverBinary(t *testing.T) string {
	t.Helper()
	addr, _ := startTwserverProcess(t)
	return addr
}

// startTwserverProcess is startTwserverBinary that also returns the
// server's process id.
func startTwserverProcess(t *testing.T) (string, int) {
	t.Helper()
	bin := buildTwserver(t)
	dir := t.TempDir()
	port := refserver.FreeUDPPort(t)
	cfg := fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = %d\nmax_clients = 64\nplayer_slots = %d\nmax_clients_per_ip = %d\n"+
		"[game]\ninactive_kick_time = 0\n", port, fullSlots, fullPerIP)
	cfgPath := filepath.Join(dir, "twserver.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", cfgPath, "-no-console", "-log-level", "info")
	cmd.Dir = dir
	startProcess(t, cmd, "server started")
	return fmt.Sprintf("127.0.0.1:%d", port), cmd.Process.Pid
}

// startReferenceServer runs the 0.7.5 reference server on a free loopback
// port (never registering with a master) with the full-load settings.
func startReferenceServer(t *testing.T) string {
	t.Helper()
	bin := refserver.Require(t)
	dir := t.TempDir()
	port := refserver.FreeUDPPort(t)
	cmd := nodns.Command(bin, refserver.Args(refserver.Settings{
		Port: port, Name: "twload-full", LogLevel: 1, PerIP: fullPerIP, PlayerSlots: fullSlots})...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	startProcess(t, cmd, refserver.Ready)
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// runFullLoad runs the twload command (in process, as from the shell) with
// the full-load settings against addr and returns its JSON summary.
func runFullLoad(t *testing.T, addr string, extra ...string) loadclient.Summary {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "summary.json")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	args := []string{"-addr", addr, "-n", fmt.Sprint(fullClients), "-duration", fullDuration.String(),
		"-rampup", fullRampUp.String(), "-sources", fmt.Sprint(fullSources), "-source-base", "127.0.0.2",
		"-pattern", "random", "-seed", "7", "-status", "off", "-per-client", "-json", jsonPath}
	code := run(append(args, extra...), &stdout, &stderr)
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("twload exit %d, no summary: %v\n%s", code, err, stderr.String())
	}
	var sum loadclient.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("twload exit %d after %v: connected %d/%d failed %d %v crc %d delta %d no_base %d bad items %d msgs %d",
		code, time.Since(start).Round(time.Millisecond), sum.Connected, sum.Clients, sum.Failed, sum.Failures,
		sum.CRCErrors, sum.DeltaErrors, sum.NoBase, sum.BadItems, sum.BadMessages)
	t.Logf("snapshots/s per client %+v; server made %.2f/s; coverage %+v", sum.SnapsPerSec, sum.ServerSnapsPerSec, sum.SnapCoverage)
	t.Logf("inputs/s per client %+v (send delay ms %+v, skipped %d); latency ms %+v; s2c B/s %+v",
		sum.InputsPerSec, sum.InputDelayMs, sum.SkippedInputs, sum.LatencyMs, sum.BytesInPerSec)
	if code != 0 || !sum.OK() {
		t.Errorf("twload exit %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	if sum.Connected != fullClients || sum.Failed != 0 {
		t.Errorf("%d/%d clients in game, failures %v", sum.Connected, fullClients, sum.Failures)
	}
	if sum.CRCErrors != 0 || sum.DeltaErrors != 0 || sum.BadItems != 0 || sum.BadMessages != 0 {
		t.Errorf("bad snapshots or messages: crc %d delta %d items %d messages %d; first: %s",
			sum.CRCErrors, sum.DeltaErrors, sum.BadItems, sum.BadMessages, sum.FirstBadNote)
	}
	srcs := map[string]int{}
	for _, c := range sum.PerClient {
		h, _, _ := net.SplitHostPort(c.Source)
		srcs[h]++
	}
	if len(srcs) != fullSources {
		t.Errorf("clients used %d source addresses, want %d", len(srcs), fullSources)
	}
	for h, n := range srcs {
		if n > fullPerIP {
			t.Errorf("%d clients from %s, over the per-IP limit %d", n, h, fullPerIP)
		}
	}
	// every client kept the real clients' pace (catching up after a late
	// wake-up): the random pattern changes its input every 5th tick, so 3
	// INPUTs in 5 ticks, 30 a second (loadclient.TestPace)
	if sum.InputsPerSec.Min < 28.5 || sum.InputsPerSec.Max > 31 || sum.SkippedInputs != 0 {
		t.Errorf("inputs per second per client %+v, %d skipped; want 30", sum.InputsPerSec, sum.SkippedInputs)
	}
	return sum
}

// TestFullLoadTwserver: 63 clients for 30 s against the twserver binary.
// twserver's loop wakes on an absolute 20 ms schedule and snapshots every
// second tick (snapshot_rate 25). Like the reference it snapshots only the
// last of the ticks it catches up on after a late wake-up, so a snapshot is
// lost only when a wake-up comes a whole tick late; on a loaded machine a
// few may be. The run must keep the configured rate: the server at least
// 24/s (96 %), every client at least 97 % of what the server made, per
// second of server time, with at most 2 % of the snapshots missing. (The
// wall-clock rate is logged too; it is lower when this process is starved
// and still has snapshots unread at the end.)
func TestFullLoadTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 35 s full-load run against twserver")
	}
	heavytest.Lock(t)
	addr := startTwserverBinary(t)
	sum := runFullLoad(t, addr)
	if sum.ServerSnapsPerSec < 24 || sum.ServerSnapsPerSec > 25.5 {
		t.Errorf("server produced %.2f snapshots/s, want 25 (at least 24)", sum.ServerSnapsPerSec)
	}
	checkClientRates(t, sum, 0.97*sum.ServerSnapsPerSec, 0.98)
}

// TestFullLoadTwserver06 is TestFullLoadTwserver with 63 DDNet-style 0.6
// clients (twload -proto 06), and TestFullLoadTwserverMix with 32 0.7 and
// 31 0.6 clients in the same game (-proto mix): the same rates hold.
func TestFullLoadTwserver06(t *testing.T) { fullLoadDialect(t, loadclient.Proto06, fullClients) }

// TestFullLoadTwserverMix: see TestFullLoadTwserver06.
func TestFullLoadTwserverMix(t *testing.T) { fullLoadDialect(t, loadclient.ProtoMix, fullClients/2) }

func fullLoadDialect(t *testing.T, proto string, clients6 int) {
	if testing.Short() {
		t.Skip("-short: skipping the 35 s full-load run against twserver")
	}
	heavytest.Lock(t)
	addr := startTwserverBinary(t)
	sum := runFullLoad(t, addr, "-proto", proto)
	if sum.Clients6 != clients6 {
		t.Errorf("%d clients spoke 0.6, want %d", sum.Clients6, clients6)
	}
	if sum.UnknownMsgs != 0 {
		t.Errorf("%d messages of unknown id", sum.UnknownMsgs)
	}
	if sum.ServerSnapsPerSec < 24 || sum.ServerSnapsPerSec > 25.5 {
		t.Errorf("server produced %.2f snapshots/s, want 25 (at least 24)", sum.ServerSnapsPerSec)
	}
	checkClientRates(t, sum, 0.97*sum.ServerSnapsPerSec, 0.98)
}

// TestFullLoadReference: the same run against the 0.7.5 reference server.
// Its main loop runs every tick that is due and then takes a snapshot only
// when the last of them is even (sv_high_bandwidth 0). Woken on time it runs
// one tick per wake-up and snapshots every even tick: 25/s. Woken late (CPU
// contention) it catches up two or more ticks at once, and every wake-up that
// ends on an odd tick makes no snapshot at all, so its rate falls (to about
// 10/s on this project's loaded 2-core machine). That rate is the server's
// choice, not a loss: what must hold is that every snapshot it made reached
// every client (coverage) and that it kept making some (at least 5/s).
func TestFullLoadReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 35 s full-load run against the reference server")
	}
	heavytest.Lock(t)
	addr := startReferenceServer(t)
	sum := runFullLoad(t, addr)
	if sum.ServerSnapsPerSec < 5 || sum.ServerSnapsPerSec > 25.5 {
		t.Errorf("reference server produced %.2f snapshots/s, want 25 (at least 5 on a loaded host)", sum.ServerSnapsPerSec)
	}
	checkClientRates(t, sum, 0.95*sum.ServerSnapsPerSec, 0.97)
}

// checkClientRates requires every client to have received at least minRate
// snapshots per second of server time, at least minCoverage of the
// snapshots any client received, and snapshots over most of its time in game.
func checkClientRates(t *testing.T, sum loadclient.Summary, minRate, minCoverage float64) {
	t.Helper()
	t.Logf("per client: %.2f..%.2f snapshots per second of server time, span share %+v",
		sum.SnapsPerServerSec.Min, sum.SnapsPerServerSec.Max, sum.SnapSpanShare)
	for _, c := range sum.PerClient {
		if r := c.SnapRateServerTime(); r < minRate || r > 25.5 {
			t.Errorf("client %d: %.2f snapshots per second of server time, want at least %.2f", c.Index, r, minRate)
		}
		// snapshots must come until near the end: allow the last seconds
		// unread when this process is starved, not more
		if span := c.SnapSpan(); span < c.InGame*3/4 {
			t.Errorf("client %d: snapshots over %v of %v in game", c.Index, span, c.InGame)
		}
	}
	if sum.SnapCoverage.Min < minCoverage {
		t.Errorf("snapshot coverage %+v: some client missed more than %.0f%% of the snapshots", sum.SnapCoverage, 100*(1-minCoverage))
	}
}
