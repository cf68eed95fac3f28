package main

import (
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"twserver/loadclient"
)

// maxAutoSources bounds the loopback source addresses -sources -1 picks
// (loadclient's own bound on Sources).
const maxAutoSources = 250

// autoSources is the number of source addresses -sources -1 spreads the
// clients over: one per client against an IPv4 loopback target (so a
// server's per-address limit, 4 in the reference's default, never refuses
// them), none (the system's default address) otherwise.
func autoSources(server netip.AddrPort, clients int) int {
	if !server.Addr().Unmap().Is4() || !server.Addr().IsLoopback() {
		return 0
	}
	return min(max(clients, 1), maxAutoSources)
}

// attachStatus gives every run of rcs a status callback; show is called
// with the sum of all runs' latest statuses.
func attachStatus(rcs []loadclient.RunConfig, show func(loadclient.Status)) {
	var mu sync.Mutex
	latest := make([]loadclient.Status, len(rcs))
	for t := range rcs {
		rcs[t].Status = func(s loadclient.Status) {
			mu.Lock()
			defer mu.Unlock()
			latest[t] = s
			if t != 0 { // run 0 prints for all
				return
			}
			var sum loadclient.Status
			for _, l := range latest {
				sum.Add(l)
			}
			show(sum)
		}
	}
}

// writeTable prints the short human summary of a run: clients, snapshot
// rates, traffic, join time, latency and errors, then what the failures
// were and which flag or setting would avoid them.
func writeTable(w io.Writer, s *loadclient.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "  %s\t"+format+"\n", append([]any{k}, a...)...) }
	fmt.Fprintf(tw, "twload: %d clients (%s, pattern %s) against %s for %gs + %gs ramp-up\n",
		s.Clients, s.Proto, s.Pattern, s.Server, s.DurationS, s.RampUpS)
	row("in game", "%d/%d (failed %d)", s.Connected, s.Clients, s.Failed)
	row("snapshots/s per client", "min %.2f  mean %.2f  (server produced %.2f/s)", s.SnapsPerSec.Min, s.SnapsPerSec.Mean, s.ServerSnapsPerSec)
	row("bytes/s per client", "received %.0f  sent %.0f", s.BytesInPerSec.Mean, s.BytesOutPerSec.Mean)
	row("join time", "mean %.0f ms  max %.0f ms", s.ConnectMs.Mean, s.ConnectMs.Max)
	row("input to snapshot", "p50 %.2f ms  p99 %.2f ms", s.LatencyMs.P50, s.LatencyMs.P99)
	row("errors", "crc %d  delta %d  bad items %d  bad messages %d", s.CRCErrors, s.DeltaErrors, s.BadItems, s.BadMessages)
	row("twload CPU", "%.1f %% of a core", s.LoadCPUPct)
	tw.Flush()
	reasons := make([]string, 0, len(s.Failures))
	for r := range s.Failures {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "  %d failed: %s\n", s.Failures[r], r)
		if h := failureHint(r, s); h != "" {
			fmt.Fprintf(w, "    %s\n", h)
		}
	}
}

// failureHint names the server limit behind a failure reason and the flag
// or setting that lifts it ("" when it knows none).
func failureHint(reason string, s *loadclient.Summary) string {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "same ip"):
		return fmt.Sprintf("the server's per-address limit refused them (%d source addresses used): -sources %d gives every client its own loopback address", s.Sources, min(s.Clients, maxAutoSources))
	case strings.Contains(r, "server is full"):
		return fmt.Sprintf("the server's connection slots (max clients) were all taken, %d clients wanted in: raise them (twserver -max-clients N or server.max_clients, the reference's sv_max_clients) or lower -n", s.Clients)
	case strings.Contains(r, "wrong password"):
		return "the server has a password: give it with -password"
	case strings.Contains(r, "no token reply"), strings.Contains(r, "no reply"):
		return fmt.Sprintf("nothing answered at %s: is a server running and bound to that address (-addr)?", s.Server)
	case strings.Contains(r, "not in game after"):
		return "the server is too slow to let them in or lost them on the way: a longer -enter-timeout or -rampup may help"
	}
	return ""
}
