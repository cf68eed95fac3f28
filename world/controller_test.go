package world

import (
	"slices"
	"testing"

	"twserver/world/vmath"
)

var teamRows = []string{
	"##############################",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#.R.r....................b.B.#",
	"##############################",
}

func gameData(t *testing.T, w *World, viewer int) []int32 {
	t.Helper()
	var b fakeBuilder
	if err := w.Snap(viewer, &b); err != nil {
		t.Fatal(err)
	}
	d := b.find(ObjGameData, 0)
	if d == nil {
		t.Fatal("no GameData")
	}
	return d
}

// kill makes killer kill victim with the gun.
func kill(w *World, killer, victim int) {
	if c := w.playerChar(victim); c != nil {
		c.armor = 0
		c.takeDamage(vmath.Vec2{}, vmath.V(1, 0), 20, killer, WeaponGun)
	}
}

func tickN(w *World, n int) {
	for i := 0; i < n; i++ {
		w.Tick()
	}
}

func TestWarmupUntilEnoughPlayers(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	if err := w.AddPlayer(0, PlayerInfo{}); err != nil {
		t.Fatal(err)
	}
	tickN(w, 30)
	if d := gameData(t, w, 0); d[1] != GameStateFlagWarmup || d[2] != 0 {
		t.Fatalf("one player: game data %v, want infinite warmup", d)
	}
	w.playerStore[0].score = 3
	if err := w.AddPlayer(1, PlayerInfo{}); err != nil {
		t.Fatal(err)
	}
	start := w.tick
	tickN(w, 1)
	d := gameData(t, w, 0)
	if d[0] != start || d[1] != 0 {
		t.Fatalf("two players: game data %v, want running since %d", d, start)
	}
	if w.Score(0) != 0 {
		t.Fatal("score not reset at match start")
	}
}

func TestUserWarmup(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Warmup = 3
	w := newTestWorld(t, cfg, flatRows...)
	addChars(t, w, 2)
	d := gameData(t, w, 0)
	if d[1] != GameStateFlagWarmup || d[2] != 3*tickSpeed {
		t.Fatalf("warmup game data %v", d)
	}
	tickN(w, 3*tickSpeed)
	if d := gameData(t, w, 0); d[1] != 0 || d[0] != 3*tickSpeed {
		t.Fatalf("after warmup %v at tick %d", d, w.tick)
	}
}

func TestCountdown(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Countdown = 2
	w := newTestWorld(t, cfg, flatRows...)
	w.AddPlayer(0, PlayerInfo{})
	w.AddPlayer(1, PlayerInfo{})
	tickN(w, 1)
	d := gameData(t, w, 0)
	if d[1] != GameStateFlagStartCountdown|GameStateFlagPaused || !w.Paused() {
		t.Fatalf("countdown game data %v paused %v", d, w.Paused())
	}
	tickN(w, 2*tickSpeed)
	if w.Paused() || gameData(t, w, 0)[1] != 0 {
		t.Fatal("countdown did not end")
	}
}

func TestDMScoreLimitAndRestart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ScoreLimit = 2
	w := newTestWorld(t, cfg, flatRows...)
	addChars(t, w, 3)
	kill(w, 0, 1)
	if w.Score(0) != 1 {
		t.Fatalf("score %d", w.Score(0))
	}
	tickN(w, 30)
	kill(w, 0, 2)
	tickN(w, 1)
	d := gameData(t, w, 0)
	if d[1] != GameStateFlagGameOver || !w.Paused() {
		t.Fatalf("after score limit: %v", d)
	}
	tickN(w, timerEnd*tickSpeed)
	if d := gameData(t, w, 0); d[1] != 0 || w.Paused() {
		t.Fatalf("no restart: %v", d)
	}
	tickN(w, 1)
	if w.Score(0) != 0 {
		t.Fatal("scores not reset for the new match")
	}
}

func TestDMSuddenDeathOnTimeLimit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ScoreLimit = 0
	cfg.TimeLimit = 1
	w := newTestWorld(t, cfg, flatRows...)
	addChars(t, w, 2)
	kill(w, 0, 1)
	tickN(w, 40)
	kill(w, 1, 0)
	tickN(w, 60*tickSpeed)
	d := gameData(t, w, 0)
	if d[1] != GameStateFlagSuddenDeath {
		t.Fatalf("tie at time limit: %v", d)
	}
	tickN(w, 40)
	kill(w, 0, 1)
	tickN(w, 1)
	if d := gameData(t, w, 0); d[1] != GameStateFlagGameOver {
		t.Fatalf("sudden death kill: %v", d)
	}
}

