package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"twserver/config"
	"twserver/handover"
)

// TestCheckState: a handover this process's configuration cannot go on
// with is refused with a reason an operator can act on. Before, a
// configuration with another game.type was refused only once the world
// was read, as "worldstate: malformed state: 0 is not in 2..2 (value
// 34884)", and one with too few slots as "slot 4: not a free slot of this
// game".
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
		// before: "the world of 127.0.0.1:8303: slot 4: not a free slot of this game"
		{"fewer slots", []handover.GameState{withSlots(game("8303", "DM"), 0, 5, 2)}, []config.Config{withMaxClients(cfg(8303, "dm"), 4)},
			"the game 127.0.0.1:8303 has 3 clients, one in slot 5, and this configuration says server.max_clients = 4"},
		{"enough slots", []handover.GameState{withSlots(game("8303", "DM"), 0, 3)}, []config.Config{withMaxClients(cfg(8303, "dm"), 4)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkState(handover.State{Games: tt.games}, tt.cfgs)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestCheckStateDecodesClients: checkState hands back each game's clients
// decoded, in the order of the games, which adopt then takes without
// decoding them again.
func TestCheckStateDecodesClients(t *testing.T) {
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", 8303
	cfg2 := cfg
	cfg2.Server.Port = 8304
	games := []handover.GameState{withSlots(handover.GameState{Addr: "127.0.0.1:8303"}, 2, 0), {Addr: "127.0.0.1:8304"}}
	clients, err := checkState(handover.State{Games: games}, []config.Config{cfg, cfg2})
	if err != nil {
		t.Fatal(err)
	}
	if len(clients) != 2 || len(clients[0]) != 2 || clients[0][0].ID != 2 || clients[0][1].ID != 0 || clients[1] != nil {
		t.Errorf("clients %+v, want slots 2 and 0 in the first game and none in the second", clients)
	}
	games[0].Slots = json.RawMessage(`[{"ID":`)
	if _, err := checkState(handover.State{Games: games}, []config.Config{cfg, cfg2}); err == nil || !strings.Contains(err.Error(), "the clients of 127.0.0.1:8303") {
		t.Errorf("malformed clients: err %v", err)
	}
}

// withSlots gives g clients in the slots ids.
func withSlots(g handover.GameState, ids ...int) handover.GameState {
	var b strings.Builder
	b.WriteString("[")
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"ID":%d}`, id)
	}
	b.WriteString("]")
	g.Slots = json.RawMessage(b.String())
	return g
}

// withMaxClients sets c's server.max_clients.
func withMaxClients(c config.Config, n int) config.Config {
	c.Server.MaxClients = n
	return c
}
