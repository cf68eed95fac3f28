package world

import "testing"

// survivalRows is a closed room with a flat floor, four spawn points and
// pickups (which the survival modes do not create).
var survivalRows = []string{
	"##############################",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#.S.R.AHgnNL...........S.B...#",
	"##############################",
}

// survivalWorld starts a survival game of n players and ticks until every
// one of them has spawned in the running first round.
func survivalWorld(t *testing.T, gt GameType, n int, mod func(*Config)) *World {
	t.Helper()
	cfg := DefaultConfig()
	cfg.GameType = gt
	if mod != nil {
		mod(&cfg)
	}
	w := newTestWorld(t, cfg, survivalRows...)
	for i := 0; i < n; i++ {
		if err := w.AddPlayer(i, PlayerInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 400; k++ {
		w.Tick()
		all := true
		for i := 0; i < n; i++ {
			all = all && w.Alive(i)
		}
		if all && w.ctrl.state == stateRunning {
			return w
		}
	}
	t.Fatalf("players did not spawn in a running round (state %d)", w.ctrl.state)
	return nil
}

func playerFlags(t *testing.T, w *World, viewer, cid int) int32 {
	t.Helper()
	var b fakeBuilder
	if err := w.Snap(viewer, &b); err != nil {
		t.Fatal(err)
	}
	d := b.find(ObjPlayerInfo, uint16(cid))
	if d == nil {
		t.Fatalf("no PlayerInfo %d for viewer %d", cid, viewer)
	}
	return d[0]
}

func TestSurvivalGameInfo(t *testing.T) {
	for _, tc := range []struct {
		gt    GameType
		name  string
		flags int32
	}{
		{GameDM, "DM", 0},
		{GameTDM, "TDM", GameFlagTeams},
		{GameCTF, "CTF", GameFlagTeams | GameFlagFlags},
		{GameLMS, "LMS", GameFlagSurvival},
		{GameLTS, "LTS", GameFlagTeams | GameFlagSurvival},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseGameType(tc.name); got != tc.gt {
				t.Errorf("ParseGameType(%q) = %d", tc.name, got)
			}
			cfg := DefaultConfig()
			cfg.GameType = tc.gt
			w := newTestWorld(t, cfg, survivalRows...)
			if w.GameTypeName() != tc.name || w.GameInfo()[0] != tc.flags {
				t.Errorf("name %s flags %d, want %s %d", w.GameTypeName(), w.GameInfo()[0], tc.name, tc.flags)
			}
			survival := tc.flags&GameFlagSurvival != 0
			if got := len(w.pickups) == 0; got != survival {
				t.Errorf("%d pickups created", len(w.pickups))
			}
			if n := len(w.spawns[0]) + len(w.spawns[1]) + len(w.spawns[2]); n != 4 {
				t.Errorf("%d spawn points, want 4", n)
			}
		})
	}
}

func TestSurvivalStartEquipment(t *testing.T) {
	for _, gt := range []GameType{GameLMS, GameLTS} {
		w := survivalWorld(t, gt, 2, nil)
		c := w.playerChar(0)
		want := [NumWeapons]int{WeaponHammer: -1, WeaponGun: 10, WeaponShotgun: 10, WeaponGrenade: 10, WeaponLaser: 5}
		for wpn := range want {
			got := c.weapons[wpn]
			if wpn == WeaponNinja {
				if got.got {
					t.Errorf("%s: has ninja", gt.Name())
				}
				continue
			}
			if !got.got || got.ammo != want[wpn] {
				t.Errorf("%s: weapon %d got %v ammo %d, want ammo %d", gt.Name(), wpn, got.got, got.ammo, want[wpn])
			}
		}
		if c.health != 10 || c.armor != 0 || c.active != WeaponGun {
			t.Errorf("%s: health %d armor %d active %d", gt.Name(), c.health, c.armor, c.active)
		}
	}
}

// The first round starts with a 3 s countdown (sv_countdown 0), none with
// -1, the configured one otherwise.
func TestSurvivalCountdown(t *testing.T) {
	for _, tc := range []struct{ countdown, want int32 }{{0, 3 * tickSpeed}, {-1, 0}, {5, 5 * tickSpeed}} {
		cfg := DefaultConfig()
		cfg.GameType = GameLMS
		cfg.Countdown = int(tc.countdown)
		w := newTestWorld(t, cfg, survivalRows...)
		w.AddPlayer(0, PlayerInfo{})
		w.AddPlayer(1, PlayerInfo{})
		d := gameData(t, w, 0)
		if tc.want == 0 {
			if d[1] != 0 || w.Paused() {
				t.Errorf("countdown %d: game data %v paused %v, want running", tc.countdown, d, w.Paused())
			}
			continue
		}
		if d[1] != GameStateFlagStartCountdown|GameStateFlagPaused || d[2] != w.tick+tc.want {
			t.Errorf("countdown %d: game data %v at tick %d", tc.countdown, d, w.tick)
		}
	}
}

