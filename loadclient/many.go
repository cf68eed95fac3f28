package loadclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// MaxTargets bounds the servers one process loads at once (MaxTargets ×
// MaxClients clients: 16 games of 64 need 1024).
const MaxTargets = 32

// RunMany runs one load run per configuration at the same time (each with
// its own driver, clients and sockets, e.g. one per game of a process that
// serves several) and returns the combined summary: the statistics of every
// client of every run, and in Targets each run's own summary (with its
// snapshot coverage, which only compares clients of one server). The
// combined ServerSnapsPerSec is the lowest of the runs'.
func RunMany(ctx context.Context, rcs []RunConfig) (Summary, error) {
	if len(rcs) == 0 || len(rcs) > MaxTargets {
		return Summary{}, fmt.Errorf("targets must be 1..%d", MaxTargets)
	}
	for i := range rcs {
		if err := rcs[i].Validate(); err != nil {
			return Summary{}, fmt.Errorf("target %s: %w", rcs[i].Server, err)
		}
	}
	if len(rcs) == 1 {
		return Run(ctx, rcs[0])
	}
	sums := make([]Summary, len(rcs))
	errs := make([]error, len(rcs))
	var wg sync.WaitGroup
	for i := range rcs {
		wg.Go(func() { sums[i], errs[i] = Run(ctx, rcs[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Summary{}, err
	}
	var all []Stats
	servers := make([]string, len(sums))
	for i := range sums {
		for _, st := range sums[i].PerClient {
			st.Index += i * MaxClients
			all = append(all, st)
		}
		servers[i] = sums[i].Server
	}
	s := Summarize(all)
	s.Server = strings.Join(servers, ",")
	s.Pattern = sums[0].Pattern
	s.Seed = sums[0].Seed
	s.RampUpS = sums[0].RampUpS
	s.DurationS = sums[0].DurationS
	s.Sources = sums[0].Sources
	s.PerClient = all
	s.ServerSnapsPerSec = sums[0].ServerSnapsPerSec
	for i := range sums {
		s.ServerSnapsPerSec = min(s.ServerSnapsPerSec, sums[i].ServerSnapsPerSec)
		sums[i].PerClient = nil
	}
	s.Targets = sums
	return s, nil
}
