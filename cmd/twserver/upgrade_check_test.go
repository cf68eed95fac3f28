package main

import (
	"encoding/json"
	"strings"
	"testing"

	"twserver/config"
	"twserver/handover"
)

// TestCheckState: a handover this process's configuration cannot go on
// with is refused with a reason an operator can act on. Before, a
// configuration with another game.type was refused only once the world
// was read, as "worldstate: malformed state: 0 is not in 2..2 (value
// 34884)".
func TestCheckState(t *testing.T) {
	cfg := func(port int, typ string) config.Config {
		c := config.Default()
		c.Server.Bind, c.Server.Port, c.Game.Type = "127.0.0.1", port, typ
		return c
	}
	world := json.RawMessage(`{"map":"twsrv_arena"}`)
	game := func(port, typ string) handover.GameState {
		return handover.GameState{Addr: "127.0.0.1:" + port, World: world, GameType: typ}
	}
	for _, tt := range []struct {
		name  string
		games []handover.GameState
		cfgs  []config.Config
		want  string // "" = accepted
	}{
		{"same", []handover.GameState{game("8303", "DM"), game("8304", "CTF")}, []config.Config{cfg(8303, "dm"), cfg(8304, "ctf")}, ""},
		{"port changed", []handover.GameState{game("8303", "DM")}, []config.Config{cfg(8305, "dm")}, "the games' addresses changed"},
		{"game added", []handover.GameState{game("8303", "DM")}, []config.Config{cfg(8303, "dm"), cfg(8304, "dm")}, "the games' addresses changed"},
		{"type changed", []handover.GameState{game("8303", "DM"), game("8304", "CTF")}, []config.Config{cfg(8303, "dm"), cfg(8304, "lts")},
			`the game 127.0.0.1:8304 plays CTF and this configuration says game.type = "lts"`},
		{"old process without the type", []handover.GameState{game("8303", "")}, []config.Config{cfg(8303, "ctf")}, ""},
		{"no world", []handover.GameState{{Addr: "127.0.0.1:8303", GameType: "DM"}}, []config.Config{cfg(8303, "ctf")}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := checkState(handover.State{Games: tt.games}, tt.cfgs)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}
