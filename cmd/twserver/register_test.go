package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"twserver/internal/mastertest"
	"twserver/loadclient"
	"twserver/snap"
)

// snapTimes records when a synthetic client received its snapshots: the
// game loop's pace as a player sees it.
type snapTimes struct {
	mu sync.Mutex
	at []time.Time
}

func (s *snapTimes) add(int32, *snap.Snapshot) {
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
}

// between returns the count of snapshots in [from, to) and the largest gap
// between consecutive ones there.
func (s *snapTimes) between(from, to time.Time) (n int, maxGap time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var prev time.Time
	for _, t := range s.at {
		if t.Before(from) || !t.Before(to) {
			continue
		}
		if !prev.IsZero() {
			maxGap = max(maxGap, t.Sub(prev))
		}
		prev = t
		n++
	}
	return n, maxGap
}

// startClient runs a synthetic 0.7 client against addr until ctx is done.
func startClient(ctx context.Context, t *testing.T, addr netip.AddrPort, name string, rec *snapTimes) *loadclient.Client {
	cfg := loadclient.Config{Server: addr, Name: name, Pattern: loadclient.PatternIdle, Seed: 1}
	if rec != nil {
		cfg.OnSnapshot = rec.add
	}
	c := loadclient.New(cfg)
	go c.Run(ctx)
	waitUntil(t, name+" in game", 10*time.Second, c.Entered)
	return c
}

func waitUntil(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startServer runs twserver (run, as main does) with the given extra config
// on a free loopback port; it returns the server's address and the channel
// with run's exit code.
func startServer(t *testing.T, extra string, logs *lockedBuf) (netip.AddrPort, chan int) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "server.toml")
	conf := "[server]\nname = \"reg test\"\n[log]\nformat = \"json\"\nlevel = \"debug\"\n" + extra
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-config", cfg, "-bind", "127.0.0.1", "-port", "0", "-no-console"}, strings.NewReader(""), logs)
	}()
	var addr netip.AddrPort
	waitUntil(t, "server listening", 5*time.Second, func() bool {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct{ Message, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Message == "listening" {
				addr = netip.MustParseAddrPort(l.Addr)
				return true
			}
		}
		return false
	})
	return addr, done
}

func stopServer(t *testing.T, done chan int, logs *lockedBuf) time.Duration {
	t.Helper()
	t0 := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d\n%s", code, logs.String())
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit within 6 s after SIGINT:\n%s", logs.String())
	}
	return time.Since(t0)
}

