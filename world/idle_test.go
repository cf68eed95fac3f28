package world

import (
	"testing"

	"twserver/snap"
)

// idleTwin drives two worlds through the same game: a plays, then skips
// the idle ticks of an empty stretch with SkipIdle, while b ticks through
// every one of them; both must stay equal to the bit (snapshots for every
// viewer and events).
type idleTwin struct {
	t       *testing.T
	a, b    *World
	pa, pb  [16]scriptPlayer
	bld     snap.Builder
	sa, sb  snap.Snapshot
	skipped int32 // ticks a skipped
}

func newIdleTwin(t *testing.T, cfg Config, rows []string) *idleTwin {
	tw := &idleTwin{t: t, a: newTestWorld(t, cfg, rows...), b: newTestWorld(t, cfg, rows...)}
	for i := range tw.pa {
		tw.pa[i].r.s = uint32(0x51ed27 * (i + 7))
		tw.pb[i].r.s = tw.pa[i].r.s
	}
	tw.bld.Sizes = snap.Sizes7
	return tw
}

// play ticks both worlds n times with the scripted players' inputs.
func (tw *idleTwin) play(n int) {
	for range n {
		for _, side := range []struct {
			w  *World
			ps *[16]scriptPlayer
		}{{tw.a, &tw.pa}, {tw.b, &tw.pb}} {
			next := side.w.tick + 1
			for cid := range side.ps {
				if side.w.HasPlayer(cid) {
					in := side.ps[cid].step(side.w, cid, next)
					side.w.DirectInput(cid, in)
					side.w.SetInput(cid, in)
				}
			}
			side.w.Tick()
		}
		tw.compare()
	}
}

// idle runs n ticks of wall time with nobody: a skips what it may, b ticks.
// step bounds a skip, so skips end at varied ticks.
func (tw *idleTwin) idle(n int32, step func() int32) {
	for n > 0 {
		k := min(tw.a.IdleTicks(), n, step())
		if k > 0 {
			tw.a.SkipIdle(k)
			tw.skipped += k
		} else {
			k = 1
			tw.a.Tick()
		}
		for range k {
			tw.b.Tick()
		}
		n -= k
		tw.compare()
	}
}

// compare fails unless a and b are at the same tick with the same events
// and the same snapshot for every viewer.
func (tw *idleTwin) compare() {
	t := tw.t
	t.Helper()
	if tw.a.tick != tw.b.tick {
		t.Fatalf("tick %d vs %d", tw.a.tick, tw.b.tick)
	}
	var ea, eb []Event
	tw.a.DrainEvents(func(e Event) { ea = append(ea, e) })
	tw.b.DrainEvents(func(e Event) { eb = append(eb, e) })
	if len(ea) != len(eb) {
		t.Fatalf("tick %d: %d events vs %d", tw.a.tick, len(ea), len(eb))
	}
	for i := range ea {
		if ea[i] != eb[i] {
			t.Fatalf("tick %d: event %d: %+v vs %+v", tw.a.tick, i, ea[i], eb[i])
		}
	}
	for v := -1; v < MaxClients; v++ {
		if v >= 0 && !tw.a.HasPlayer(v) {
			continue
		}
		for _, side := range []struct {
			w *World
			s *snap.Snapshot
		}{{tw.a, &tw.sa}, {tw.b, &tw.sb}} {
			tw.bld.Reset()
			if err := side.w.Snap(v, &tw.bld); err != nil {
				t.Fatalf("tick %d viewer %d: %v", side.w.tick, v, err)
			}
			tw.bld.Finish(side.s)
		}
		if !tw.sa.Equal(&tw.sb) {
			t.Fatalf("tick %d viewer %d: snapshots differ", tw.a.tick, v)
		}
	}
	tw.a.PostSnap()
	tw.b.PostSnap()
}

// TestSkipIdleEqualsTicks: in every game mode, with and without time
// limits, warmups and score limits, a game that empties and later fills
// again is the same whether its empty stretch was ticked or skipped with
// SkipIdle - including the match timer, time-up and sudden death during the
// gap, pickups that respawn and flags that return in it. And the skipping
// does happen: most of the empty stretch is skipped.
func TestSkipIdleEqualsTicks(t *testing.T) {
	type variant struct {
		name                    string
		timeLimit, warmup, slim int
	}
	variants := []variant{
		{"plain", 0, 0, 0},
		{"timelimit", 1, 0, 0},
		{"warmup_timelimit", 1, 3, 20},
		{"scorelimit", 0, 0, 5},
	}
	for _, gt := range []GameType{GameDM, GameTDM, GameCTF, GameLMS, GameLTS} {
		for _, v := range variants {
			t.Run(gt.Name()+"/"+v.name, func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.GameType = gt
				cfg.TimeLimit, cfg.Warmup, cfg.ScoreLimit = v.timeLimit, v.warmup, v.slim
				cfg.PlayerSlots = 12
				rows := append([]string(nil), arenaRows...)
				if gt == GameCTF {
					rows[21] = "#......H..r........................b....H......#"
				}
				tw := newIdleTwin(t, cfg, rows)
				var r scriptRand
				r.s = 0xfeed + uint32(gt)*7 + uint32(len(v.name))
				step := func() int32 { return int32(1 + r.intn(4000)) }
				// An empty world from the start, then a game, an empty
				// stretch longer than the time limit, another game.
				tw.idle(500, step)
				for round := range 2 {
					for cid := range 6 {
						tw.a.AddPlayer(cid, PlayerInfo{})
						tw.b.AddPlayer(cid, PlayerInfo{})
					}
					tw.play(1500 + 700*round)
					for cid := range 6 {
						tw.a.RemovePlayer(cid)
						tw.b.RemovePlayer(cid)
					}
					tw.compare()
					tw.idle(9000, step)
				}
				for cid := range 4 {
					tw.a.AddPlayer(cid, PlayerInfo{})
					tw.b.AddPlayer(cid, PlayerInfo{})
				}
				tw.play(800)
				total := int32(500 + 2*9000)
				if tw.skipped < total/2 {
					t.Fatalf("skipped %d of %d empty ticks: the world hardly ever counted as idle", tw.skipped, total)
				}
				t.Logf("skipped %d of %d empty ticks", tw.skipped, total)
			})
		}
	}
}

// TestIdleTicksBusy: a world is not idle while anything would happen at
// the next tick.
func TestIdleTicksBusy(t *testing.T) {
	cfg := DefaultConfig()
	w := newTestWorld(t, cfg, flatRows...)
	if got := w.IdleTicks(); got != IdleForever {
		t.Fatalf("empty DM without limits: IdleTicks %d, want IdleForever", got)
	}
	if err := w.AddPlayer(0, PlayerInfo{Spectator: true}); err != nil {
		t.Fatal(err)
	}
	if got := w.IdleTicks(); got != 0 {
		t.Fatalf("with a spectator: IdleTicks %d, want 0", got)
	}
	w.RemovePlayer(0)
	w.Pause(5)
	if got := w.IdleTicks(); got != 0 {
		t.Fatalf("paused: IdleTicks %d, want 0", got)
	}
	cfg.TimeLimit = 1
	w = newTestWorld(t, cfg, flatRows...)
	w.ctrl.setGameState(stateRunning, 0)
	if got, want := w.IdleTicks(), int32(60*tickSpeed-1); got != want {
		t.Fatalf("running with a 1 min limit at tick 0: IdleTicks %d, want %d", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("SkipIdle beyond IdleTicks did not panic")
		}
	}()
	w.SkipIdle(60 * tickSpeed)
}
