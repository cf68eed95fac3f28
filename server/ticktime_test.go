package server

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/console"
	"twserver/netproto"
)

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

// dueTicks makes n ticks due now on an idle server.
func dueTicks(s *Server, n int) {
	cur := s.world.CurrentTick()
	s.gameStart = time.Now().Add(-time.Duration(cur)*TickDuration - time.Duration(n)*TickDuration - time.Millisecond)
}

// TestTickTimingCounts: the loop counts its ticks, the skipped ones (run
// back to back) and the dropped ones (schedule moved), and measures one
// work and one lateness sample per wake-up.
// It runs under synctest: the fake clock does not move while the test
// runs, so a preempted test cannot make an extra tick due.
func TestTickTimingCounts(t *testing.T) {
	synctest.Test(t, testTickTimingCounts)
}

func testTickTimingCounts(t *testing.T) {
	s := newIdleServer(t, 2)
	tt := s.TickTiming()
	dueTicks(s, 1)
	s.advance()
	s.flushAll()
	s.endTickWork()
	if tt.Ticks.Load() != 1 || tt.Skipped.Load() != 0 || tt.Work.Count() != 1 || tt.Lateness.Count() != 1 {
		t.Fatalf("one due tick: ticks %d skipped %d work %d lateness %d", tt.Ticks.Load(), tt.Skipped.Load(), tt.Work.Count(), tt.Lateness.Count())
	}
	if l := tt.Lateness.Max(); l != time.Millisecond {
		t.Errorf("lateness %v, want 1 ms", l)
	}
	if tt.LastTick.Load() == 0 {
		t.Error("time of the last tick not published")
	}
	dueTicks(s, 3)
	s.advance()
	s.endTickWork()
	if tt.Ticks.Load() != 4 || tt.Skipped.Load() != 2 || tt.Work.Count() != 2 {
		t.Fatalf("three due ticks: ticks %d skipped %d work samples %d", tt.Ticks.Load(), tt.Skipped.Load(), tt.Work.Count())
	}
	if l := tt.Lateness.Max(); l != 2*TickDuration+time.Millisecond {
		t.Errorf("lateness of three due ticks %v, want 41 ms", l)
	}
	dueTicks(s, MaxCatchUpTicks+20)
	s.advance()
	s.endTickWork()
	if d := tt.Dropped.Load(); d != 20 {
		t.Errorf("dropped %d ticks, want 20", d)
	}
	if got, want := tt.Ticks.Load(), uint64(4+MaxCatchUpTicks); got != want {
		t.Errorf("ticks %d, want %d", got, want)
	}
	if got, want := tt.Skipped.Load(), uint64(2+MaxCatchUpTicks+19); got != want {
		t.Errorf("skipped %d, want %d", got, want)
	}
	// No tick due: nothing measured.
	s.advance()
	s.endTickWork()
	if tt.Work.Count() != 3 {
		t.Errorf("a wake-up without a due tick was measured")
	}
}

// TestTickTimingAllocs: measuring a steady-state tick through the loop's
// own path (advance, flush, endTickWork, gauges) allocates nothing.
func TestTickTimingAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s := newIdleServer(t, 8)
	step := func() {
		dueTicks(s, 2) // one snapshot tick among two
		s.advance()
		s.flushAll()
		s.endTickWork()
		ackNewest(s)
	}
	for range 200 {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a > 0 {
		t.Errorf("a measured tick allocates %.1f times", a)
	}
	g := s.Gauges()
	if g.Clients[dialect07][stateIngame].Load() != 8 || g.Players[dialect07].Load()+g.Spectators[dialect07].Load() != 8 {
		t.Errorf("gauges: ingame %d players %d spectators %d", g.Clients[dialect07][stateIngame].Load(), g.Players[dialect07].Load(), g.Spectators[dialect07].Load())
	}
	if g.Snapshots.Load() == 0 || g.SnapshotBytes.Count() != g.Snapshots.Load() || g.SnapshotBytes.Sum() == 0 {
		t.Errorf("snapshots %d, size samples %d, bytes %d", g.Snapshots.Load(), g.SnapshotBytes.Count(), g.SnapshotBytes.Sum())
	}
	// Snapshots go out Huffman-compressed, so only the headers give a lower bound.
	if g.Sent.Load() == 0 || g.SentBytes.Load() < g.Sent.Load()*netproto.PacketHeaderSize {
		t.Errorf("sent %d datagrams %d bytes", g.Sent.Load(), g.SentBytes.Load())
	}
}

// TestStatsShowsTickTiming: the console `stats` prints the tick figures.
func TestStatsShowsTickTiming(t *testing.T) {
	synctest.Test(t, testStatsShowsTickTiming)
}

func testStatsShowsTickTiming(t *testing.T) {
	s := newIdleServer(t, 1)
	var buf bytes.Buffer
	s.log = zerolog.New(&buf)
	for range 5 {
		dueTicks(s, 1)
		s.advance()
		s.endTickWork()
	}
	s.runConsole(console.Caller{}, "stats")
	out := buf.String()
	for _, want := range []string{"ticks=5 ", "skipped=0 ", "work_p50=", "work_p99=", "work_max=", "late_p99="} {
		if !strings.Contains(out, want) {
			t.Errorf("stats output lacks %q:\n%s", want, out)
		}
	}
}

// TestRecentTickWindow: the recent figures of `stats` cover the current and
// the previous TickWindow, so a slow tick and skipped ticks leave them after
// two windows while the since-start figures keep them.
func TestRecentTickWindow(t *testing.T) {
	var tt TickTiming
	t0 := time.Unix(1000, 0)
	tt.observeWork(10*time.Millisecond, t0)
	tt.Skipped.Add(5)
	tt.observeWork(time.Millisecond, t0.Add(time.Second))
	recent := func() string { s := tt.summary(); return s[strings.Index(s, "| recent"):] }
	if !strings.Contains(recent(), "skipped=5 ") || !strings.Contains(recent(), "work_max=10000us") {
		t.Errorf("first window: %s", recent())
	}
	tt.observeWork(time.Millisecond, t0.Add(TickWindow+time.Second)) // rotates: the slow tick is in the previous window
	if !strings.Contains(recent(), "skipped=5 ") || !strings.Contains(recent(), "work_max=10000us") {
		t.Errorf("second window: %s", recent())
	}
	tt.observeWork(time.Millisecond, t0.Add(2*TickWindow+2*time.Second)) // rotates again: gone
	if !strings.Contains(recent(), "skipped=0 ") || !strings.Contains(recent(), "work_max=1000us") || !strings.Contains(recent(), "work_p99=1000us") {
		t.Errorf("third window: %s", recent())
	}
	if all := tt.summary(); !strings.Contains(all, "skipped=5 ") || !strings.Contains(all, "work_max=10000us") {
		t.Errorf("since start: %s", all)
	}
}
