package bots

import (
	"path/filepath"
	"testing"

	"twserver/internal/testenv"
	"twserver/world"
)

// TestModes: TDM, LMS and LTS games of 2 game minutes with 4 normal bots:
// kills happen, and in the team modes no bot ever aims at a teammate.
func TestModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		gt   world.GameType
		mp   string
	}{
		{"tdm", world.GameTDM, "dm1"},
		{"lms", world.GameLMS, "lms1"},
		{"lts", world.GameLTS, "lms1"},
	} {
		p := filepath.Join(stockDir, tc.mp+".map")
		testenv.Stat(t, p, "teeworlds-data")
		m, nav := stockNav(t, p)
		cfg := world.DefaultConfig()
		cfg.GameType = tc.gt
		cfg.ScoreLimit = 0
		var teams []int
		if tc.gt != world.GameLMS {
			teams = []int{0, 1, 0, 1}
		}
		g := newGame(t, nav, m, cfg, 11, []Skill{Normal, Normal, Normal, Normal}, teams)
		teamTargets, targets := 0, 0
		for n := 0; n < 2*60*50; n++ {
			g.step()
			for _, b := range g.bots {
				if b.target < 0 {
					continue
				}
				targets++
				if teams != nil && g.w.Team(b.target) == g.w.Team(b.cid) {
					teamTargets++
				}
			}
		}
		kills := 0
		for _, k := range g.kills {
			kills += k
		}
		t.Logf("%s: kills %v deaths %v, %d ticks with a target, longest still %d ticks", tc.name, g.kills, g.deaths, targets, g.maxStill)
		if kills == 0 || targets == 0 {
			t.Errorf("%s: no fighting (%d kills, %d ticks with a target)", tc.name, kills, targets)
		}
		if teamTargets != 0 {
			t.Errorf("%s: bots aimed at teammates on %d ticks", tc.name, teamTargets)
		}
		checkStill(t, tc.name, g)
	}
}

// TestNoNav: bots without a graph (nil Nav) still fight on dm1; with the
// graph they move along its edges, without it they use none.
func TestNoNav(t *testing.T) {
	m := loadMap(t, "../world/testdata/dm1.map")
	cfg := world.DefaultConfig()
	cfg.ScoreLimit = 0
	g := newGame(t, nil, m, cfg, 2, []Skill{Hard, Hard, Hard, Hard}, nil)
	g.run(2 * 60 * 50)
	kills := 0
	for i, b := range g.bots {
		kills += g.kills[i]
		if tried, _ := b.EdgeStats(); tried != [NumEdgeKinds]int{} {
			t.Errorf("bot %d followed graph edges without a graph: %v", i, tried)
		}
	}
	t.Logf("kills %v deaths %v", g.kills, g.deaths)
	if kills == 0 {
		t.Errorf("no kills without a graph")
	}
}
