package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestGameRules(t *testing.T) {
	def := Default().Game
	if def.Type != "dm" || !def.Powerups || def.RespawnDelayTDM != 3 || !def.MatchSwap ||
		def.TeambalanceTime != 1 || def.TeamDamage || def.Countdown != 0 || def.TournamentMode != 0 {
		t.Fatalf("defaults differ from the reference: %+v", def)
	}
	for _, tc := range []struct {
		in      string
		wantErr string // key named in the error; empty = valid
		check   func(GameConfig) bool
	}{
		{"type = \"lms\"", "", func(g GameConfig) bool { return g.Type == "lms" }},
		{"type = \"lts\"", "", func(g GameConfig) bool { return g.Type == "lts" }},
		{"type = \"race\"", "game.type", nil},
		{"team_damage = true", "", func(g GameConfig) bool { return g.TeamDamage }},
		{"powerups = false", "", func(g GameConfig) bool { return !g.Powerups }},
		{"respawn_delay_tdm = 0", "", func(g GameConfig) bool { return g.RespawnDelayTDM == 0 }},
		{"respawn_delay_tdm = 10", "", func(g GameConfig) bool { return g.RespawnDelayTDM == 10 }},
		{"respawn_delay_tdm = 11", "game.respawn_delay_tdm", nil},
		{"respawn_delay_tdm = -1", "game.respawn_delay_tdm", nil},
		{"match_swap = false", "", func(g GameConfig) bool { return !g.MatchSwap }},
		{"countdown = -1", "", func(g GameConfig) bool { return g.Countdown == -1 }},
		{"countdown = 1000", "", func(g GameConfig) bool { return g.Countdown == 1000 }},
		{"countdown = -2", "game.countdown", nil},
		{"countdown = 1001", "game.countdown", nil},
		{"tournament_mode = 2", "", func(g GameConfig) bool { return g.TournamentMode == 2 }},
		{"tournament_mode = 3", "game.tournament_mode", nil},
		{"teambalance_time = 0", "", func(g GameConfig) bool { return g.TeambalanceTime == 0 }},
		{"teambalance_time = 1001", "game.teambalance_time", nil},
		{"rounds_per_map = 2", "game.rounds_per_map", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			c, err := Parse([]byte("[game]\n" + tc.in + "\n"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnknownKey) {
					t.Errorf("err %v is neither ErrInvalid nor ErrUnknownKey", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c.Game) {
				t.Errorf("not applied: %+v", c.Game)
			}
		})
	}
}

// Every game key has its row in SvNames.
func TestGameRulesInSvNames(t *testing.T) {
	have := map[string]string{}
	for _, n := range SvNames {
		have[n.Key] = n.Sv
	}
	rt := reflect.TypeOf(GameConfig{})
	for i := range rt.NumField() {
		k := "game." + rt.Field(i).Tag.Get("toml")
		if !strings.HasPrefix(have[k], "sv_") {
			t.Errorf("SvNames has no sv_* row for %s", k)
		}
	}
}