func TestLMSRound(t *testing.T) {
	w := survivalWorld(t, GameLMS, 3, nil)
	kill(w, 0, 1)
	tickN(w, 1)
	if w.Alive(1) || playerFlags(t, w, 0, 1)&PlayerFlagDead == 0 {
		t.Fatal("killed player 1 not flagged dead")
	}
	// no respawn: after the 3 s auto respawn moment it spectates a live player
	tickN(w, 3*tickSpeed+5)
	p1 := w.player(1)
	if w.Alive(1) || !p1.deadSpecMode || p1.specMode != SpecPlayer || p1.spectatorID != 0 {
		t.Fatalf("player 1: alive %v dead spec %v mode %d following %d", w.Alive(1), p1.deadSpecMode, p1.specMode, p1.spectatorID)
	}
	var b fakeBuilder
	if err := w.Snap(1, &b); err != nil {
		t.Fatal(err)
	}
	if si := b.find(ObjSpectatorInfo, 1); si == nil || si[0] != SpecPlayer || si[1] != 0 {
		t.Fatalf("dead spectator's SpectatorInfo %v", si)
	}
	if f := playerFlags(t, w, 0, 1); f&PlayerFlagWatching == 0 || f&PlayerFlagDead == 0 {
		t.Fatalf("player 0 sees player 1 with flags %#x, want DEAD|WATCHING", f)
	}
	// a dead spectator may switch to another live player, not to itself
	p1.lastSetSpec = 0
	if !w.SetSpectatorMode(1, SpecPlayer, 2) || p1.spectatorID != 2 {
		t.Fatal("dead spectator could not follow live player 2")
	}
	w.tick += tickSpeed
	if w.SetSpectatorMode(1, SpecFreeview, -1) {
		t.Fatal("dead spectator switched to free view")
	}
	// the followed player dies: the dead spectator moves on to one still alive
	kill(w, 0, 2)
	tickN(w, 1)
	if p1.spectatorID != 0 {
		t.Fatalf("dead spectator follows %d after 2 died, want 0", p1.spectatorID)
	}
	// player 0 is the last one: 2 kills + 1 for the round
	if w.Score(0) != 3 {
		t.Fatalf("winner score %d, want 3", w.Score(0))
	}
	d := gameData(t, w, 0)
	if d[1] != GameStateFlagRoundOver || !w.Paused() {
		t.Fatalf("round end game data %v", d)
	}
	start := w.ctrl.gameStartTick
	if d[2] != w.tick-start-timerEnd/2*tickSpeed+timerEnd/2*tickSpeed {
		t.Fatalf("round over end value %d", d[2])
	}
	// after 5 s the next round: scores kept, 3 s countdown, everyone spawns
	tickN(w, timerEnd/2*tickSpeed)
	if d := gameData(t, w, 0); d[1] != GameStateFlagStartCountdown|GameStateFlagPaused {
		t.Fatalf("next round game data %v", d)
	}
	if w.ctrl.roundCount != 1 || w.Score(0) != 3 {
		t.Fatalf("round %d score %d", w.ctrl.roundCount, w.Score(0))
	}
	tickN(w, 3*tickSpeed+tickSpeed/2+2)
	for i := 0; i < 3; i++ {
		if !w.Alive(i) || w.player(i).deadSpecMode {
			t.Fatalf("player %d not back in the new round", i)
		}
	}
}

// A round whose last two players die together has no winner.
func TestLMSNoWinner(t *testing.T) {
	w := survivalWorld(t, GameLMS, 2, nil)
	w.playerChar(0).die(0, WeaponGame)
	w.playerChar(1).die(1, WeaponGame)
	tickN(w, 1)
	if d := gameData(t, w, 0); d[1] != GameStateFlagRoundOver || w.Score(0) != 0 || w.Score(1) != 0 {
		t.Fatalf("game data %v scores %d %d", d, w.Score(0), w.Score(1))
	}
}

func TestLMSScoreLimitEndsMatch(t *testing.T) {
	w := survivalWorld(t, GameLMS, 2, func(c *Config) { c.ScoreLimit = 2 })
	kill(w, 0, 1) // 1 for the kill, 1 for the round: the match is won
	tickN(w, 1)
	if d := gameData(t, w, 0); d[1] != GameStateFlagGameOver {
		t.Fatalf("game data %v, want game over", d)
	}
	tickN(w, timerEnd*tickSpeed+1)
	if w.Score(0) != 0 || w.ctrl.roundCount != 0 {
		t.Fatalf("new match: score %d round %d", w.Score(0), w.ctrl.roundCount)
	}
}

