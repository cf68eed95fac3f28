package tickclock

import (
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	now := origin.Add(1234567 * time.Microsecond)
	c := New(false, 0)
	c.Begin(now)
	if !c.Start().Equal(now) || !c.TickStart(3).Equal(now.Add(60*time.Millisecond)) {
		t.Fatalf("start %v, tick 3 at %v", c.Start(), c.TickStart(3))
	}
	for _, tc := range []struct {
		after time.Duration
		cur   int32
		due   int
		at    int32
	}{
		{0, 0, 0, 0},
		{19 * time.Millisecond, 0, 0, 0},
		{20 * time.Millisecond, 0, 1, 1},
		{59 * time.Millisecond, 0, 2, 2},
		{60 * time.Millisecond, 0, 3, 3},
		{60 * time.Millisecond, 2, 1, 3},
		{60 * time.Millisecond, 3, 0, 3},
		{-time.Millisecond, 0, 0, 0},
	} {
		if got := c.Due(now.Add(tc.after), tc.cur); got != tc.due {
			t.Errorf("Due(+%v, %d) = %d, want %d", tc.after, tc.cur, got, tc.due)
		}
		if got := c.TickAt(now.Add(tc.after)); got != tc.at {
			t.Errorf("TickAt(+%v) = %d, want %d", tc.after, got, tc.at)
		}
	}
	c.Rebase(now.Add(time.Second), 10)
	if !c.TickStart(10).Equal(now.Add(time.Second)) {
		t.Errorf("after Rebase tick 10 starts at %v, want %v", c.TickStart(10), now.Add(time.Second))
	}
}

func TestAligned(t *testing.T) {
	for _, phase := range []time.Duration{0, 5 * time.Millisecond, 25 * time.Millisecond, 45 * time.Millisecond, -3 * time.Millisecond} {
		c := New(true, phase)
		want := phase % PairPeriod
		if want < 0 {
			want += PairPeriod
		}
		for _, off := range []time.Duration{0, time.Millisecond, 19 * time.Millisecond, 3*time.Second + 7*time.Millisecond} {
			now := origin.Add(off)
			c.Begin(now)
			s := c.Start()
			if s.Before(now) || s.Sub(now) >= PairPeriod {
				t.Errorf("phase %v at +%v: start %v is not within a pair of ticks from now", phase, off, s.Sub(origin))
			}
			if got := s.Sub(origin) % PairPeriod; got != want {
				t.Errorf("phase %v at +%v: start is %v past the grid, want %v", phase, off, got, want)
			}
		}
	}
}

func TestHeartbeatIn(t *testing.T) {
	every := 5 * time.Second
	for _, off := range []time.Duration{0, time.Millisecond, 4999 * time.Millisecond, 12 * time.Second} {
		d := HeartbeatIn(origin.Add(off), every)
		if d <= 0 || d > every || (off+d)%every != 0 {
			t.Errorf("HeartbeatIn(+%v) = %v: not the next multiple of %v", off, d, every)
		}
	}
}

// TestFirstTickStart checks the staggered schedules of several games:
// tick 0 starts at the first instant from now on that is the game's phase
// past a PairPeriod boundary of the process-wide origin (also before
// origin, as under synctest's fake clock), and unaligned games start at
// once.
func TestFirstTickStart(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		align        bool
		phase, after time.Duration // after: now - origin
		want         time.Duration // start - origin
	}{
		{false, 5 * ms, 33 * ms, 33 * ms},
		{true, 0, 0, 0},
		{true, 0, 1, 40 * ms},
		{true, 5 * ms, 33 * ms, 45 * ms},
		{true, 5 * ms, 45 * ms, 45 * ms},
		{true, 5 * ms, 46 * ms, 85 * ms},
		{true, 15 * ms, 2 * ms, 15 * ms},
		{true, 25 * ms, 2 * ms, 25 * ms},
		{true, 25 * ms, 26 * ms, 65 * ms},
		{true, 5 * ms, -50 * ms, -35 * ms},
		{true, 5 * ms, -35 * ms, -35 * ms},
	} {
		c := New(tc.align, tc.phase)
		c.Begin(origin.Add(tc.after))
		got := c.Start().Sub(origin)
		if got != tc.want {
			t.Errorf("align %v phase %v at %v: tick 0 at %v, want %v", tc.align, tc.phase, tc.after, got, tc.want)
		}
	}
}

// TestHeartbeatAligned: sleeping games wake for their heartbeats at the
// same instants, the multiples of SleepHeartbeat since origin, never
// later than SleepHeartbeat from now (the health stamp's bound), also for
// times before origin (the fake clock of synctest starts in 2000).
// SleepHeartbeat is the heartbeat of package server.
const SleepHeartbeat = 5 * time.Second

func TestHeartbeatAligned(t *testing.T) {
	for _, base := range []time.Time{origin, origin.Add(-100 * SleepHeartbeat)} {
		var instant time.Time
		for i, off := range []time.Duration{0, time.Millisecond, 300 * time.Millisecond, SleepHeartbeat - time.Nanosecond} {
			now := base.Add(7*SleepHeartbeat + off)
			d := HeartbeatIn(now, SleepHeartbeat)
			if d <= 0 || d > SleepHeartbeat {
				t.Fatalf("HeartbeatIn(origin%+v) = %v, want in (0, %v]", now.Sub(origin), d, SleepHeartbeat)
			}
			at := now.Add(d)
			if r := at.Sub(origin) % SleepHeartbeat; r != 0 {
				t.Errorf("heartbeat at origin%+v: not a multiple of %v", at.Sub(origin), SleepHeartbeat)
			}
			if i > 0 && !at.Equal(instant) {
				t.Errorf("a game sleeping at origin%+v wakes at %v, the others at %v", now.Sub(origin), at, instant)
			}
			instant = at
		}
	}
}

