package main

import (
	"context"
	"encoding/json"
	"flag"
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
	fs := flag.NewFlagSet("twload hold", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8303", "server address `host:port` (loopback only)")
	n := fs.Int("n", 200, fmt.Sprintf("stalling connections, one source address each (1..%d)", loadclient.MaxHoldClients))
	stage := fs.String("stage", "connect", "where to stall: connect (accepted, no INFO), map (after the first window of map chunks), ready (READY and start info sent, never ENTERGAME)")
	keep := fs.Bool("keepalive", false, "keep the stalled connections alive (acks and keep-alives) instead of going silent")
	base := fs.String("source-base", loadclient.DefaultHoldSourceBase.String(), "first source address (127.x.y.z); connection i uses base+i")
	rampUp := fs.Duration("rampup", time.Second, fmt.Sprintf("connections start evenly over this time (at least n/%d s)", loadclient.MaxHoldConnectRate))
	duration := fs.Duration("duration", 30*time.Second, "how long to watch after the ramp-up")
	perClient := fs.Bool("per-client", false, "include every connection's result in the JSON summary")
	jsonOut := fs.String("json", "-", "write the JSON summary to this file (- for stdout)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "twload hold: unexpected arguments %q\n", fs.Args())
		return 2
	}
	server, err := netip.ParseAddrPort(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "twload hold: bad -addr: %v\n", err)
		return 2
	}
	st, err := loadclient.ParseHoldStage(*stage)
	if err != nil {
		fmt.Fprintf(stderr, "twload hold: %v\n", err)
		return 2
	}
	src, err := netip.ParseAddr(*base)
	if err != nil {
		fmt.Fprintf(stderr, "twload hold: bad -source-base: %v\n", err)
		return 2
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
		fmt.Fprintf(stderr, "twload hold: %v\n", err)
		return 1
	}
	if !*perClient {
		sum.PerClient = nil
	}
	return writeJSON(*jsonOut, sum, stdout, stderr)
}

// writeJSON writes v indented to path (- for stdout); 0 on success, 1 otherwise.
func writeJSON(path string, v any, stdout, stderr io.Writer) int {
	out := stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(stderr, "twload: %v\n", err)
			return 1
		}
		defer f.Close()
		out = f
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "twload: %v\n", err)
		return 1
	}
	return 0
}