func TestTDMScoring(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameTDM
	w := newTestWorld(t, cfg, teamRows...)
	addChars(t, w, 3) // red, blue, red
	if w.Team(0) != TeamRed || w.Team(1) != TeamBlue || w.Team(2) != TeamRed {
		t.Fatalf("teams %d %d %d", w.Team(0), w.Team(1), w.Team(2))
	}
	kill(w, 0, 1)
	if w.ctrl.teamScore != [2]int{1, 0} || w.Score(0) != 1 {
		t.Fatalf("enemy kill: team %v score %d", w.ctrl.teamScore, w.Score(0))
	}
	if got := w.playerStore[1].respawnTick - w.tick; got != 3*tickSpeed {
		t.Fatalf("tdm respawn delay %d", got)
	}
	w.cfg.TeamDamage = true
	kill(w, 0, 2)
	w.cfg.TeamDamage = false
	if w.ctrl.teamScore != [2]int{0, 0} || w.Score(0) != 0 {
		t.Fatalf("team kill: team %v score %d", w.ctrl.teamScore, w.Score(0))
	}
	// friendly fire does no damage
	tickN(w, 4*tickSpeed)
	c2 := w.playerChar(2)
	if c2 == nil {
		t.Fatal("no respawn")
	}
	c2.takeDamage(vmath.Vec2{}, vmath.V(1, 0), 5, 0, WeaponGun)
	if c2.health != 10 {
		t.Fatal("team damage with sv_teamdamage 0")
	}
	var b fakeBuilder
	w.Snap(0, &b)
	if d := b.find(ObjGameDataTeam, 0); d == nil || d[0] != 0 {
		t.Fatalf("GameDataTeam %v", d)
	}
}

func TestTeamChange(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameTDM
	w := newTestWorld(t, cfg, teamRows...)
	addChars(t, w, 2)
	drain(w)
	tickN(w, 3*tickSpeed) // team change cooldown since joining
	// joining the bigger team is refused with team balance on
	if w.SetTeam(1, TeamRed) {
		t.Fatal("unbalancing team change allowed")
	}
	tickN(w, 3*tickSpeed)
	if !w.SetTeam(1, TeamSpectators) {
		t.Fatal("change to spectators refused")
	}
	if w.Alive(1) || w.Team(1) != TeamSpectators {
		t.Fatal("spectator still playing")
	}
	evs := drain(w)
	var sawKill, sawTeam bool
	for _, e := range evs {
		switch e.Kind {
		case EvKillMsg:
			sawKill = e.Args[2] == WeaponGame
		case EvTeam:
			sawTeam = e.Args[0] == 1 && e.Args[1] == TeamSpectators && e.Args[3] == w.tick+3*tickSpeed
		}
	}
	if !sawKill || !sawTeam {
		t.Fatalf("events %+v", evs)
	}
	if w.SetTeam(1, TeamBlue) {
		t.Fatal("team change within the cooldown")
	}
	if w.Score(0) != 0 {
		t.Fatal("WEAPON_GAME death changed a score")
	}
}

func TestTeamBalance(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameTDM
	w := newTestWorld(t, cfg, teamRows...)
	addChars(t, w, 4)
	w.ForceTeam(1, TeamRed)
	w.ForceTeam(3, TeamRed)
	if w.ctrl.teamSize != [2]int{4, 0} {
		t.Fatalf("team sizes %v", w.ctrl.teamSize)
	}
	drain(w)
	tickN(w, 60*tickSpeed+2)
	if w.ctrl.teamSize != [2]int{2, 2} {
		t.Fatalf("after balancing team sizes %v", w.ctrl.teamSize)
	}
	victims := 0
	for _, e := range drain(w) {
		if e.Kind == EvGameMsg && e.Args[0] == GameMsgTeamBalanceVictim {
			victims++
		}
	}
	if victims != 2 {
		t.Fatalf("balance victims %d", victims)
	}
}

