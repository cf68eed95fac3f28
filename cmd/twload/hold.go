package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"twserver/loadclient"
)

// runHold is `twload hold`: N connections from N loopback addresses stall
// at a stage; the JSON summary says what the server did with each.
func runHold(args []string, stdout, stderr io.Writer) int {
	c := newCommand("twload hold", "server address `host:port` (loopback only)", stderr)
	fs := c.fs
	n := fs.Int("n", 200, fmt.Sprintf("stalling connections, one source address each (1..%d)", loadclient.MaxHoldClients))
	stage := fs.String("stage", "connect", "where to stall: connect (accepted, no INFO), map (after the first window of map chunks), ready (READY and start info sent, never ENTERGAME)")
	keep := fs.Bool("keepalive", false, "keep the stalled connections alive (acks and keep-alives) instead of going silent")
	base := fs.String("source-base", loadclient.DefaultHoldSourceBase.String(), "first source address (127.x.y.z); connection i uses base+i")
	rampUp := fs.Duration("rampup", time.Second, fmt.Sprintf("connections start evenly over this time (at least n/%d s)", loadclient.MaxHoldConnectRate))
	duration := fs.Duration("duration", 30*time.Second, "how long to watch after the ramp-up")
	perClient := fs.Bool("per-client", false, "include every connection's result in the JSON summary")
	server, rc := c.parse(args)
	if rc != 0 {
		return rc
	}
	st, err := loadclient.ParseHoldStage(*stage)
	if err != nil {
		return c.usage("%v", err)
	}
	src, err := netip.ParseAddr(*base)
	if err != nil {
		return c.usage("bad -source-base: %v", err)
	}
	hc := loadclient.HoldConfig{Server: server, Clients: *n, Stage: st, KeepAlive: *keep,
		SourceBase: src, RampUp: *rampUp, Duration: *duration}
	if err := hc.Validate(); err != nil {
		fmt.Fprintf(stderr, "twload %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := loadclient.RunHold(ctx, hc)
	if err != nil {
		return c.fail(err)
	}
	if !*perClient {
		sum.PerClient = nil
	}
	return c.writeJSON(sum, stdout)
}
