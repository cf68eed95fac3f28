package record

import (
	"runtime"
	"testing"

	"twserver/config"
)

// TestRecordTickAllocs: recording adds no allocations to a steady-state
// tick (the world's tick with the recorder's hooks around it), with a demo
// snapshot every second tick and every tick, and a checkpoint every
// second (four of them in the measured ticks).
func TestRecordTickAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, rate := range []int{25, 50} {
		g := newGame(t, 8, nil, func(c *config.Config) {
			c.Server.SnapshotRate, c.Record.CheckpointInterval = rate, 1
		})
		for range 600 {
			g.step()
		}
		// The loop blocks between ticks; yield likewise so the writer
		// goroutines run and hand their buffers back (AllocsPerRun runs on one P).
		a := testing.AllocsPerRun(200, func() { g.step(); runtime.Gosched() })
		st := g.r.Status()
		g.r.Stop()
		switch {
		case a > 0:
			t.Errorf("snapshot rate %d: steady-state tick with recording allocates %.2f times", rate, a)
		case st.TeehistBytes == 0 || st.DemoBytes == 0 || !st.TeehistActive || !st.DemoActive:
			t.Errorf("snapshot rate %d: nothing recorded: %+v", rate, st)
		}
	}
}

func BenchmarkRecordTick8Players(b *testing.B) {
	g := newGame(b, 8, nil, nil)
	for range 600 {
		g.step()
	}
	b.ReportAllocs()
	for b.Loop() {
		g.step()
	}
	g.r.Stop()
}
