package server

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/console"
	"twserver/metrics"
	"twserver/netproto"
	"twserver/session"
)

// dueTicks makes n ticks due now on an idle server.
func dueTicks(s *Server, n int) {
	cur := s.world.CurrentTick()
	s.sched.SetStart(time.Now().Add(-time.Duration(cur)*netproto.TickDuration - time.Duration(n)*netproto.TickDuration - time.Millisecond))
}

// TestTickTimingCounts: the loop counts its ticks, the skipped ones (run
// back to back), the snapshot ticks those skipped and the dropped ones
// (schedule moved), and measures one
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
	if n := tt.SnapsSkipped.Load(); n != 0 {
		t.Errorf("one due tick: %d snapshot ticks skipped", n)
	}
	// Four due ticks hold two snapshot ticks: one is sent, one skipped.
	dueTicks(s, 4)
	s.advance()
	s.endTickWork()
	if tt.Ticks.Load() != 5 || tt.Skipped.Load() != 3 || tt.Work.Count() != 2 {
		t.Fatalf("four due ticks: ticks %d skipped %d work samples %d", tt.Ticks.Load(), tt.Skipped.Load(), tt.Work.Count())
	}
	if n := tt.SnapsSkipped.Load(); n != 1 {
		t.Errorf("four due ticks: %d snapshot ticks skipped, want 1", n)
	}
	if l := tt.Lateness.Max(); l != 3*netproto.TickDuration+time.Millisecond {
		t.Errorf("lateness of four due ticks %v, want 61 ms", l)
	}
	dueTicks(s, MaxCatchUpTicks+20)
	s.advance()
	s.endTickWork()
	if d := tt.Dropped.Load(); d != 20 {
		t.Errorf("dropped %d ticks, want 20", d)
	}
	if got, want := tt.Ticks.Load(), uint64(5+MaxCatchUpTicks); got != want {
		t.Errorf("ticks %d, want %d", got, want)
	}
	if got, want := tt.Skipped.Load(), uint64(3+MaxCatchUpTicks+19); got != want {
		t.Errorf("skipped %d, want %d", got, want)
	}
	// MaxCatchUpTicks (even) simulated ticks hold half as many snapshot
	// ticks, one sent; the dropped ones were never ticks a client sees.
	if got, want := tt.SnapsSkipped.Load(), uint64(1+MaxCatchUpTicks/2-1); got != want {
		t.Errorf("snapshot ticks skipped %d, want %d", got, want)
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
	if g.Clients[metrics.Dialect07][session.Ingame].Load() != 8 || g.Players[metrics.Dialect07].Load()+g.Spectators[metrics.Dialect07].Load() != 8 {
		t.Errorf("gauges: ingame %d players %d spectators %d", g.Clients[metrics.Dialect07][session.Ingame].Load(), g.Players[metrics.Dialect07].Load(), g.Spectators[metrics.Dialect07].Load())
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

// TestGaugeStateNames: the slot states index metrics.Gauges.Clients, so
// their names and order are the metrics package's.
func TestGaugeStateNames(t *testing.T) {
	if len(metrics.ClientStates) != session.NumStates {
		t.Fatalf("%d slot states, metrics counts %d", session.NumStates, len(metrics.ClientStates))
	}
	for i, want := range metrics.ClientStates {
		if got := session.State(i).String(); got != want {
			t.Errorf("slot state %d is %q, metrics counts %q", i, got, want)
		}
	}
}
