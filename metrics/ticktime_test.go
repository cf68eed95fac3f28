package metrics

import (
	"strings"
	"testing"
	"time"
)

// TestFineBuckets: every duration lands in the fine bucket whose bounds hold it.
func TestFineBuckets(t *testing.T) {
	prev := -1
	for d := time.Duration(0); d < 40*time.Second; d = d*11/10 + time.Nanosecond*7 {
		i := fineIndex(d)
		if i < prev {
			t.Fatalf("fineIndex(%v) = %d, below %d of a shorter duration", d, i, prev)
		}
		prev = i
		if i < tickHistBuckets-1 && fineUpper(i) < d {
			t.Fatalf("fineIndex(%v) = %d, whose upper bound %v is below it", d, i, fineUpper(i))
		}
		if i > 0 && i < tickHistBuckets-1 && fineUpper(i-1) > d {
			t.Fatalf("fineIndex(%v) = %d, but bucket %d (up to %v) would hold it", d, i, i-1, fineUpper(i-1))
		}
	}
}

// TestDurationHistQuantiles: quantiles, sum, max and the Prometheus buckets of a known spread.
func TestDurationHistQuantiles(t *testing.T) {
	var h DurationHist
	if h.Quantile(0.5) != 0 {
		t.Fatal("quantile of an empty histogram is not 0")
	}
	// 1..1000 µs once each: p50 = 500 µs, p99 = 990 µs, max = 1 ms.
	for i := 1; i <= 1000; i++ {
		h.Observe(time.Duration(i) * time.Microsecond)
	}
	near := func(name string, got, want time.Duration) {
		if got < want || float64(got) > float64(want)*1.1 {
			t.Errorf("%s = %v, want %v (+10%%)", name, got, want)
		}
	}
	near("p50", h.Quantile(0.5), 500*time.Microsecond)
	near("p99", h.Quantile(0.99), 990*time.Microsecond)
	if h.Max() != time.Millisecond || h.Count() != 1000 {
		t.Errorf("max %v count %d", h.Max(), h.Count())
	}
	if got, want := h.Sum(), 500500*time.Microsecond; got != want {
		t.Errorf("sum %v, want %v", got, want)
	}
	b := h.Buckets() // cumulative at 0.0001, 0.00025, 0.0005, 0.001, ...
	if b[0] != 100 || b[1] != 250 || b[2] != 500 || b[3] != 1000 || b[len(b)-1] != 1000 {
		t.Errorf("buckets %v", b)
	}
	h.Observe(-time.Second)
	if h.Buckets()[0] != 101 {
		t.Errorf("a negative duration is not counted as 0")
	}
}

// TestRecentTickWindow: the recent figures of `stats` cover the current and
// the previous TickWindow, so a slow tick and skipped ticks leave them after
// two windows while the since-start figures keep them.
func TestRecentTickWindow(t *testing.T) {
	var tt TickTiming
	t0 := time.Unix(1000, 0)
	tt.ObserveWork(10*time.Millisecond, t0)
	tt.Skipped.Add(5)
	tt.ObserveWork(time.Millisecond, t0.Add(time.Second))
	recent := func() string { s := tt.Summary(); return s[strings.Index(s, "| recent"):] }
	if !strings.Contains(recent(), "skipped=5 ") || !strings.Contains(recent(), "work_max=10000us") {
		t.Errorf("first window: %s", recent())
	}
	tt.ObserveWork(time.Millisecond, t0.Add(TickWindow+time.Second)) // rotates: the slow tick is in the previous window
	if !strings.Contains(recent(), "skipped=5 ") || !strings.Contains(recent(), "work_max=10000us") {
		t.Errorf("second window: %s", recent())
	}
	tt.ObserveWork(time.Millisecond, t0.Add(2*TickWindow+2*time.Second)) // rotates again: gone
	if !strings.Contains(recent(), "skipped=0 ") || !strings.Contains(recent(), "work_max=1000us") || !strings.Contains(recent(), "work_p99=1000us") {
		t.Errorf("third window: %s", recent())
	}
	if all := tt.Summary(); !strings.Contains(all, "skipped=5 ") || !strings.Contains(all, "work_max=10000us") {
		t.Errorf("since start: %s", all)
	}
}
