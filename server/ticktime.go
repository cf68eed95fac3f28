package server

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Tick timing (issue 11): the loop measures, for every wake-up that runs
// ticks, how late it woke (against the scheduled start of the first due
// tick) and how long the work took (simulation, snapshots, connection
// timers and the writes). Both go into fixed histograms of atomic counters,
// so the measurement allocates nothing and another goroutine (the metrics
// endpoint) can read it without a lock.

// Tick-time histogram layout: fine log-scale buckets for the percentiles
// shown by `stats`; bucket i holds durations below tickHistBase*2^(i/8).
const (
	// tickHistBase is the upper bound of the first fine bucket.
	tickHistBase = time.Microsecond
	// tickHistSub is the number of fine buckets per doubling (about 9 % wide).
	tickHistSub = 8
	// tickHistBuckets bounds the fine buckets: 1 µs * 2^(200/8) ≈ 33 s; longer goes in the last.
	tickHistBuckets = 200
)

// TickBuckets are the upper bounds (seconds) of the Prometheus histograms of
// tick work and lateness (a tick lasts 0.02 s).
var TickBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.04, 0.1, 0.25, 1}

// DurationHist is a histogram of durations kept in atomic counters: fine
// buckets for percentiles and the TickBuckets for Prometheus. Observe is
// safe for one writer; every reader method is safe concurrently with it.
type DurationHist struct {
	count  atomic.Uint64
	sumNs  atomic.Uint64
	maxNs  atomic.Int64
	fine   [tickHistBuckets]atomic.Uint64
	coarse [len(TickBuckets) + 1]atomic.Uint64 // non-cumulative; last = above every bound
}

// fineIndex returns the fine bucket of d.
func fineIndex(d time.Duration) int {
	if d < tickHistBase {
		return 0
	}
	// d = base * 2^(e + f) with e integer, f in [0,1): index = 8e + floor(8f) + 1.
	r := uint64(d / tickHistBase)
	e := bits.Len64(r) - 1
	frac := float64(d)/float64(tickHistBase)/float64(uint64(1)<<e) - 1 // in [0,1)
	sub := int(math.Log2(1+frac) * tickHistSub)
	return min(e*tickHistSub+sub+1, tickHistBuckets-1)
}

// fineUpper returns the upper bound of fine bucket i.
func fineUpper(i int) time.Duration {
	return time.Duration(float64(tickHistBase) * math.Exp2(float64(i)/tickHistSub))
}

// Observe records one duration (negative durations count as 0).
func (h *DurationHist) Observe(d time.Duration) {
	d = max(d, 0)
	h.count.Add(1)
	h.sumNs.Add(uint64(d))
	if int64(d) > h.maxNs.Load() {
		h.maxNs.Store(int64(d))
	}
	h.fine[fineIndex(d)].Add(1)
	sec := d.Seconds()
	i := 0
	for i < len(TickBuckets) && sec > TickBuckets[i] {
		i++
	}
	h.coarse[i].Add(1)
}

// Count is the number of observations.
func (h *DurationHist) Count() uint64 { return h.count.Load() }

// Sum is the total of the observations.
func (h *DurationHist) Sum() time.Duration { return time.Duration(h.sumNs.Load()) }

// Max is the largest observation.
func (h *DurationHist) Max() time.Duration { return time.Duration(h.maxNs.Load()) }

// Quantile returns the upper bound of the fine bucket holding quantile q
// (0 < q <= 1), capped at Max; 0 without observations. Its error is the
// bucket width, about 9 %.
func (h *DurationHist) Quantile(q float64) time.Duration {
	var counts [tickHistBuckets]uint64
	var total uint64
	for i := range h.fine {
		counts[i] = h.fine[i].Load()
		total += counts[i]
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	rank = max(rank, 1)
	var seen uint64
	for i, n := range counts {
		seen += n
		if seen >= rank {
			return min(fineUpper(i), h.Max())
		}
	}
	return h.Max()
}

// Buckets returns the cumulative counts at each of TickBuckets, for a
// Prometheus histogram.
func (h *DurationHist) Buckets() [len(TickBuckets)]uint64 {
	var out [len(TickBuckets)]uint64
	cumulate(out[:], h.coarse[:])
	return out
}

// TickTiming holds the game loop's tick measurements. The loop writes it;
// readers (console `stats`, metrics) may read it at any time.
type TickTiming struct {
	// Work is the time each wake-up spent running its due ticks (simulation,
	// snapshots, connection timers, writes).
	Work DurationHist
	// Lateness is how long after the scheduled start of its first due tick
	// each tick-running wake-up happened.
	Lateness DurationHist
	// Ticks counts simulated ticks.
	Ticks atomic.Uint64
	// Skipped counts ticks that did not get a wake-up of their own: they were
	// simulated back to back with the next (catch-up) or, when the loop fell
	// more than MaxCatchUpTicks behind, never simulated (see Dropped).
	Skipped atomic.Uint64
	// Dropped counts the ticks never simulated because the schedule was moved.
	Dropped atomic.Uint64
	// LastTick is the wall time (Unix nanoseconds) of the end of the last
	// tick-running wake-up; health checks compare it with the clock.
	LastTick atomic.Int64
}

// TickTiming returns the loop's tick measurements (safe for concurrent reads).
func (s *Server) TickTiming() *TickTiming { return &s.ticks }

// tickSummary renders the tick timing for the console `stats`.
func (t *TickTiming) summary() string {
	w, l := &t.Work, &t.Lateness
	return "ticks=" + itoa(int(t.Ticks.Load())) +
		" skipped=" + itoa(int(t.Skipped.Load())) +
		" dropped=" + itoa(int(t.Dropped.Load())) +
		" work_p50=" + fmtDur(w.Quantile(0.5)) +
		" work_p99=" + fmtDur(w.Quantile(0.99)) +
		" work_max=" + fmtDur(w.Max()) +
		" late_p50=" + fmtDur(l.Quantile(0.5)) +
		" late_p99=" + fmtDur(l.Quantile(0.99)) +
		" late_max=" + fmtDur(l.Max())
}

// fmtDur renders d in microseconds with a unit ("123us").
func fmtDur(d time.Duration) string { return itoa(int(d/time.Microsecond)) + "us" }