func TestCTF(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameCTF
	cfg.ScoreLimit = 0
	w := newTestWorld(t, cfg, teamRows...)
	cs := addChars(t, w, 2) // 0 red, 1 blue
	red, blue := w.flags[TeamRed], w.flags[TeamBlue]
	if red == nil || blue == nil {
		t.Fatal("flags missing")
	}
	drain(w)
	// blue grabs the red flag
	place(cs[1], vmath.V(red.stand.X, 305))
	tickN(w, 1)
	if red.carrier != cs[1] || w.ctrl.teamScore != [2]int{0, 1} || w.Score(1) != 1 {
		t.Fatalf("grab: carrier %v team %v score %d", red.carrier != nil, w.ctrl.teamScore, w.Score(1))
	}
	var b fakeBuilder
	w.Snap(0, &b)
	if d := b.find(ObjGameDataFlag, 0); d == nil || d[0] != 1 || d[1] != FlagAtStand {
		t.Fatalf("GameDataFlag %v", d)
	}
	// carry it home: capture
	place(cs[1], vmath.V(blue.stand.X, 305))
	tickN(w, 2)
	if !red.atStand || w.ctrl.teamScore != [2]int{0, 101} || w.Score(1) != 6 {
		t.Fatalf("capture: at stand %v team %v score %d", red.atStand, w.ctrl.teamScore, w.Score(1))
	}
	var capture, grabLine bool
	for _, e := range drain(w) {
		if e.Kind == EvGameMsg && e.Args[0] == GameMsgCTFCapture && e.Args[1] == TeamRed && e.Args[2] == 1 {
			capture = true
		}
		if e.Kind == EvFlagGrab && e.Args[0] == 1 && e.Args[1] == TeamBlue {
			grabLine = true
		}
	}
	if !capture || !grabLine {
		t.Fatalf("capture message %v, grab event %v", capture, grabLine)
	}
	// grab again, die: the flag drops; red returns it
	place(cs[1], vmath.V(red.stand.X, 305))
	tickN(w, 1)
	place(cs[1], groundPos(14))
	tickN(w, 1)
	kill(w, 0, 1)
	if red.carrier != nil || red.atStand || w.Score(0) != 2 {
		t.Fatalf("drop: carrier %v at stand %v killer score %d", red.carrier != nil, red.atStand, w.Score(0))
	}
	tickN(w, 10)
	drain(w)
	place(cs[0], vmath.V(red.pos.X, 305))
	tickN(w, 1)
	if !red.atStand || w.Score(0) != 3 {
		t.Fatalf("return: at stand %v score %d", red.atStand, w.Score(0))
	}
	if evs := drain(w); !slices.ContainsFunc(evs, func(e Event) bool {
		return e.Kind == EvFlagReturn && e.Args[0] == 0 && e.Args[1] == TeamRed
	}) {
		t.Fatalf("no return event by client 0: %+v", evs)
	}
}

func TestCTFDroppedFlagReturnsAfter30s(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameCTF
	w := newTestWorld(t, cfg, teamRows...)
	cs := addChars(t, w, 2)
	red := w.flags[TeamRed]
	place(cs[1], vmath.V(red.stand.X, 305))
	tickN(w, 1)
	place(cs[1], groundPos(14))
	tickN(w, 1)
	cs[1].die(1, WeaponSelf)
	place(cs[0], groundPos(25))
	tickN(w, flagReturnTime*tickSpeed)
	if red.atStand {
		t.Fatal("returned too early")
	}
	drain(w)
	tickN(w, 2)
	if !red.atStand {
		t.Fatal("not returned after 30 s")
	}
	if evs := drain(w); !slices.ContainsFunc(evs, func(e Event) bool {
		return e.Kind == EvFlagReturn && e.Args[0] == -1 && e.Args[1] == TeamRed
	}) {
		t.Fatalf("no return event without a player: %+v", evs)
	}
}

func TestSpawnSelection(t *testing.T) {
	// two players spawning in the same tick on a single spawn point: the
	// second takes the first free neighbour (left)
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	cs := addChars(t, w, 2)
	if cs[0].core.Pos.X != 80 || cs[1].core.Pos.X != 48 {
		t.Fatalf("spawn x %v %v, want 80 48", cs[0].core.Pos.X, cs[1].core.Pos.X)
	}
	// with several points the one farthest from the living characters wins
	w = newTestWorld(t, DefaultConfig(),
		"##############################",
		"#............................#",
		"#.S..........S.............S.#",
		"##############################")
	cs = addChars(t, w, 2)
	place(cs[0], vmath.V(80, 80))
	place(cs[1], vmath.V(112, 80))
	w.AddPlayer(2, PlayerInfo{})
	tickN(w, 1)
	if c := w.playerChar(2); c == nil || c.core.Pos.X != 27*32+16 {
		t.Fatalf("third player spawned at %+v, want the far right point", c)
	}
}

func TestSpectateFlag(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameCTF
	w := newTestWorld(t, cfg, teamRows...)
	cs := addChars(t, w, 2)
	w.AddPlayer(4, PlayerInfo{Spectator: true})
	tickN(w, 1)
	if !w.SetSpectatorMode(4, SpecFlagBlue, -1) {
		t.Fatal("flag spectating refused")
	}
	blue := w.flags[TeamBlue]
	place(cs[0], vmath.V(blue.stand.X, 305)) // red grabs blue
	tickN(w, 2)
	var b fakeBuilder
	w.Snap(4, &b)
	si := b.find(ObjSpectatorInfo, 4)
	if si == nil || si[0] != SpecFlagBlue || si[1] != 0 || si[2] != int32(blue.pos.X) {
		t.Fatalf("spectator info %v", si)
	}
	if c := b.find(ObjCharacter, 0); c == nil || c[CharHealth] == 0 {
		t.Fatal("flag carrier's private fields not shown to its spectator")
	}
}

