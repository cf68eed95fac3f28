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
