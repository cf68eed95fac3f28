package bots

import (
	"testing"
	"time"

	"twserver/world"
)

func benchGame(tb testing.TB, gt world.GameType, n int) *game {
	m := loadMap(tb, "../world/testdata/ctf1.map")
	if gt != world.GameCTF {
		m = loadMap(tb, "../world/testdata/dm1.map")
	}
	nav, err := BuildNav(m)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := world.DefaultConfig()
	cfg.GameType = gt
	cfg.ScoreLimit = 0
	sk := make([]Skill, n)
	teams := make([]int, n)
	for i := range sk {
		sk[i] = Skill(i % 3)
		teams[i] = i % 2
	}
	if gt == world.GameDM {
		teams = nil
	}
	g := newGame(tb, nav, m, cfg, 5, sk, teams)
	g.run(1000)
	return g
}

// TestThinkNoAllocs: in steady state a game tick with its bots thinking
// allocates nothing (DM and CTF, 8 bots of all skills).
func TestThinkNoAllocs(t *testing.T) {
	for _, gt := range []world.GameType{world.GameDM, world.GameCTF} {
		g := benchGame(t, gt, 8)
		if a := testing.AllocsPerRun(500, g.step); a != 0 {
			t.Errorf("game type %d: %v allocations per tick with 8 bots", gt, a)
		}
	}
}

// BenchmarkThink measures one bot's Think (ns per bot-tick), in a DM game
// of 8 bots; the world tick is excluded from the figure.
func BenchmarkThink(b *testing.B) {
	g := benchGame(b, world.GameDM, 8)
	b.ReportAllocs()
	b.ResetTimer()
	var think time.Duration
	for i := 0; i < b.N; i++ {
		for j, bt := range g.bots {
			g.w.SetInput(bt.cid, g.pending[j])
		}
		g.w.Tick()
		g.w.DrainEvents(g.onEvent)
		t0 := time.Now()
		for j, bt := range g.bots {
			in := bt.Think(g.w)
			g.w.DirectInput(bt.cid, in)
			g.pending[j] = in
		}
		think += time.Since(t0)
		g.w.PostSnap()
	}
	b.ReportMetric(float64(think.Nanoseconds())/float64(b.N*len(g.bots)), "ns/bot-tick")
}

// BenchmarkBuildNav measures the graph build of dm1.
func BenchmarkBuildNav(b *testing.B) {
	m := loadMap(b, "../world/testdata/dm1.map")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := BuildNav(m); err != nil {
			b.Fatal(err)
		}
	}
}
