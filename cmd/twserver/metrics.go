package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"twserver/metrics"
)

// version is the twserver version in twserver_build_info; release builds set
// it with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// startMetrics opens the metrics listener (if listen is set) and serves
// /metrics and /healthz of the games until ctx ends. It returns a func that
// waits for the HTTP server to stop; a listen error is returned at once so
// a misconfigured address fails the start.
func startMetrics(ctx context.Context, listen string, games []*game, log zerolog.Logger) (wait func(), err error) {
	if listen == "" {
		return func() {}, nil
	}
	ep, err := metrics.NewGames(metricsGames(games), metrics.Options{Version: version, Upgrades: &upgradeCounts})
	if err != nil {
		return nil, err
	}
	ln, err := procSockets.tcp(listen)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := ep.ServeListener(ctx, ln, log); err != nil {
			log.Error().Err(err).Msg("metrics endpoint stopped")
		}
	}()
	return func() { <-done }, nil
}

// HealthcheckTimeout bounds the -healthcheck probe.
const HealthcheckTimeout = 2 * time.Second

// healthcheck probes a running server's /healthz (twserver -healthcheck
// URL, for container health checks in images without a shell or curl): exit
// code 0 when it answers 200, 1 otherwise. Only loopback addresses are
// probed.
func healthcheck(raw string, stderr io.Writer) int {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		fmt.Fprintf(stderr, "twserver: -healthcheck %q is not an http URL\n", raw)
		return 2
	}
	if u.Hostname() == "localhost" { // the loopback name, read as 127.0.0.1 (no name is resolved)
		u.Host = strings.Replace(u.Host, "localhost", "127.0.0.1", 1)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err != nil || !ip.IsLoopback() {
		fmt.Fprintf(stderr, "twserver: -healthcheck probes only loopback addresses, not %q\n", u.Hostname())
		return 2
	}
	if u.Path == "" || u.Path == "/" { // the endpoint's address alone: its health check
		u.Path = "/healthz"
	}
	client := &http.Client{Timeout: HealthcheckTimeout}
	resp, err := client.Get(u.String())
	if err != nil {
		fmt.Fprintf(stderr, "twserver: unhealthy: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "twserver: unhealthy: %s: %s\n", resp.Status, body)
		return 1
	}
	return 0
}

// registerState adapts package register's getters for the metrics (nil
// when registration is off).
func (sc *sideChannels) registerState() func() []metrics.RegisterState {
	reg := sc.reg
	if reg == nil {
		return nil
	}
	return func() []metrics.RegisterState {
		var st []metrics.RegisterState
		reg.EachStatus(func(protocol string, listed bool, errors uint64) {
			st = append(st, metrics.RegisterState{Protocol: protocol, Registered: listed, Errors: errors})
		})
		return st
	}
}
