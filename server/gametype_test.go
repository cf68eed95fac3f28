package server

import (
	"io"
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/world"
)

// TestGameTypes: every game type shows its name and the configured skill
// level in the server info, and a joining client gets its game flags
// before any client info (the 0.7.5 client picks team colours when a
// client info arrives).
func TestGameTypes(t *testing.T) {
	for _, tc := range []struct {
		typ, name string
		flags     int32
	}{
		{"dm", "DM", 0},
		{"tdm", "TDM", world.GameFlagTeams},
		{"ctf", "CTF", world.GameFlagTeams | world.GameFlagFlags},
		{"lms", "LMS", world.GameFlagSurvival},
		{"lts", "LTS", world.GameFlagTeams | world.GameFlagSurvival},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := startServer(t, func(c *config.Config) { c.Game.Type = tc.typ; c.Server.SkillLevel = 2 })
				a := join(t, ts, cl1Addr, "alice")
				b := join(t, ts, cl2Addr, "bob")
				if a.gameFlags != tc.flags || b.gameFlags != tc.flags || a.infoFirst || b.infoFirst {
					t.Errorf("game flags %d, %d (want %d); a client info before the game info: %v, %v",
						a.gameFlags, b.gameFlags, tc.flags, a.infoFirst, b.infoFirst)
				}
				u := queryInfo(t, ts.mn, netip.MustParseAddrPort("127.0.0.4:50003"))
				u.GetString()
				u.GetString()
				u.GetString()
				u.GetString()
				gt := u.GetString()
				u.GetInt()
				skill := u.GetInt()
				if u.Err() != nil || gt != tc.name || skill != 2 {
					t.Errorf("server info game type %q skill %d (%v), want %q 2", gt, skill, u.Err(), tc.name)
				}
			})
		})
	}
}

// TestTournamentModeSpectatorChat: with tournament_mode 2 a spectator's
// chat line reaches only the spectators while a game runs; players' lines
// reach everybody.
func TestTournamentModeSpectatorChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Game.TournamentMode = 2 })
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		c := join(t, ts, netip.MustParseAddrPort("127.0.0.4:50003"), "carol")
		// everybody joined as a spectator; bob and carol play
		for _, cmd := range []string{"set_team 1 0", "set_team 2 0"} {
			if _, err := io.WriteString(ts.cons, cmd+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		run := func(d time.Duration) {
			for _, tc := range []*testClient{a, b, c} {
				tc.run(d)
			}
		}
		run(time.Second)
		if ts.world.Team(0) != world.TeamSpectators || ts.world.Team(1) != world.TeamRed || !ts.world.GameRunning() {
			t.Fatalf("teams %d %d %d, running %v", ts.world.Team(0), ts.world.Team(1), ts.world.Team(2), ts.world.GameRunning())
		}
		a.say("from the stands")
		run(300 * time.Millisecond)
		b.say("from the field")
		run(300 * time.Millisecond)
		run(300 * time.Millisecond)
		got := func(tc *testClient, text string) bool {
			for _, m := range tc.chats {
				if m.Message == text {
					return true
				}
			}
			return false
		}
		if !got(a, "from the stands") || got(b, "from the stands") || got(c, "from the stands") {
			t.Errorf("spectator line reached alice %v bob %v carol %v, want alice only",
				got(a, "from the stands"), got(b, "from the stands"), got(c, "from the stands"))
		}
		if !got(a, "from the field") || !got(c, "from the field") {
			t.Errorf("player line did not reach everybody: alice %+v carol %+v", a.chats, c.chats)
		}
	})
}

// TestGameRulesReachTheWorld: sv_gametype, sv_teamdamage, sv_powerups,
// sv_respawn_delay_tdm, sv_match_swap, sv_countdown, sv_tournament_mode and
// sv_teambalance_time reach the world's settings.
func TestGameRulesReachTheWorld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			g := &c.Game
			g.Type, g.TeamDamage, g.Powerups, g.RespawnDelayTDM, g.MatchSwap = "lts", true, false, 7, false
			g.Countdown, g.TournamentMode, g.TeambalanceTime = -1, 2, 0
		})
		wc := ts.worldConfig()
		if wc.GameType != world.GameLTS || !wc.TeamDamage || wc.Powerups || wc.RespawnDelayTDM != 7 || wc.MatchSwap ||
			wc.Countdown != -1 || !wc.TournamentMode || wc.TeambalanceTime != 0 {
			t.Errorf("world config %+v", wc)
		}
	})
}
