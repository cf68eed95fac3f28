package loadclient

import "testing"

// TestPace counts the INPUTs of 200 ticks of a client in game under each
// pace: PaceTick sends every tick; PaceReal sends a changed input at once
// and an unchanged one on the second tick after the last (the real
// clients' floor of 25 a second), so a player holding still sends 100 and
// the random pattern (new input every 5th tick) 3 in 5. Neither allocates.
func TestPace(t *testing.T) {
	cases := []struct {
		pace    Pace
		pattern Pattern
		want    int64
	}{
		{PaceTick, PatternRandom, 200},
		{PaceTick, PatternIdle, 200},
		{PaceReal, PatternRandom, 120},
		{PaceReal, PatternIdle, 100},
		{PaceReal, PatternJumpFire, 200}, // the aim sweeps every tick
		{PaceReal, PatternWalk, 100},     // turns only every 50 ticks
	}
	for _, tc := range cases {
		t.Run(tc.pace.String()+"/"+tc.pattern.String(), func(t *testing.T) {
			c, step := steadyClient(t)
			c.cfg.Pace = tc.pace
			c.gen = NewInputGen(tc.pattern, 1)
			for range 5 { // the pattern's first period settles
				step()
			}
			before := c.stats.Inputs
			allocs := testing.AllocsPerRun(199, step) // 200 runs with the warm-up
			if got := c.stats.Inputs - before; got < tc.want-1 || got > tc.want+1 {
				t.Errorf("%d INPUTs in 200 ticks, want %d", got, tc.want)
			}
			if allocs != 0 {
				t.Errorf("%v allocations per tick", allocs)
			}
		})
	}
}

// TestParsePace round-trips the flag spellings and refuses others.
func TestParsePace(t *testing.T) {
	for _, p := range []Pace{PaceReal, PaceTick} {
		if got, err := ParsePace(p.String()); err != nil || got != p {
			t.Errorf("ParsePace(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePace("often"); err == nil {
		t.Error("ParsePace accepted \"often\"")
	}
}
