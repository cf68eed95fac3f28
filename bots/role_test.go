package bots

import (
	"path/filepath"
	"testing"

	"twserver/internal/testenv"
	"twserver/world"
)

// TestCTFRoles: a team's bots defend in proportion (every third by rank
// among the team's bots) whatever client ids they got, humans and the
// other team's bots left out.
func TestCTFRoles(t *testing.T) {
	p := filepath.Join(stockDir, "ctf1.map")
	testenv.Stat(t, p, "teeworlds-data")
	m, _ := stockNav(t, p)
	cases := []struct {
		name      string
		red, blue []int // bots' client ids
		humans    []int // on red
		defenders int   // of red's bots
	}{
		{"alternating", []int{0, 2, 4, 6}, []int{1, 3, 5, 7}, nil, 1},
		{"every third id", []int{2, 5, 8, 11}, []int{0, 1, 3, 4}, nil, 1},
		{"ids 0, 3, 6", []int{0, 3, 6}, nil, nil, 1},
		{"two", []int{4, 9}, []int{1, 2}, nil, 0},
		{"humans first", []int{4, 6, 8, 10, 12, 13}, []int{3}, []int{0, 1, 2}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := world.DefaultConfig()
			cfg.GameType = world.GameCTF
			cfg.TeambalanceTime = 0 // any teams
			cfg.PlayerSlots = 16
			w, err := world.New(m, cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			join := func(cid, team int, bot bool) {
				info := world.PlayerInfo{Bot: bot, Name: "p"}
				if err := w.ConnectPlayer(cid, info); err != nil {
					t.Fatal(err)
				}
				if err := w.EnterPlayer(cid, info); err != nil {
					t.Fatal(err)
				}
				if w.Team(cid) != team && !w.SetTeam(cid, team) {
					t.Fatalf("client %d not moved to team %d", cid, team)
				}
			}
			for _, cid := range tc.humans {
				join(cid, world.TeamRed, false)
			}
			for _, cid := range tc.red {
				join(cid, world.TeamRed, true)
			}
			for _, cid := range tc.blue {
				join(cid, world.TeamBlue, true)
			}
			defenders := 0
			for _, cid := range tc.red {
				defenders += ctfRole(w, cid, world.TeamRed)
			}
			if defenders != tc.defenders {
				t.Errorf("%d of red's bots %v defend, want %d", defenders, tc.red, tc.defenders)
			}
		})
	}
}
