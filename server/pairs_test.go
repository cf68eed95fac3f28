package server

import (
	"math/bits"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/tickclock"
)

// TestPairedTicks: with one client in game the loop wakes once per pair
// of ticks (at each snapshot tick) and simulates both, counting no tick as
// skipped, while the client still gets 25 snapshots a second; with
// snapshot_rate 50 it wakes at every tick.
func TestPairedTicks(t *testing.T) {
	for _, tc := range []struct {
		rate          int
		wakesPerTicks float64
	}{{25, 0.5}, {50, 1}} {
		synctest.Test(t, func(t *testing.T) {
			ts := startServer(t, func(c *config.Config) { c.Server.SnapshotRate = tc.rate })
			a := join(t, ts, cl1Addr, "alice")
			a.run(time.Second)
			ticks, wakes, skipped, snaps := ts.ticks.Ticks.Load(), ts.ticks.Lateness.Count(), ts.ticks.Skipped.Load(), a.snaps
			a.run(2 * time.Second)
			ticks, wakes = ts.ticks.Ticks.Load()-ticks, ts.ticks.Lateness.Count()-wakes
			if ticks < 98 || ticks > 102 {
				t.Errorf("rate %d: %d ticks in 2 s, want 100", tc.rate, ticks)
			}
			if want := tc.wakesPerTicks * float64(ticks); float64(wakes) < want-2 || float64(wakes) > want+2 {
				t.Errorf("rate %d: %d tick-running wake-ups for %d ticks, want about %.0f", tc.rate, wakes, ticks, want)
			}
			if n := ts.ticks.Skipped.Load() - skipped; n != 0 {
				t.Errorf("rate %d: %d ticks counted as skipped", tc.rate, n)
			}
			if n, want := a.snaps-snaps, 2*tc.rate; n < want-2 || n > want+2 {
				t.Errorf("rate %d: client got %d snapshots in 2 s, want %d", tc.rate, n, want)
			}
		})
	}
}

// TestPairedTicksLimit: a lone game ticks in pairs with a full game in
// play; a game of a process of several (aligned schedule) only up to
// PairedTicksMaxClients, one client more and it wakes at every tick.
func TestPairedTicksLimit(t *testing.T) {
	s := newIdleServerWith(t, 0, nil)
	full, limit := ^uint64(0), uint64(1)<<PairedTicksMaxClients-1
	s.ingame.Store(full)
	if !s.pairTicks() {
		t.Error("a lone game with 64 clients in game does not tick in pairs")
	}
	s.sched = tickclock.New(true, 0)
	for _, tc := range []struct {
		ingame uint64
		want   bool
	}{{limit, true}, {limit<<1 | 1, false}, {full, false}} {
		s.ingame.Store(tc.ingame)
		if got := s.pairTicks(); got != tc.want {
			t.Errorf("aligned, %d in game: pairs %v, want %v", bits.OnesCount64(tc.ingame), got, tc.want)
		}
	}
}