// The time limit counts per round: every player still in it scores 1.
// The match check that follows sees the same time limit: a single leader
// wins the match, a tie only ends the round.
func TestLMSTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kill   bool
		state  int32
		scores [3]int
	}{
		{"leader wins the match", true, GameStateFlagGameOver, [3]int{2, 1, 0}},
		{"tie ends the round", false, GameStateFlagRoundOver, [3]int{1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := survivalWorld(t, GameLMS, 3, func(c *Config) { c.TimeLimit = 1 })
			if tc.kill {
				kill(w, 0, 2)
			}
			start := w.ctrl.gameStartTick
			for w.tick < start+60*tickSpeed-1 {
				w.Tick()
				if w.ctrl.state != stateRunning {
					t.Fatalf("round ended at tick %d before the limit", w.tick)
				}
			}
			w.Tick()
			if d := gameData(t, w, 0); d[1] != tc.state {
				t.Fatalf("at the limit: %v", d)
			}
			if got := [3]int{w.Score(0), w.Score(1), w.Score(2)}; got != tc.scores {
				t.Fatalf("scores %v, want %v", got, tc.scores)
			}
		})
	}
}

func TestLTSRounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		act       func(w *World)
		red, blue int
	}{
		// 0 and 2 are red, 1 and 3 blue
		{"red wins", func(w *World) { kill(w, 0, 1); kill(w, 2, 3) }, 1, 0},
		{"blue wins", func(w *World) { kill(w, 1, 0); kill(w, 1, 2) }, 0, 1},
		{"everybody dies", func(w *World) {
			for i := 0; i < 4; i++ {
				w.playerChar(i).die(i, WeaponGame)
			}
		}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := survivalWorld(t, GameLTS, 4, nil)
			if w.Team(0) != TeamRed || w.Team(1) != TeamBlue || w.Team(2) != TeamRed || w.Team(3) != TeamBlue {
				t.Fatal("unexpected teams")
			}
			tc.act(w)
			tickN(w, 1)
			if w.ctrl.teamScore != [2]int{tc.red, tc.blue} {
				t.Fatalf("team scores %v, want %d %d", w.ctrl.teamScore, tc.red, tc.blue)
			}
			if d := gameData(t, w, 0); d[1] != GameStateFlagRoundOver {
				t.Fatalf("game data %v", d)
			}
		})
	}
}

// In LTS a dead player follows only live team mates; equal team scores at
// the score limit end the match (no sudden death in survival modes).
func TestLTSDeadSpectatorAndMatchEnd(t *testing.T) {
	w := survivalWorld(t, GameLTS, 4, func(c *Config) { c.ScoreLimit = 1 })
	kill(w, 1, 0)
	tickN(w, 3*tickSpeed+2)
	p0 := w.player(0)
	if !p0.deadSpecMode || p0.spectatorID != 2 {
		t.Fatalf("dead red player follows %d (dead spec %v), want red 2", p0.spectatorID, p0.deadSpecMode)
	}
	p0.lastSetSpec = 0
	if w.SetSpectatorMode(0, SpecPlayer, 1) {
		t.Fatal("dead red player may follow blue 1")
	}
	for i := 1; i < 4; i++ {
		if c := w.playerChar(i); c != nil {
			c.die(i, WeaponGame)
		}
	}
	tickN(w, 1)
	if d := gameData(t, w, 0); d[1] != GameStateFlagGameOver || w.ctrl.teamScore != [2]int{1, 1} {
		t.Fatalf("game data %v team scores %v, want game over at 1:1", d, w.ctrl.teamScore)
	}
}

// Players joining during a round spectate until it ends; in warmup (one
// player) deaths respawn.
func TestSurvivalJoinAndWarmup(t *testing.T) {
	w := survivalWorld(t, GameLMS, 2, nil)
	if err := w.AddPlayer(2, PlayerInfo{}); err != nil {
		t.Fatal(err)
	}
	tickN(w, tickSpeed)
	if p := w.player(2); w.Alive(2) || !p.deadSpecMode || playerFlags(t, w, 0, 2)&PlayerFlagDead == 0 {
		t.Fatalf("late joiner alive %v dead spec %v", w.Alive(2), p.deadSpecMode)
	}

	cfg := DefaultConfig()
	cfg.GameType = GameLMS
	w = newTestWorld(t, cfg, survivalRows...)
	addChars(t, w, 1)
	w.playerChar(0).die(0, WeaponSelf)
	tickN(w, 4*tickSpeed)
	if !w.Alive(0) || w.player(0).respawnDisabled {
		t.Fatal("no respawn in warmup")
	}
}

// Survival spawns are random among the free spawn points (the world's
// seeded PRNG): over many rounds every point is used.
func TestSurvivalRandomSpawn(t *testing.T) {
	w := survivalWorld(t, GameLMS, 2, nil)
	seen := map[int]bool{}
	for round := 0; round < 20; round++ {
		kill(w, 0, 1)
		tickN(w, 2)
		for k := 0; k < 20*tickSpeed && (w.ctrl.roundCount <= round || !w.Alive(0)); k++ {
			w.Tick()
		}
		if !w.Alive(0) {
			t.Fatalf("round %d: not respawned", round)
		}
		pos, _ := w.CharacterPos(0)
		seen[int(pos.X)/32] = true
		tickN(w, 2)
	}
	if len(seen) < 3 {
		t.Fatalf("spawned at only %d distinct points: %v", len(seen), seen)
	}
}
