// Package tickclock is a game's tick schedule on the wall clock: tick N
// starts at a game's start plus N tick durations. It answers when a tick
// starts, how many ticks are due at an instant, which tick the clock is
// at, and when the shared heartbeat of sleeping games comes. The game loop
// (package server) owns one Clock per game; the clock holds no goroutine
// and reads no time itself: every instant is passed in.
package tickclock

import (
	"time"

	"twserver/netproto"
)

// TickDuration is the length of one tick (20 ms at 50 ticks a second).
const TickDuration = netproto.TickDuration

// PairPeriod is the period of an aligned schedule's grid: two ticks, a
// pair whose second (even) tick is a snapshot tick. A game ticking in
// pairs wakes at the start of each even tick, so aligned schedules keep
// tick 0 (and every even tick) on this grid, phase past it: games whose
// phases are spread over PairPeriod wake at different instants both when
// they tick in pairs and when they wake at every tick (two games
// PairPeriod/2 apart then coincide).
const PairPeriod = 2 * TickDuration

// GamesPerWake is how many games of a process share a tick phase: their
// timers expire at the same instant, so the runtime wakes once for them
// and runs their ticks one after another instead of sleeping and waking
// between each. At 1024 clients on 16 games one wake-up for 4 games took
// the process from about 34 to 30 % of a core; the last game of a group
// starts its tick after the others' work (at 1024 clients about 0.45 ms a
// game), so groups are kept small.
const GamesPerWake = 4

// Phase returns the phase (New) of game i of a process of n games: games
// in groups of GamesPerWake share one, the groups' phases are spread over
// a tick, and every second group's is a tick later in the pair
// (PairPeriod), so that the groups' wake-ups and snapshot bursts do not
// coincide, whether they tick in pairs or at every tick.
func Phase(i, n int) time.Duration {
	g, groups := i/GamesPerWake, (n+GamesPerWake-1)/GamesPerWake
	return time.Duration(g)*TickDuration/time.Duration(groups) + time.Duration(g%2)*TickDuration
}

// origin is the process-wide origin of aligned schedules and of the
// heartbeat instants, so that every game of a process aligns to the same
// grid.
var origin = time.Now()

// Clock is the tick schedule of one game: tick t starts at Start + t ×
// TickDuration. The zero Clock is not aligned and starts at the zero time;
// call Begin before asking it anything.
type Clock struct {
	start time.Time     // start of tick 0
	align bool          // schedules begin on the process-wide grid
	phase time.Duration // offset of this game's grid from origin, in [0, PairPeriod)
	kept  bool          // SetStart's start outlives the next Begin
}

// New returns a clock. With align, every schedule it begins starts phase
// past a multiple of PairPeriod since the process started, so several
// games of a process can be spread over a pair of ticks (phase modulo
// PairPeriod); without it a schedule starts when it begins.
func New(align bool, phase time.Duration) Clock {
	phase %= PairPeriod
	if phase < 0 {
		phase += PairPeriod
	}
	return Clock{align: align, phase: phase}
}

// Begin starts a new schedule at now (a new game or map): tick 0 starts
// at now, or with alignment at the first grid instant from now on. The
// first Begin after SetStart keeps SetStart's schedule.
func (c *Clock) Begin(now time.Time) {
	if c.kept {
		c.kept = false
		return
	}
	c.start = c.firstStart(now)
}

// Aligned reports whether the clock's schedules begin on the process-wide
// grid (a process of several games).
func (c *Clock) Aligned() bool { return c.align }

// Start returns the start of tick 0.
func (c *Clock) Start() time.Time { return c.start }

// SetStart sets the start of tick 0 (a schedule handed over from
// elsewhere, a live upgrade's game): it outlives the next Begin, the start
// of the loop that goes on with it.
func (c *Clock) SetStart(t time.Time) { c.start, c.kept = t, true }

// TickStart returns the wall time at which tick t starts.
func (c *Clock) TickStart(t int32) time.Time {
	return c.start.Add(time.Duration(t) * TickDuration)
}

// TickAt returns the newest tick that has started at now (negative before
// tick 0).
func (c *Clock) TickAt(now time.Time) int32 {
	return int32(now.Sub(c.start) / TickDuration)
}

// Due returns how many ticks after tick cur have started at now (0 when
// the next has not).
func (c *Clock) Due(now time.Time, cur int32) int {
	next := c.TickStart(cur + 1)
	if now.Before(next) {
		return 0
	}
	return int(now.Sub(next)/TickDuration) + 1
}

// Rebase moves the schedule so that tick cur starts at (or, aligned,
// within PairPeriod after) now: a loop that fell far behind starts afresh
// instead of running every tick it missed. Aligned, tick 0 stays on the
// game's grid, so its even ticks keep their phase.
func (c *Clock) Rebase(now time.Time, cur int32) {
	back := time.Duration(cur) * TickDuration
	c.start = c.firstStart(now.Add(-back))
}

// firstStart returns the start of tick 0 of a schedule begun at now.
func (c *Clock) firstStart(now time.Time) time.Time {
	if !c.align {
		return now
	}
	since := now.Sub(origin) - c.phase
	k := (since + PairPeriod - 1) / PairPeriod
	if since < 0 {
		k = since / PairPeriod // toward zero: the grid instant at or after now
	}
	return origin.Add(k*PairPeriod + c.phase)
}

// SnapTicksIn returns the number of snapshot ticks in [first, last] (first ≥ 1): the
// even ticks, or every tick when everyTick (snapshot_rate 50).
func SnapTicksIn(first, last int32, everyTick bool) int {
	if last < first {
		return 0
	}
	if everyTick {
		return int(last - first + 1)
	}
	return int(last/2 - (first-1)/2)
}

// HeartbeatIn returns how long a sleeping game waits at now for its next
// heartbeat: until the next multiple of every since the process started,
// an instant shared by every game of the process so the runtime wakes
// once for all of them (at most every; every must be positive).
func HeartbeatIn(now time.Time, every time.Duration) time.Duration {
	r := now.Sub(origin) % every
	if r < 0 {
		r += every
	}
	return every - r
}
