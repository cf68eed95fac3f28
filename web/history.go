package web

import (
	"net/http"
	"sync"
	"time"

	"twserver/metrics"
	"twserver/server"
)

// The plots: every SampleEvery the handler reads each game's counters and
// histograms (the atomics the loop keeps for /metrics) and keeps the
// differences of the last hour in a ring.

// Bounds of the plots.
const (
	// SampleInterval is the default interval between two samples.
	SampleInterval = 5 * time.Second
	// HistoryLen bounds the samples kept per game (an hour at 5 s).
	HistoryLen = 720
)

// Sample is one point of the plots.
type Sample struct {
	// Time is the end of the interval, in Unix milliseconds.
	Time int64 `json:"t"`
	// Players counts the in-game clients that are not spectators.
	Players int `json:"players"`
	// Clients counts the clients in game (spectators included).
	Clients int `json:"clients"`
	// TickP99Ms is the 99th percentile of the tick work in the interval,
	// from the loop's tick-work histogram (interpolated within its bucket).
	TickP99Ms float64 `json:"tick_p99_ms"`
	// BytesIn and BytesOut are the socket's bytes per second.
	BytesIn  float64 `json:"bytes_in_per_s"`
	BytesOut float64 `json:"bytes_out_per_s"`
	// SnapshotBytes is the mean size in bytes of one snapshot sent to one
	// client in the interval (its messages before Huffman compression:
	// the delta to the client's acknowledged snapshot, so an idle game
	// sends empty deltas of about 5 bytes), from the server's
	// twserver_snapshot_bytes histogram (sum and count).
	SnapshotBytes float64 `json:"snapshot_bytes"`
	// SnapshotBytesMax is the largest snapshot of the interval, rounded up
	// to its histogram bucket's bound (metrics.SizeBuckets); above the top
	// bound, the most the histogram's sum proves (at least the top bound
	// and the interval's mean; exact for one such snapshot); 0 without
	// snapshots.
	SnapshotBytesMax float64 `json:"snapshot_bytes_max"`
}

// history is the ring of one game's samples and the counters of the last.
type history struct {
	mu      sync.Mutex
	ring    [HistoryLen]Sample
	n, next int

	primed                  bool
	at                      time.Time
	in, out, snapN, snapSum uint64
	snapBuckets             [len(metrics.SizeBuckets)]uint64
	work                    [len(metrics.TickBuckets)]uint64
	workCount               uint64
}

// sample adds the point of the interval since the last call.
func (h *history) sample(s *server.Server, now time.Time) {
	g, st, tt := s.Gauges(), s.Stats(), s.TickTiming()
	in, out := st.ReceivedBytes.Load(), g.SentBytes.Load()
	snapN, snapSum, snapBuckets := g.SnapshotBytes.Count(), g.SnapshotBytes.Sum(), g.SnapshotBytes.Buckets()
	work, workCount := tt.Work.Buckets(), tt.Work.Count()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.primed {
		secs := now.Sub(h.at).Seconds()
		if secs <= 0 {
			secs = 1
		}
		p := Sample{Time: now.UnixMilli(), BytesIn: float64(in-h.in) / secs, BytesOut: float64(out-h.out) / secs}
		for d := range g.Players {
			p.Players += int(g.Players[d].Load())
			p.Clients += int(g.Players[d].Load() + g.Spectators[d].Load())
		}
		if n := snapN - h.snapN; n > 0 {
			p.SnapshotBytes = float64(snapSum-h.snapSum) / float64(n)
			p.SnapshotBytesMax = maxBound(snapBuckets[:], h.snapBuckets[:], n, snapSum-h.snapSum)
		}
		var diff [len(metrics.TickBuckets)]uint64
		for i := range diff {
			diff[i] = work[i] - h.work[i]
		}
		p.TickP99Ms = quantileMs(diff[:], workCount-h.workCount, 0.99)
		h.ring[h.next] = p
		h.next = (h.next + 1) % HistoryLen
		h.n = min(h.n+1, HistoryLen)
	}
	h.primed, h.at = true, now
	h.in, h.out, h.snapN, h.snapSum, h.snapBuckets = in, out, snapN, snapSum, snapBuckets
	h.work, h.workCount = work, workCount
}

// maxBound returns the bound of metrics.SizeBuckets of the largest of the
// n observations (summing to sum) between two readings of a histogram's
// cumulative counts: the bound of the highest bucket that gained one when
// all are within the bounds. When some are above every bound, the largest
// lower bound of their maximum the readings prove: the top bound, the mean
// of all, and the mean of those above, taking the others at their buckets'
// bounds (exact for one observation above).
func maxBound(cum, prev []uint64, n, sum uint64) float64 {
	below := uint64(0) // observations of the interval in the buckets up to i
	top := -1
	atBounds := 0.0 // the most the observations within the bounds can sum to
	for i := range cum {
		if d := cum[i] - prev[i]; d > below {
			atBounds += float64(d-below) * metrics.SizeBuckets[i]
			top, below = i, d
		}
	}
	if below == n && top >= 0 {
		return metrics.SizeBuckets[top]
	}
	over := float64(n - below)
	return max(metrics.SizeBuckets[len(metrics.SizeBuckets)-1], float64(sum)/float64(n), (float64(sum)-atBounds)/over)
}

// quantileMs returns quantile q (milliseconds) of the observations counted
// cumulatively at each of metrics.TickBuckets (total counts them all),
// interpolated linearly within the bucket; 0 when there are none.
func quantileMs(cum []uint64, total uint64, q float64) float64 {
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	lower, below := 0.0, uint64(0)
	for i, c := range cum {
		upper := metrics.TickBuckets[i]
		if float64(c) >= rank {
			in := c - below
			if in == 0 {
				return upper * 1000
			}
			return (lower + (upper-lower)*(rank-float64(below))/float64(in)) * 1000
		}
		lower, below = upper, c
	}
	return metrics.TickBuckets[len(metrics.TickBuckets)-1] * 1000 // above every bound
}

// samples returns the samples, oldest first.
func (h *history) samples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Sample, 0, h.n)
	for i := h.n; i > 0; i-- {
		out = append(out, h.ring[(h.next-i+HistoryLen)%HistoryLen])
	}
	return out
}

func (h *Handler) apiHistory(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "interval_ms": h.opt.SampleEvery.Milliseconds(),
		"samples": g.hist.samples()})
}