// TestSetStartOutlivesOneBegin: a handed-over schedule survives the Begin
// of the loop that goes on with it, and only that one.
func TestSetStartOutlivesOneBegin(t *testing.T) {
	c := New(false, 0)
	handed := time.Now().Add(-time.Hour)
	c.SetStart(handed)
	c.Begin(time.Now())
	if !c.Start().Equal(handed) {
		t.Fatalf("the first Begin moved the handed start to %v", c.Start())
	}
	c.Begin(time.Now())
	if c.Start().Equal(handed) {
		t.Fatal("control: the second Begin kept the handed start")
	}
}

// TestRebaseKeepsPairs: an aligned schedule moved after its loop fell
// behind keeps tick 0, and so every even tick (the snapshot ticks a game
// ticking in pairs wakes for), on its phase of the PairPeriod grid, and
// tick cur starts within PairPeriod from now. Control: the former Rebase,
// tick cur on the first tick-grid instant from now, fails the check for
// an odd cur.
func TestRebaseKeepsPairs(t *testing.T) {
	ms := time.Millisecond
	onPhase := func(c *Clock, phase time.Duration, now time.Time, cur int32) bool {
		at := c.TickStart(cur)
		even := c.TickStart(cur + cur%2)
		return !at.Before(now) && at.Sub(now) < PairPeriod && even.Sub(origin)%PairPeriod == phase
	}
	for _, phase := range []time.Duration{0, 7 * ms, 27 * ms} {
		for _, cur := range []int32{0, 1, 10, 11, 12345} {
			for _, off := range []time.Duration{0, 3 * ms, 21 * ms, 39 * ms, 5*time.Second + 1} {
				c := New(true, phase)
				c.Begin(origin)
				now := origin.Add(time.Hour + off)
				c.Rebase(now, cur)
				if !onPhase(&c, phase, now, cur) {
					t.Errorf("phase %v, cur %d, +%v: tick %d at %v from now, even ticks %v past the grid",
						phase, cur, off, cur, c.TickStart(cur).Sub(now), c.TickStart(cur+cur%2).Sub(origin)%PairPeriod)
				}
			}
		}
	}
	now, cur := origin.Add(time.Hour+21*ms), int32(11)
	var c Clock // tick 11 at +1h40ms, the first tick-grid instant from now
	c.SetStart(origin.Add(time.Hour + 40*ms - time.Duration(cur)*TickDuration))
	if onPhase(&c, 0, now, cur) {
		t.Fatal("control: a tick-grid Rebase of an odd tick passed the check")
	}
}

func TestSnapTicksIn(t *testing.T) {
	for _, tc := range []struct {
		first, last int32
		every       bool
		want        int
	}{
		{1, 2, false, 1}, {1, 1, false, 0}, {2, 2, false, 1}, {1, 4, false, 2}, {2, 5, false, 2},
		{3, 3, false, 0}, {5, 4, false, 0}, {101, 200, false, 50},
		{1, 2, true, 2}, {3, 3, true, 1}, {5, 4, true, 0}, {101, 200, true, 100},
	} {
		if got := SnapTicksIn(tc.first, tc.last, tc.every); got != tc.want {
			t.Errorf("SnapTicksIn(%d, %d, %v) = %d, want %d", tc.first, tc.last, tc.every, got, tc.want)
		}
	}
}

// TestPhase: the games of a process share phases in groups of
// GamesPerWake; the groups have distinct phases, spread over a tick and
// every second one a tick later in the pair, all within PairPeriod; a lone
// game's phase is 0.
func TestPhase(t *testing.T) {
	if p := Phase(0, 1); p != 0 {
		t.Errorf("a lone game's phase %v, want 0", p)
	}
	for _, n := range []int{2, 4, 5, 16, 32} {
		byPhase := map[time.Duration][]int{}
		for i := range n {
			p := Phase(i, n)
			if p < 0 || p >= PairPeriod {
				t.Errorf("%d games: game %d at phase %v, outside [0, %v)", n, i, p, PairPeriod)
			}
			byPhase[p] = append(byPhase[p], i)
		}
		groups := (n + GamesPerWake - 1) / GamesPerWake
		if len(byPhase) != groups {
			t.Errorf("%d games: %d distinct phases, want %d", n, len(byPhase), groups)
		}
		for p, games := range byPhase {
			if len(games) > GamesPerWake || games[0]/GamesPerWake != games[len(games)-1]/GamesPerWake {
				t.Errorf("%d games: phase %v shared by %v", n, p, games)
			}
			if within := p % TickDuration; within != time.Duration(games[0]/GamesPerWake)*TickDuration/time.Duration(groups) {
				t.Errorf("%d games: group of game %d at %v into its tick", n, games[0], within)
			}
		}
	}
}