// TestRegisterWithMaster (issue 9 proof 7): a test master on loopback,
// written from the protocol description, sees twserver register tw-0.6 and
// tw-0.7, challenges the game port, receives the info body (and its
// changes) and the deletes on shutdown. While the master answers errors,
// hangs, or is gone, a player's snapshots keep their 25/s pace: the game
// loop is never held up by registration.
func TestRegisterWithMaster(t *testing.T) {
	m, err := mastertest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var logs lockedBuf
	metricsAddr := freeTCPAddr(t)
	addr, done := startServer(t, fmt.Sprintf("[register]\nenabled = true\nurl = %q\ntw06 = true\n[metrics]\nlisten = %q\n", m.URL(), metricsAddr), &logs)

	want := []string{"tw-0.6+udp://" + addr.String(), "tw-0.7+udp://" + addr.String()}
	listed := func(player string) func() bool {
		return func() bool {
			for _, e := range m.Servers() {
				return strings.Join(e.Addresses, " ") == strings.Join(want, " ") &&
					bytes.Contains(e.Info, []byte(player))
			}
			return false
		}
	}
	waitUntil(t, "both protocols listed", 5*time.Second, listed(`"map":{"name":"twsrv_arena"`))
	checkInfo(t, m)
	scrape := func() string {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for _, want := range []string{`twserver_register_status{protocol="tw0.6/ipv4"} 1`, `twserver_register_status{protocol="tw0.7/ipv4"} 1`} {
		if s := scrape(); !strings.Contains(s, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	var sawChallenge int
	for _, q := range m.Requests() {
		if q.Header.Get("Challenge-Token") != "" && q.Status == "success" {
			sawChallenge++
		}
	}
	if sawChallenge < 2 {
		t.Errorf("%d successful requests carry the challenge token, want one per protocol at least", sawChallenge)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec snapTimes
	startClient(ctx, t, addr, "watcher", &rec)
	waitUntil(t, "the player in the master's info", 5*time.Second, listed(`"name":"watcher"`))

	// The master misbehaves while players come and go (each change makes
	// the game loop hand over a new info at once).
	var windows [][2]time.Time
	phase := func(name string, d time.Duration, setup func()) {
		setup()
		from := time.Now()
		cctx, ccancel := context.WithCancel(ctx)
		startClient(cctx, t, addr, name, nil)
		time.Sleep(d)
		ccancel()
		time.Sleep(300 * time.Millisecond)
		windows = append(windows, [2]time.Time{from, time.Now()})
	}
	phase("errors", 1500*time.Millisecond, func() { m.SetMode(mastertest.Errors) })
	waitUntil(t, "error logged", 3*time.Second, func() bool { return strings.Contains(logs.String(), "master server registration failed") })
	if s := scrape(); !strings.Contains(s, `twserver_register_status{protocol="tw0.7/ipv4"} 0`) ||
		!strings.Contains(s, `twserver_register_errors_total{protocol="tw0.7/ipv4"} 1`) {
		t.Errorf("/metrics does not show the failed registration:\n%s", s)
	}
	phase("hang", 2*time.Second, func() { m.SetMode(mastertest.Hang) })
	m.SetMode(mastertest.Normal)
	for i, w := range windows {
		n, gap := rec.between(w[0], w[1])
		rate := float64(n) / w[1].Sub(w[0]).Seconds()
		t.Logf("phase %d: %d snapshots in %v (%.1f/s), largest gap %v", i, n, w[1].Sub(w[0]).Round(time.Millisecond), rate, gap)
		if gap > 250*time.Millisecond || rate < 20 {
			t.Errorf("phase %d: the game loop slowed down while the master misbehaved: largest gap %v, %.1f snapshots/s", i, gap, rate)
		}
	}

	// Back to normal: the next info change is registered at once (by the
	// protocol due first, as DDNet does), the other protocol at its next
	// 15 s turn; then the shutdown deletes both addresses.
	cctx, ccancel := context.WithCancel(ctx)
	startClient(cctx, t, addr, "again", nil)
	waitUntil(t, "registered again", 3*time.Second, listed(`"name":"again"`))
	ccancel()
	waitUntil(t, "both protocols registered again", 20*time.Second, func() bool {
		return strings.Count(logs.String(), "registered with the master server") == 4
	})
	d := stopServer(t, done, &logs)
	if len(m.Servers()) != 0 {
		t.Errorf("still listed after shutdown: %v", m.Servers())
	}
	deletes := 0
	for _, q := range m.Requests() {
		if q.Delete() && q.Status == "success" {
			deletes++
		}
	}
	if deletes != 2 {
		t.Errorf("%d successful deletes, want 2\n%s", deletes, logs.String())
	}
	t.Logf("shutdown with deletes took %v", d)
	if c := strings.Count(logs.String(), "master server registration failed"); c != 2 {
		t.Errorf("%d 'failed' lines, want one per protocol (errors, then the hang's timeout is no new state)", c)
	}
}

// checkInfo checks the info the master holds against the server's.
func checkInfo(t *testing.T, m *mastertest.Master) {
	t.Helper()
	for _, e := range m.Servers() {
		var info struct {
			Name, GameType, Version string
			MaxClients              int `json:"max_clients"`
			Map                     struct {
				Name, SHA256 string
				Size         int
			}
		}
		if err := json.Unmarshal(e.Info, &info); err != nil {
			t.Fatal(err)
		}
		if info.Name != "reg test" || info.Version != "0.7.5, twserver dev" || info.MaxClients == 0 || len(info.Map.SHA256) != 64 || info.Map.Size == 0 {
			t.Errorf("info at the master: %s", e.Info)
		}
	}
}

// TestRegisterMasterDown: with the master gone (connection refused) the
// server plays at full pace and shuts down at once.
func TestRegisterMasterDown(t *testing.T) {
	m, err := mastertest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := m.URL()
	m.Close()
	var logs lockedBuf
	addr, done := startServer(t, fmt.Sprintf("[register]\nenabled = true\nurl = %q\n", url), &logs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec snapTimes
	startClient(ctx, t, addr, "watcher", &rec)
	from := time.Now()
	cctx, ccancel := context.WithCancel(ctx)
	startClient(cctx, t, addr, "other", nil)
	time.Sleep(time.Second)
	ccancel()
	time.Sleep(500 * time.Millisecond)
	n, gap := rec.between(from, time.Now())
	rate := float64(n) / time.Since(from).Seconds()
	t.Logf("%d snapshots (%.1f/s), largest gap %v", n, rate, gap)
	if gap > 250*time.Millisecond || rate < 20 {
		t.Errorf("the game loop slowed down with the master down: largest gap %v, %.1f snapshots/s", gap, rate)
	}
	if !strings.Contains(logs.String(), "master server registration failed") {
		t.Errorf("no failure logged:\n%s", logs.String())
	}
	if d := stopServer(t, done, &logs); d > 2*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

// TestRegisterOffByDefault: without [register] the server says once how
// players find it and contacts no master.
func TestRegisterOffByDefault(t *testing.T) {
	var logs lockedBuf
	_, done := startServer(t, "", &logs)
	stopServer(t, done, &logs)
	if c := strings.Count(logs.String(), "players find this server only by its address or in the LAN tab"); c != 1 {
		t.Errorf("%d 'registration off' lines, want 1:\n%s", c, logs.String())
	}
}

// TestRegisterUDPMaster: with register.udp_masters, a legacy 0.7 master on
// loopback (token exchange, bea2 heartbeat, firewall check of the game port
// with fw??/fw!!, fwok) lists the server; with an announced port nobody
// answers on, the master's fwer is logged as the firewall error.
func TestRegisterUDPMaster(t *testing.T) {
	for _, tc := range []struct {
		name      string
		port      string // register.port
		want      string // log line
		wantShown bool   // listed at the master
	}{
		{"reachable", "", "server registered with the legacy 0.7 master server", true},
		{"unreachable", "port = 9\n", "the master server reports that clients can not connect to this server", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			um, err := mastertest.StartUDP("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer um.Close()
			m, err := mastertest.Start("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			var logs lockedBuf
			addr, done := startServer(t, fmt.Sprintf("[register]\nenabled = true\nurl = %q\n%sudp_masters = [%q]\n", m.URL(), tc.port, um.Addr().String()), &logs)
			waitUntil(t, tc.want, 10*time.Second, func() bool { return strings.Contains(logs.String(), tc.want) })
			hb := um.Heartbeats()
			if len(hb) == 0 || hb[0].From != addr {
				t.Errorf("heartbeats %v, want from the game port %v", hb, addr)
			}
			if tc.wantShown {
				if !um.Listed(addr) || hb[0].Port != int(addr.Port()) {
					t.Errorf("listed %v, announced port %d, want %d", um.Listed(addr), hb[0].Port, addr.Port())
				}
			} else if len(hb) > 0 && hb[0].Port != 9 {
				t.Errorf("announced port %d, want register.port 9", hb[0].Port)
			}
			stopServer(t, done, &logs)
			if c := strings.Count(logs.String(), tc.want); c != 1 {
				t.Errorf("%d lines %q, want 1", c, tc.want)
			}
		})
	}
}
