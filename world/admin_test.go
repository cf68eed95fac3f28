package world

import (
	"testing"
)

func TestShuffleTeamsSeeded(t *testing.T) {
	teams := func(seed uint64) [8]int {
		cfg := DefaultConfig()
		cfg.GameType = GameTDM
		rw, rh, g := gridMap(t, teamRows...)
		w := newWorld(rw, rh, g, cfg, seed)
		for i := 0; i < 8; i++ {
			w.AddPlayer(i, PlayerInfo{})
		}
		w.ShuffleTeams()
		var out [8]int
		red := 0
		for i := range out {
			out[i] = w.Team(i)
			if out[i] == TeamRed {
				red++
			}
		}
		if red != 4 || w.ctrl.teamSize != [2]int{4, 4} {
			t.Fatalf("shuffle made %d red, sizes %v", red, w.ctrl.teamSize)
		}
		return out
	}
	a, b := teams(7), teams(7)
	if a != b {
		t.Fatalf("same seed, different teams: %v %v", a, b)
	}
	differs := false
	for s := uint64(1); s < 20 && !differs; s++ {
		differs = teams(100+s) != a
	}
	if !differs {
		t.Fatal("shuffle ignores the seed")
	}
}

func TestPauseAndRestart(t *testing.T) {
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	cs := addChars(t, w, 2)
	place(cs[0], groundPos(5))
	tickN(w, 5)
	w.Pause(2)
	tickN(w, 1)
	if !w.Paused() || gameData(t, w, 0)[1] != GameStateFlagPaused {
		t.Fatal("not paused")
	}
	pos := cs[0].core.Pos
	at := cs[0].attackTick
	in := Input{Direction: 1, TargetX: 1}
	w.SetInput(0, in)
	tickN(w, 50)
	if cs[0].core.Pos != pos || cs[0].attackTick != at+50 {
		t.Fatalf("world moved while paused (pos %v -> %v, attack tick %d -> %d)", pos, cs[0].core.Pos, at, cs[0].attackTick)
	}
	tickN(w, 60)
	if w.Paused() {
		t.Fatal("pause did not end")
	}
	w.TogglePause()
	tickN(w, 1)
	if !w.Paused() {
		t.Fatal("toggle did not pause")
	}
	w.TogglePause()
	tickN(w, 1)
	if w.Paused() {
		t.Fatal("toggle did not resume")
	}
	w.playerStore[0].score = 5
	w.Restart(0)
	tickN(w, 1)
	if w.Score(0) != 0 || gameData(t, w, 0)[0] != w.tick-1 {
		t.Fatal("restart did not start a new match")
	}
}

func TestLockTeams(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType = GameTDM
	w := newTestWorld(t, cfg, teamRows...)
	addChars(t, w, 2)
	tickN(w, 4*tickSpeed)
	w.LockTeams(true)
	if w.SetTeam(0, TeamBlue) {
		t.Fatal("team change with locked teams")
	}
	tickN(w, 4*tickSpeed)
	if !w.SetTeam(0, TeamSpectators) {
		t.Fatal("going to spectators must stay allowed")
	}
	if !w.ForceTeamDelay(0, TeamRed, 1) || w.Team(0) != TeamRed {
		t.Fatal("force team failed")
	}
	w.LockTeams(false)
	tickN(w, 4*tickSpeed)
	if w.SetTeam(0, TeamSpectators) {
		t.Fatal("team change inside the forced delay")
	}
}

// TestForceTeamDelayBounds checks that absurd delays (rcon arguments) block
// the player's own team changes instead of wrapping the tick around, and
// that negative delays do not block at all.
func TestForceTeamDelayBounds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minutes int
		blocked bool
	}{
		{"negative", -5, false},
		{"int32 ticks wrap", 715828, true},
		{"int32 minutes", 1<<31 - 1, true},
		{"max int", int(^uint(0) >> 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTestWorld(t, DefaultConfig(), flatRows...)
			addChars(t, w, 2)
			tickN(w, 4*tickSpeed)
			if !w.ForceTeamDelay(0, TeamSpectators, tc.minutes) || w.Team(0) != TeamSpectators {
				t.Fatal("force team failed")
			}
			tickN(w, 4*tickSpeed)
			// a pause shifts the delay tick by tick; it must not wrap either
			w.Pause(-1)
			tickN(w, 3000)
			if !w.Paused() {
				t.Fatal("not paused")
			}
			w.Pause(0)
			tickN(w, 4*tickSpeed)
			if w.Paused() {
				t.Fatal("still paused")
			}
			if changed := w.SetTeam(0, TeamRed); changed == tc.blocked {
				t.Fatalf("delay %d minutes: own team change allowed = %v", tc.minutes, changed)
			}
		})
	}
}

// TestSetRules: the rules change in a running world but for those read at
// a map load; a changed limit is announced with one Sv_GameInfo event.
func TestSetRules(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GameType, cfg.Warmup = GameTDM, 5
	rw, rh, g := gridMap(t, teamRows...)
	w := newWorld(rw, rh, g, cfg, 1)
	w.DrainEvents(func(Event) {})
	next := cfg
	next.GameType, next.Warmup, next.Powerups, next.MatchesPerMap, next.MaxClients = GameCTF, 0, false, 3, 2
	next.TeamDamage, next.PlayerSlots = true, -2
	w.SetRules(next)
	want := cfg
	want.TeamDamage = true
	want.PlayerSlots = 0
	if w.Config() != want {
		t.Errorf("config %+v, want %+v", w.Config(), want)
	}
	count := func() (n int, last []int32) {
		w.DrainEvents(func(e Event) {
			if e.Kind == EvGameInfo {
				n++
				last = e.Args[:]
			}
		})
		return
	}
	if n, _ := count(); n != 0 {
		t.Errorf("%d Sv_GameInfo without a limit change", n)
	}
	next.ScoreLimit, next.TimeLimit = 9, 4
	w.SetRules(next)
	if n, last := count(); n != 1 || last[1] != 9 || last[2] != 4 {
		t.Errorf("%d Sv_GameInfo, last %v", n, last)
	}
}
