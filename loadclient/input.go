package loadclient

import (
	"fmt"
	"math"
	"math/rand/v2"

	"twserver/netproto"
)

// Pattern selects the inputs a load client sends every tick.
type Pattern uint8

// Input patterns.
const (
	// PatternIdle stands still, aiming right.
	PatternIdle Pattern = iota
	// PatternWalk walks left and right, turning every second.
	PatternWalk
	// PatternJumpFire stands, jumps every 10 ticks and fires continuously
	// (press and release every 5 ticks) while sweeping the aim.
	PatternJumpFire
	// PatternRandom changes direction, jump, fire, hook, aim and weapon at
	// random, reproducibly from the client's seed.
	PatternRandom
)

var patternNames = [...]string{"idle", "walk", "jumpfire", "random"}

// String returns the flag spelling of p.
func (p Pattern) String() string {
	if int(p) < len(patternNames) {
		return patternNames[p]
	}
	return fmt.Sprintf("pattern(%d)", uint8(p))
}

// ParsePattern parses "idle", "walk", "jumpfire" (or "jump+fire") and "random".
func ParsePattern(s string) (Pattern, error) {
	if s == "jump+fire" {
		return PatternJumpFire, nil
	}
	for i, n := range patternNames {
		if n == s {
			return Pattern(i), nil
		}
	}
	return 0, fmt.Errorf("unknown input pattern %q (idle, walk, jumpfire, random)", s)
}

// Pace is when a client sends its INPUTs.
type Pace uint8

// Input paces.
const (
	// PaceReal sends as the real 0.7.5 and DDNet 16.4 clients do: an INPUT
	// when the input changed since the last one sent, else when the last
	// one is RealPaceFloor old (25 a second for a player who holds still),
	// at most one per tick (docs/load-testing.md, "What real clients
	// send"; measured by TestRealClientPace in internal/capturetest).
	PaceReal Pace = iota
	// PaceTick sends an INPUT every tick, changed or not (50 a second):
	// twload's pace before PaceReal, an upper bound on the input load.
	PaceTick
)

// RealPaceFloor is how old the last INPUT sent may get under PaceReal
// before an unchanged input is sent again: the real clients send an
// unchanged input once more than 40 ms passed, i.e. on the second tick.
const RealPaceFloor = 2 * netproto.TickDuration

var paceNames = [...]string{"real", "tick"}

// String returns the flag spelling of p.
func (p Pace) String() string {
	if int(p) < len(paceNames) {
		return paceNames[p]
	}
	return fmt.Sprintf("pace(%d)", uint8(p))
}

// ParsePace parses "real" and "tick".
func ParsePace(s string) (Pace, error) {
	for i, n := range paceNames {
		if n == s {
			return Pace(i), nil
		}
	}
	return 0, fmt.Errorf("unknown input pace %q (real, tick)", s)
}

// PlayerInput is the 0.7 PlayerInput object (net.md A5.3, type 1): the
// 10 ints an INPUT message carries.
type PlayerInput struct {
	Direction    int32 // -1, 0, 1
	TargetX      int32 // aim relative to the tee
	TargetY      int32
	Jump         int32 // 0/1
	Fire         int32 // press+release counter, odd = pressed
	Hook         int32 // 0/1
	PlayerFlags  int32
	WantedWeapon int32 // 0 = none, else weapon+1
	NextWeapon   int32
	PrevWeapon   int32
}

// PlayerInputInts is the size of PlayerInput in ints.
const PlayerInputInts = 10

// inputStateMask is INPUT_STATE_MASK for the fire counter.
const inputStateMask = 0x3f

// Ints returns the input in wire order.
func (in *PlayerInput) Ints() [PlayerInputInts]int32 {
	return [PlayerInputInts]int32{in.Direction, in.TargetX, in.TargetY, in.Jump,
		in.Fire, in.Hook, in.PlayerFlags, in.WantedWeapon, in.NextWeapon, in.PrevWeapon}
}

// InputGen produces the input of each tick for one pattern.
type InputGen struct {
	pattern Pattern
	rng     *rand.Rand
	n       int // inputs produced
	cur     PlayerInput
}

// NewInputGen returns a generator; seed matters only for PatternRandom.
func NewInputGen(p Pattern, seed uint64) *InputGen {
	g := &InputGen{pattern: p, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	g.cur.TargetX, g.cur.TargetY = 100, 0
	return g
}

// Next returns the input for the next tick.
func (g *InputGen) Next() PlayerInput {
	n := g.n
	g.n++
	in := &g.cur
	switch g.pattern {
	case PatternIdle:
	case PatternWalk:
		if (n/50)%2 == 0 {
			in.Direction = 1
		} else {
			in.Direction = -1
		}
		in.TargetX = 100 * in.Direction
	case PatternJumpFire:
		in.Jump = b2i(n%10 == 0)
		if n%5 == 0 {
			in.Fire = (in.Fire + 1) & inputStateMask
		}
		a := float64(n%100) / 100 * 2 * math.Pi
		in.TargetX, in.TargetY = int32(200*math.Cos(a)), int32(200*math.Sin(a))
	case PatternRandom:
		if n%5 == 0 {
			in.Direction = int32(g.rng.IntN(3)) - 1
			in.Jump = b2i(g.rng.IntN(8) == 0)
			in.Hook = b2i(g.rng.IntN(6) == 0)
			if g.rng.IntN(2) == 0 {
				in.Fire = (in.Fire + 1) & inputStateMask
			}
			a := g.rng.Float64() * 2 * math.Pi
			r := 50 + g.rng.Float64()*250
			in.TargetX, in.TargetY = int32(r*math.Cos(a)), int32(r*math.Sin(a))
			if g.rng.IntN(25) == 0 {
				in.WantedWeapon = int32(g.rng.IntN(5)) + 1
			}
		}
	}
	if in.TargetX == 0 && in.TargetY == 0 {
		in.TargetX = 1
	}
	return *in
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
