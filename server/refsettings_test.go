package server

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/gamemsg"
	"twserver/world/twmap"
)

// TestMapRotationCycles: with map.rotation (sv_maprotation) the server moves
// to the next map when a match ends (sv_matches_per_map 1): two players, a
// one-minute time limit (bob kills himself once, so alice leads and the
// match ends), the 10 s end of match, then everybody is on beta.
func TestMapRotationCycles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"alpha", "beta"} {
		if err := os.WriteFile(filepath.Join(dir, n+".map"), twmap.DefaultData(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			c.Map.Dir, c.Map.Rotation = dir, []string{"alpha", "beta"}
			c.Game.TimeLimit, c.Game.ScoreLimit = 1, 0
		})
		if wc := ts.worldConfig(); wc.MatchesPerMap != 1 {
			t.Errorf("world MatchesPerMap %d with a rotation, want 1", wc.MatchesPerMap)
		}
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		var wg sync.WaitGroup
		wg.Go(func() {
			b.run(5 * time.Second) // the match starts and bob spawns
			b.sendGame(&gamemsg.ClKill{})
			b.run(75 * time.Second)
		})
		a.run(80 * time.Second)
		wg.Wait()
		if a.mapName != "beta" || b.mapName != "beta" {
			t.Errorf("after one match: maps %q and %q, want beta", a.mapName, b.mapName)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Map.Dir = dir })
		if wc := ts.worldConfig(); wc.MatchesPerMap != 0 {
			t.Errorf("world MatchesPerMap %d without a rotation, want 0 (no map change)", wc.MatchesPerMap)
		}
	})
}

// TestServerInfoHostSkill: sv_hostname and sv_skill_level reach the server
// info.
func TestServerInfoHostSkill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.Hostname = "tw.example.org"; c.Server.SkillLevel = 2 })
		u := queryInfo(t, ts.mn, cl2Addr)
		_, _, host, _, _ := u.GetString(), u.GetString(), u.GetString(), u.GetString(), u.GetString()
		_, skill := u.GetInt(), u.GetInt()
		if u.Err() != nil || host != "tw.example.org" || skill != 2 {
			t.Errorf("host %q skill %d (%v)", host, skill, u.Err())
		}
	})
}

// TestWorldConfigFromSettings: the game settings of the configuration reach
// the world's (sv_inactivekick, sv_inactivekick_spec, sv_spamprotection,
// sv_strict_spectate_mode, sv_player_ready_mode with sv_warmup -1).
func TestWorldConfigFromSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			g := &c.Game
			g.InactiveKick, g.InactiveKickSpec, g.SpamProtection, g.StrictSpectate = 3, true, false, true
			g.PlayerReadyMode, g.Warmup = true, -1
		})
		wc := ts.worldConfig()
		if wc.InactiveKick != 3 || !wc.InactiveKickSpec || wc.SpamProtection || !wc.StrictSpectate || !wc.PlayerReadyMode || wc.Warmup != -1 {
			t.Errorf("world config %+v", wc)
		}
	})
}

// TestSilentSpectator: with sv_silent_spectator_mode (the default) a
// spectator's join and leave reach the others marked silent, as the
// reference sends them; without it they are announced.
func TestSilentSpectator(t *testing.T) {
	for _, silent := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			ts := startServer(t, func(c *config.Config) { c.Server.PlayerSlots = 1; c.Game.SilentSpectator = silent })
			a := join(t, ts, cl1Addr, "alice") // the one player
			b := join(t, ts, cl2Addr, "bob")   // a spectator: the player slots are full
			a.run(200 * time.Millisecond)
			b.conn.Disconnect(b.now(), "bye")
			b.flush()
			a.run(200 * time.Millisecond)
			var info *gamemsg.SvClientInfo
			for i := range a.clientInfos {
				if a.clientInfos[i].Name == "bob" {
					info = &a.clientInfos[i]
				}
			}
			if info == nil || info.Team != -1 || info.Silent != silent {
				t.Errorf("silent=%v: bob's client info to alice %+v", silent, info)
			}
			if len(a.drops) != 1 || a.drops[0].Silent != silent {
				t.Errorf("silent=%v: drops seen by alice %+v", silent, a.drops)
			}
		})
	}
}
