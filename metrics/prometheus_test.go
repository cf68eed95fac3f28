package metrics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/testenv"
	"twserver/internal/testport"
	"twserver/loadclient"
)

// promQuery runs an instant query against a Prometheus server and returns
// the value of its single result (ok false: no result yet).
func promQuery(t *testing.T, base, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false // still starting
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// TestRealPrometheusScrape runs the real Prometheus server (Debian package
// prometheus) on loopback against a live twserver with synthetic clients:
// the target is up, the in-game client count Prometheus stored is the
// number of clients, and the tick counter advances at 50 per second.
func TestRealPrometheusScrape(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real Prometheus run")
	}
	prom := testenv.LookPath(t, "prometheus", "prometheus")
	heavytest.Lock(t)
	const n = 3
	r := startServer(t, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() {
		_, err := loadclient.Run(ctx, loadclient.RunConfig{
			Server: r.srv.Addr(), Clients: n, RampUp: 200 * time.Millisecond, Duration: time.Minute,
			Pattern: loadclient.PatternIdle, Seed: 5, Sources: 1, SourceBase: netip.MustParseAddr("127.0.0.1"),
		})
		runDone <- err
	}()
	defer func() { cancel(); <-runDone }()

	promAddr := testport.Addr(t)
	dir := t.TempDir()
	target := strings.TrimPrefix(r.base, "http://")
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: twserver\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var promLog bytes.Buffer
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &promLog, &promLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("prometheus log:\n%s", promLog.String())
		}
	}()
	base := "http://" + promAddr
	waitFor := func(what, q string, ok func(float64) bool) float64 {
		t.Helper()
		deadline := time.Now().Add(45 * time.Second)
		for {
			v, have := promQuery(t, base, q)
			if have && ok(v) {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: query %s gave %v (have %v)", what, q, v, have)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	waitFor("target up", `up{job="twserver"}`, func(v float64) bool { return v == 1 })
	waitFor("in-game clients", `sum(teeworlds_server_clients{state="ingame"})`, func(v float64) bool { return v == n })
	waitFor("players", `sum(teeworlds_server_players) + sum(teeworlds_server_spectators)`, func(v float64) bool { return v == n })
	// Once the last 6 s hold 6 scrapes one second apart, the rate of the
	// tick counter over them is the tick rate.
	waitFor("6 scrapes", `count_over_time(twserver_ticks_total[6s])`, func(v float64) bool { return v >= 6 })
	rate := waitFor("tick rate", `rate(twserver_ticks_total[6s])`, func(v float64) bool { return v > 0 })
	if rate < 45 || rate > 55 {
		t.Errorf("rate(twserver_ticks_total) = %.1f ticks/s, want about 50", rate)
	}
	p99 := waitFor("tick p99", `histogram_quantile(0.99, rate(twserver_tick_duration_seconds_bucket[6s]))`, func(v float64) bool { return v > 0 })
	t.Logf("Prometheus %s: %d clients in game, %.1f ticks/s, tick work p99 <= %.4f s", promAddr, n, rate, p99)
}
