package bots

import (
	"testing"
	"time"

	"twserver/world"
)

func TestSmokeDM1(t *testing.T) {
	m := loadMap(t, "../world/testdata/dm1.map")
	t0 := time.Now()
	nav, err := BuildNav(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nav: %d nodes, %d edges (walk %d jump %d djump %d hook %d), %d sim ticks, %d bytes, %v",
		nav.Nodes(), nav.Edges(), nav.EdgesOfKind(EdgeWalk), nav.EdgesOfKind(EdgeJump), nav.EdgesOfKind(EdgeDoubleJump), nav.EdgesOfKind(EdgeHook),
		nav.SimTicks(), nav.Bytes(), time.Since(t0))
	cfg := world.DefaultConfig()
	cfg.ScoreLimit = 0
	g := newGame(t, nav, m, cfg, 1, []Skill{Normal, Normal, Normal, Normal}, nil)
	t0 = time.Now()
	g.run(5 * 60 * 50)
	t.Logf("5 min in %v; kills %v deaths %v maxStill %d", time.Since(t0), g.kills, g.deaths, g.maxStill)
}

func TestSmokeCTF1(t *testing.T) {
	m := loadMap(t, "../world/testdata/ctf1.map")
	t0 := time.Now()
	nav, err := BuildNav(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nav: %d nodes, %d edges, %d sim ticks, %d bytes, %v", nav.Nodes(), nav.Edges(), nav.SimTicks(), nav.Bytes(), time.Since(t0))
	cfg := world.DefaultConfig()
	cfg.GameType = world.GameCTF
	cfg.ScoreLimit = 0
	g := newGame(t, nav, m, cfg, 1, []Skill{Normal, Normal, Normal, Normal, Normal, Normal, Normal, Normal}, []int{0, 1, 0, 1, 0, 1, 0, 1})
	t0 = time.Now()
	g.run(10 * 60 * 50)
	t.Logf("10 min in %v; kills %v deaths %v caps %v grabs %d maxStill %d", time.Since(t0), g.kills, g.deaths, g.caps, g.grabs, g.maxStill)
	logEdges(t, g)
	t.Logf("deaths by weapon (game,self,world,hammer,gun,shotgun,grenade,laser,ninja): %v", g.byWeapon)
}

func TestSmokeHardEasy(t *testing.T) {
	m := loadMap(t, "../world/testdata/dm1.map")
	nav, err := BuildNav(m)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		cfg := world.DefaultConfig()
		cfg.ScoreLimit = 0
		g := newGame(t, nav, m, cfg, seed, []Skill{Hard, Easy, Hard, Easy}, nil)
		g.run(2 * 60 * 50)
		t.Logf("seed %d kills %v deaths %v", seed, g.kills, g.deaths)
	}
}

func logEdges(t *testing.T, g *game) {
	var tried, done [NumEdgeKinds]int
	for _, b := range g.bots {
		tr, dn := b.EdgeStats()
		for k := range tr {
			tried[k] += tr[k]
			done[k] += dn[k]
		}
	}
	t.Logf("edges tried %v done %v", tried, done)
}
