// Package servertest runs an in-process twserver for tests of other
// packages (load runs, loss profiles).
package servertest

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/server"
)

// Start validates cfg, runs a server with it (seed 1, no logs) until the
// test ends, and returns its address. The server must stop within 10 s of
// the end of the test.
func Start(t testing.TB, cfg config.Config) netip.AddrPort {
	t.Helper()
	return StartServer(t, cfg).Addr()
}

// StartServer is Start returning the running server (for tests that read
// what it publishes); each setup func is called before the server runs
// (to install hooks, such as OnConsoleLine).
func StartServer(t testing.TB, cfg config.Config, setup ...func(*server.Server)) *server.Server {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Config: cfg, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return srv
}
