package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"twserver/internal/testport"
	"twserver/metrics"
)

// freeTCPAddr returns a loopback address:port that was free a moment ago,
// outside the ephemeral range (see internal/testport).
func freeTCPAddr(t *testing.T) string {
	t.Helper()
	return testport.Addr(t)
}

// TestMetricsListen: with [metrics] listen set, the binary serves /healthz
// and /metrics there, also while idle connections from other addresses
// (kept-alive after a request, or sending none) are more than
// metrics.MaxConnections, and the endpoint stops with the server (console
// "shutdown").
func TestMetricsListen(t *testing.T) {
	addr := freeTCPAddr(t)
	cfg := filepath.Join(t.TempDir(), "server.toml")
	os.WriteFile(cfg, []byte("[metrics]\nlisten = \""+addr+"\"\n"), 0o644)
	stdin, stdinW := io.Pipe()
	defer stdinW.Close()
	var errb lockedBuf
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-config", cfg, "-bind", "127.0.0.1", "-port", "0"}, stdin, &errb)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(b) == "ok\n" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz never answered ok (last error %v):\n%s", err, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wants := []string{`teeworlds_server_clients{dialect="0.7",state="ingame"} 0`, `twserver_build_info{go="`, "twserver_tick_duration_seconds_count "}
	if runtime.NumCPU() > 1 && os.Getenv("GOMAXPROCS") == "" {
		wants = append(wants, "\ngo_sched_gomaxprocs_threads 1\n") // an empty server runs on one P (package procs)
	}
	for _, want := range wants {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	var hcErr lockedBuf
	// the endpoint's address alone, and the name localhost, probe /healthz
	// on 127.0.0.1 (before: 404 "unhealthy", and "localhost" refused as
	// not a loopback address)
	_, port, _ := net.SplitHostPort(addr)
	for _, u := range []string{"http://" + addr + "/healthz", "http://" + addr, "http://" + addr + "/", "http://localhost:" + port + "/healthz"} {
		if code := run([]string{"-healthcheck", u}, strings.NewReader(""), &hcErr); code != 0 {
			t.Errorf("-healthcheck %s of the running server: exit %d: %s", u, code, hcErr.String())
		}
	}
	holdIdle(t, addr)
	for i := range 3 {
		c := http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("/healthz %d with idle connections held: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("/healthz %d with idle connections held: %d", i, resp.StatusCode)
		}
	}
	io.WriteString(stdinW, "shutdown\n")
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d\n%s", code, errb.String())
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit after shutdown:\n%s", errb.String())
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("metrics endpoint still serving after the server stopped")
	}
	if code := run([]string{"-healthcheck", "http://" + addr + "/healthz"}, strings.NewReader(""), &hcErr); code != 1 {
		t.Errorf("-healthcheck of a stopped server: exit %d, want 1", code)
	}
}

// TestMetricsListenBusy: an address already in use fails the start (exit 1).
func TestMetricsListenBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := filepath.Join(t.TempDir(), "server.toml")
	os.WriteFile(cfg, []byte("[metrics]\nlisten = \""+ln.Addr().String()+"\"\n"), 0o644)
	var errb lockedBuf
	if code := run([]string{"-config", cfg, "-bind", "127.0.0.1", "-port", "0", "-no-console"}, strings.NewReader(""), &errb); code != 1 {
		t.Errorf("exit code %d, want 1:\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "cannot start metrics endpoint") {
		t.Errorf("log lacks the reason:\n%s", errb.String())
	}
}

// TestHealthcheckUsage: -healthcheck refuses what is not an http URL on a
// loopback address (exit 2, nothing is contacted).
func TestHealthcheckUsage(t *testing.T) {
	for _, u := range []string{"ftp://127.0.0.1/healthz", "http://192.0.2.1:9100/healthz", "http://example.invalid/healthz", "::"} {
		var errb lockedBuf
		if code := run([]string{"-healthcheck", u}, strings.NewReader(""), &errb); code != 2 {
			t.Errorf("-healthcheck %s: exit %d, want 2 (%s)", u, code, errb.String())
		}
	}
}

// holdIdle opens 2×metrics.MaxConnections connections to addr from
// 127.0.0.2 up (metrics.MaxConnsPerAddr each) until the test ends, half
// of them idle after one request (keep-alive), half sending nothing.
func holdIdle(t *testing.T, addr string) {
	t.Helper()
	for i := range 2 * metrics.MaxConnections {
		src := net.IPv4(127, 0, 0, byte(2+i/metrics.MaxConnsPerAddr))
		c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: time.Second}).Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if i%2 == 1 {
			continue
		}
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		_, _ = c.Read(make([]byte, 512)) // its answer (none while the listener waits)
	}
}
