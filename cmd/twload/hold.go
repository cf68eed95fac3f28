package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"sort"
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
	server, rc, ok := c.parse(args)
	if !ok {
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
	live, ok := c.liveStatus()
	if !ok {
		return c.usage("-status must be auto, on or off")
	}
	hc := loadclient.HoldConfig{Server: server, Clients: *n, Stage: st, KeepAlive: *keep,
		SourceBase: src, RampUp: *rampUp, Duration: *duration, Live: new(loadclient.HoldLive)}
	if err := hc.Validate(); err != nil {
		fmt.Fprintf(stderr, "twload %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopStatus := c.statusLine(live, hc.RampUp+hc.Duration, hc.Live.String)
	sum, err := loadclient.RunHold(ctx, hc)
	stopStatus()
	if err != nil {
		return c.fail(err)
	}
	if !*perClient {
		sum.PerClient = nil
	}
	if code := c.writeJSON(sum, stdout); code != 0 {
		return code
	}
	writeHoldTable(stderr, &sum)
	return 0
}

// writeHoldTable prints the short human summary of a hold run: how many
// connections reached their stage, how many the server refused or dropped
// and after how long, and its reasons.
func writeHoldTable(w io.Writer, s *loadclient.HoldSummary) {
	alive := "silent"
	if s.KeepAlive {
		alive = "kept alive"
	}
	fmt.Fprintf(w, "twload hold: %d connections stalling at %s (%s) against %s for %gs + %gs ramp-up\n",
		s.Clients, s.Stage, alive, s.Server, s.DurationS, s.RampUpS)
	fmt.Fprintf(w, "  reached the stage %d, never did %d, dropped %d (after stalling: p50 %.2f s, max %.2f s), still held at the end %d\n",
		s.Held, s.NeverHeld, s.Dropped, s.DroppedAfterS.P50, s.DroppedAfterS.Max, s.StillHeld)
	writeReasons(w, s.Reasons)
}

// writeReasons prints reasons and their counts, most frequent first.
func writeReasons(w io.Writer, reasons map[string]int) {
	keys := make([]string, 0, len(reasons))
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] > reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	for _, r := range keys {
		fmt.Fprintf(w, "  %dx %s\n", reasons[r], r)
	}
}
