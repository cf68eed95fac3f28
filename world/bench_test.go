package world

import (
	"fmt"
	"strings"
	"testing"

	"twserver/snap"
)

// gameBenchRows builds a large arena with a spawn point every 4 tiles on three
// floors, enough for 64 characters.
func gameBenchRows() []string {
	const width = 130
	wall := strings.Repeat("#", width)
	air := "#" + strings.Repeat(".", width-2) + "#"
	spawnRow := func() string {
		b := []byte(air)
		for x := 3; x < width-3; x += 4 {
			b[x] = 'S'
		}
		b[10], b[30], b[50], b[70] = 'H', 'A', 'g', 'n'
		return string(b)
	}
	rows := []string{wall}
	for f := 0; f < 3; f++ {
		for i := 0; i < 8; i++ {
			rows = append(rows, air)
		}
		rows = append(rows, spawnRow())
		floor := []byte(wall)
		for x := 20; x < width-20; x += 30 {
			copy(floor[x:x+4], "....") // holes between the floors
		}
		rows = append(rows, string(floor))
	}
	return rows
}

// gameBenchWorld returns a DM world with n characters playing scripted inputs,
// warmed up for 500 ticks.
func gameBenchWorld(b *testing.B, n int) (*World, []scriptPlayer) {
	cfg := DefaultConfig()
	cfg.PlayerSlots = MaxClients
	cfg.ScoreLimit = 0
	w := newTestWorld(b, cfg, gameBenchRows()...)
	players := make([]scriptPlayer, n)
	for i := range players {
		players[i].r.s = uint32(0x9e3779b9 * (i + 1))
		if err := w.AddPlayer(i, PlayerInfo{}); err != nil {
			b.Fatal(err)
		}
	}
	for k := 0; k < 500; k++ {
		gameBenchStep(w, players)
	}
	return w, players
}

func gameBenchStep(w *World, players []scriptPlayer) {
	next := w.tick + 1
	for cid := range players {
		in := players[cid].step(w, cid%8, next)
		in.PlayerFlags &^= PlayerFlagChatting
		w.DirectInput(cid, in)
		w.SetInput(cid, in)
	}
	w.Tick()
	w.DrainEvents(func(Event) {})
	if w.tick%2 == 0 {
		w.PostSnap()
	}
}

func BenchmarkTick(b *testing.B) {
	for _, n := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("chars=%d", n), func(b *testing.B) {
			w, players := gameBenchWorld(b, n)
			alive := 0
			for i := 0; i < n; i++ {
				if w.Alive(i) {
					alive++
				}
			}
			if alive < n/2 {
				b.Fatalf("only %d of %d characters alive", alive, n)
			}
			b.ReportAllocs()
			for b.Loop() {
				gameBenchStep(w, players)
			}
		})
	}
}

// BenchmarkSnap builds one snapshot per in-game client: with Snap, and as
// the server builds them (round: PrepareSnap once, then SnapWith).
func BenchmarkSnap(b *testing.B) {
	for _, round := range []bool{false, true} {
		for _, n := range []int{16, 64} {
			b.Run(fmt.Sprintf("round=%v/chars=%d", round, n), func(b *testing.B) {
				w, _ := gameBenchWorld(b, n)
				var sb snap.Builder
				sb.Sizes = snap.Sizes7
				var r SnapRound
				b.ReportAllocs()
				for b.Loop() {
					if round {
						w.PrepareSnap(&r)
					}
					for v := 0; v < n; v++ {
						sb.Reset()
						var err error
						if round {
							err = w.SnapWith(&r, v, &sb)
						} else {
							err = w.Snap(v, &sb)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(sb.NumItems()), "items/snap")
			})
		}
	}
}

// TestTickSnapAllocs asserts zero allocations per tick and per snapshot in
// steady state.
func TestTickSnapAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	cfg := DefaultConfig()
	cfg.PlayerSlots = MaxClients
	cfg.ScoreLimit = 0
	w := newTestWorld(t, cfg, gameBenchRows()...)
	players := make([]scriptPlayer, 32)
	for i := range players {
		players[i].r.s = uint32(0x9e3779b9 * (i + 1))
		w.AddPlayer(i, PlayerInfo{})
	}
	for k := 0; k < 300; k++ {
		gameBenchStep(w, players)
	}
	if a := testing.AllocsPerRun(200, func() { gameBenchStep(w, players) }); a != 0 {
		t.Errorf("Tick allocates %.1f times per tick", a)
	}
	var sb snap.Builder
	sb.Reset()
	w.Snap(0, &sb)
	if a := testing.AllocsPerRun(200, func() {
		sb.Reset()
		if err := w.Snap(0, &sb); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Snap allocates %.1f times per snapshot", a)
	}
}
