package metrics

import (
	"math"
	"math/bits"
	"strconv"
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
	for i := range h.fine {
		counts[i] = h.fine[i].Load()
	}
	return quantileOf(&counts, q, h.Max())
}

// quantileOf returns the upper bound of the fine bucket holding quantile q
// of counts, capped at maxD; 0 without observations.
func quantileOf(counts *[tickHistBuckets]uint64, q float64, maxD time.Duration) time.Duration {
	var total uint64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(q*float64(total))), 1)
	var seen uint64
	for i, n := range counts {
		seen += n
		if seen >= rank {
			return min(fineUpper(i), maxD)
		}
	}
	return maxD
}

// TickWindow is the span of the recent tick figures of `stats`: they cover
// the current and the previous window, the last one to two TickWindows.
const TickWindow = time.Minute

// recentHist holds the fine buckets of the current and the previous
// TickWindow (loop-owned, no atomics).
type recentHist struct {
	cur, prev       [tickHistBuckets]uint64
	curMax, prevMax time.Duration
}

func (r *recentHist) observe(d time.Duration) {
	d = max(d, 0)
	r.cur[fineIndex(d)]++
	r.curMax = max(r.curMax, d)
}

func (r *recentHist) rotate() {
	r.prev, r.cur = r.cur, [tickHistBuckets]uint64{}
	r.prevMax, r.curMax = r.curMax, 0
}

func (r *recentHist) max() time.Duration { return max(r.curMax, r.prevMax) }

func (r *recentHist) quantile(q float64) time.Duration {
	var sum [tickHistBuckets]uint64
	for i := range sum {
		sum[i] = r.cur[i] + r.prev[i]
	}
	return quantileOf(&sum, q, r.max())
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
	// SnapsSkipped counts snapshot ticks whose snapshots were never sent
	// because a late wake-up simulated them back to back with a newer
	// snapshot tick (only the newest is sent): the gaps a client sees in
	// its snapshot ticks when the loop is starved.
	SnapsSkipped atomic.Uint64
	// Slept counts the ticks an empty game skipped while it slept
	// (sleep.go): the world's tick counter advanced over them without a
	// simulation, which would have changed nothing else.
	Slept atomic.Uint64
	// LastTick is the wall time (Unix nanoseconds) of the end of the last
	// tick-running wake-up, or of the last wake-up of a sleeping game
	// (at least every SleepHeartbeat); health checks compare it with the
	// clock (Overdue).
	LastTick atomic.Int64
	// WakeBy is, while the empty game sleeps, the wall time (Unix
	// nanoseconds) of the heartbeat its loop will wake at; a past instant
	// (or 0) once it ticks again.
	WakeBy atomic.Int64

	// The recent figures (loop-owned): work and lateness of the current and
	// previous TickWindow, since when they run, and the skipped-tick count
	// at the start of the previous and the current window.
	recentWork, recentLate  recentHist
	recentStart             time.Time
	skippedPrev, skippedCur uint64
	// maxLate is the greatest lateness observed since TakeLate last ran.
	maxLate time.Duration
}

// Overdue returns how far the loop is behind its own schedule at now: the
// time since it last ran ticks, or while its empty game sleeps, the time
// since the heartbeat it will wake at (negative before that instant). ok is
// false before the loop's first tick or wake-up.
func (t *TickTiming) Overdue(now time.Time) (d time.Duration, ok bool) {
	last := t.LastTick.Load()
	if last == 0 {
		return 0, false
	}
	return now.Sub(time.Unix(0, max(last, t.WakeBy.Load()))), true
}

// ObserveLate records the lateness of a wake-up (loop only).
func (t *TickTiming) ObserveLate(d time.Duration) {
	t.Lateness.Observe(d)
	t.recentLate.observe(d)
	t.maxLate = max(t.maxLate, d)
}

// TakeLate returns the greatest lateness of a wake-up observed since its
// last call, and forgets it (loop only).
func (t *TickTiming) TakeLate() time.Duration {
	d := t.maxLate
	t.maxLate = 0
	return d
}

// ObserveWork records the work of a wake-up that ended at end and rotates
// the recent windows (loop only).
func (t *TickTiming) ObserveWork(d time.Duration, end time.Time) {
	t.Work.Observe(d)
	t.LastTick.Store(end.UnixNano())
	if t.recentStart.IsZero() {
		t.recentStart = end
	}
	if end.Sub(t.recentStart) >= TickWindow {
		t.recentWork.rotate()
		t.recentLate.rotate()
		t.skippedPrev, t.skippedCur = t.skippedCur, t.Skipped.Load()
		t.recentStart = end
	}
	t.recentWork.observe(d)
}

// Summary renders the tick timing for the console `stats` (loop only):
// since start, then over the recent windows.
func (t *TickTiming) Summary() string {
	w, l := &t.Work, &t.Lateness
	return "ticks=" + strconv.Itoa(int(t.Ticks.Load())) +
		" skipped=" + strconv.Itoa(int(t.Skipped.Load())) +
		" dropped=" + strconv.Itoa(int(t.Dropped.Load())) +
		" work_p50=" + fmtDur(w.Quantile(0.5)) +
		" work_p99=" + fmtDur(w.Quantile(0.99)) +
		" work_max=" + fmtDur(w.Max()) +
		" late_p50=" + fmtDur(l.Quantile(0.5)) +
		" late_p99=" + fmtDur(l.Quantile(0.99)) +
		" late_max=" + fmtDur(l.Max()) +
		" | recent (the last " + strconv.Itoa(int(TickWindow/time.Second)) + "-" + strconv.Itoa(int(2*TickWindow/time.Second)) + " s):" +
		" skipped=" + strconv.Itoa(int(t.Skipped.Load()-t.skippedPrev)) +
		" work_p50=" + fmtDur(t.recentWork.quantile(0.5)) +
		" work_p99=" + fmtDur(t.recentWork.quantile(0.99)) +
		" work_max=" + fmtDur(t.recentWork.max()) +
		" late_p99=" + fmtDur(t.recentLate.quantile(0.99)) +
		" late_max=" + fmtDur(t.recentLate.max())
}

// fmtDur renders d in microseconds with a unit ("123us").
func fmtDur(d time.Duration) string { return strconv.Itoa(int(d/time.Microsecond)) + "us" }
