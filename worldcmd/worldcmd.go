// Package worldcmd is the console's commands that act on the game world
// alone: pausing and restarting the match, moving players between teams
// and listing the tuning. The game loop (package server) adds them to its
// command table; they run on the loop's goroutine like every command.
package worldcmd

import (
	"fmt"

	"twserver/console"
	"twserver/world"
	"twserver/world/tuning"
)

// Handlers returns the world's commands over the world that cur returns
// when a command runs (a map change replaces it): "pause [seconds]",
// "restart [warmup]", "set_team ID TEAM [delay]", "set_team_all TEAM",
// "swap_teams", "shuffle_teams", "force_teambalance" and "tunes". out
// prints a line of console output; restarted is told the warmup of a
// restart (for the log).
func Handlers(cur func() *world.World, out func(string), restarted func(warmup int)) map[string]console.Handler {
	return map[string]console.Handler{
		"pause": func(_ console.Caller, a console.Args) error {
			w := cur()
			if a.N() == 0 {
				w.TogglePause()
			} else {
				w.Pause(a.Int(0))
			}
			return nil
		},
		"restart": func(_ console.Caller, a console.Args) error {
			cur().Restart(a.Int(0))
			restarted(a.Int(0))
			return nil
		},
		"set_team": func(_ console.Caller, a console.Args) error {
			cid, team := min(max(a.Int(0), 0), world.MaxClients-1), min(max(a.Int(1), -1), 1)
			if cur().ForceTeamDelay(cid, team, a.Int(2)) {
				out(fmt.Sprintf("moved client %d to team %d", cid, team))
			}
			return nil
		},
		"set_team_all":      func(_ console.Caller, a console.Args) error { cur().SetTeamAll(a.Int(0)); return nil },
		"swap_teams":        func(console.Caller, console.Args) error { cur().SwapTeams(); return nil },
		"shuffle_teams":     func(console.Caller, console.Args) error { cur().ShuffleTeams(); return nil },
		"force_teambalance": func(console.Caller, console.Args) error { cur().ForceTeamBalance(); return nil },
		"tunes": func(console.Caller, console.Args) error {
			t := cur().Tuning()
			for i, n := range tuning.Names {
				v, _ := t.Get(i)
				out(fmt.Sprintf("%s %.2f", n, v))
			}
			return nil
		},
	}
}