func TestInactivity(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxClients int
		wantKick   bool
	}{
		{"spectator slot free", 10, false}, // 8 player slots of 10 clients
		{"no spectator slot", 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaxClients = tc.maxClients
			w := newTestWorld(t, cfg, flatRows...)
			addChars(t, w, 2)
			drain(w)
			in := Input{TargetX: 1}
			for k := 0; k < 3*60*tickSpeed+10; k++ {
				// player 1 keeps moving its aim, player 0 does nothing
				in.TargetX = int32(1 + k%2)
				w.DirectInput(1, in)
				w.Tick()
			}
			kicks := 0
			for _, e := range drain(w) {
				if e.Kind == EvKick {
					kicks++
					if e.To != 0 {
						t.Fatalf("kicked %d", e.To)
					}
				}
			}
			if tc.wantKick {
				if kicks != 1 || w.Team(0) != TeamRed {
					t.Fatalf("kicks %d team %d", kicks, w.Team(0))
				}
			} else if kicks != 0 || w.Team(0) != TeamSpectators || w.Team(1) != TeamRed {
				t.Fatalf("kicks %d teams %d %d", kicks, w.Team(0), w.Team(1))
			}
		})
	}
}

func TestReadyMode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PlayerReadyMode = true
	cfg.Warmup = -1
	w := newTestWorld(t, cfg, flatRows...)
	addChars(t, w, 2)
	tickN(w, 100)
	if d := gameData(t, w, 0); d[1] != GameStateFlagWarmup {
		t.Fatalf("ready-mode warmup: %v", d)
	}
	var b fakeBuilder
	w.Snap(0, &b)
	if pi := b.find(ObjPlayerInfo, 1); pi[0]&PlayerFlagReady != 0 {
		t.Fatal("unready player shown ready")
	}
	w.ReadyChange(0)
	tickN(w, 1)
	if gameData(t, w, 0)[1] != GameStateFlagWarmup {
		t.Fatal("started with one player unready")
	}
	w.ReadyChange(1)
	tickN(w, 1)
	if d := gameData(t, w, 0); d[1] != 0 {
		t.Fatalf("all ready, still %v", d)
	}
	drain(w)
	tickN(w, tickSpeed)
	w.ReadyChange(1)
	if !w.Paused() {
		t.Fatal("unready during the game did not pause")
	}
	paused := false
	for _, e := range drain(w) {
		paused = paused || (e.Kind == EvGameMsg && e.Args[0] == GameMsgGamePaused && e.Args[1] == 1)
	}
	if !paused {
		t.Fatal("no GAME_PAUSED message")
	}
	tickN(w, tickSpeed)
	w.ReadyChange(1) // an infinite pause made everybody unready
	tickN(w, 1)
	if !w.Paused() {
		t.Fatal("resumed while player 0 is not ready")
	}
	w.ReadyChange(0)
	tickN(w, 1)
	if w.Paused() {
		t.Fatal("game did not resume when everybody was ready")
	}
}

func TestMatchCounter(t *testing.T) {
	for _, perMap := range []int{0, 3} {
		cfg := DefaultConfig()
		cfg.ScoreLimit = 1
		cfg.MatchesPerMap = perMap
		w := newTestWorld(t, cfg, flatRows...)
		addChars(t, w, 2)
		drain(w)
		var infos, cycles int
		var last int32
		for m := 0; m < 3; m++ {
			tickN(w, 30)
			kill(w, 0, 1)
			tickN(w, timerEnd*tickSpeed+2)
			for _, e := range drain(w) {
				switch e.Kind {
				case EvGameInfo:
					infos++
					last = e.Args[4]
				case EvCycleMap:
					cycles++
				}
			}
		}
		if perMap == 0 && (infos != 0 || cycles != 0 || w.GameInfo()[4] != 1) {
			t.Fatalf("no rotation: %d game infos, %d cycles, match %d", infos, cycles, w.GameInfo()[4])
		}
		if perMap == 3 && (infos != 3 || last != 1 || cycles != 1) { // matches 2, 3, then 1 after the cycle
			t.Fatalf("rotation every 3 matches: %d game infos (last match %d), %d cycles", infos, last, cycles)
		}
	}
}
