package world

import (
	"testing"

	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// newTestCore returns a core at pos, attached to wc and col and registered
// in slot id.
func newTestCore(wc *WorldCore, col *collision.Map, id int, pos vmath.Vec2) *CharacterCore {
	c := &CharacterCore{}
	c.Init(wc, col)
	c.Reset()
	c.Pos = pos
	wc.Characters[id] = c
	return c
}

// step ticks every core (in slot order, only the first uses input), then
// moves and quantizes them.
func step(wc *WorldCore) {
	first := true
	for _, c := range &wc.Characters {
		if c != nil {
			c.Tick(first)
			first = false
		}
	}
	for _, c := range &wc.Characters {
		if c != nil {
			c.Move()
			c.Quantize()
		}
	}
}

func TestCoreReset(t *testing.T) {
	var c CharacterCore
	c.Pos, c.Vel, c.HookState, c.HookedPlayer, c.Jumped, c.Death, c.TriggeredEvents = vmath.V(1, 2), vmath.V(3, 4), HookGrabbed, 7, 3, true, 5
	c.Reset()
	if c.Pos != (vmath.Vec2{}) || c.Vel != (vmath.Vec2{}) || c.HookState != HookIdle || c.HookedPlayer != -1 ||
		c.Jumped != 0 || c.Death || c.TriggeredEvents != 0 {
		t.Errorf("Reset left %+v", c)
	}
}

func TestNetCoreRoundTrip(t *testing.T) {
	c := CharacterCore{
		Pos: vmath.V(100.4, -20.6), Vel: vmath.V(1.0/512, -3.3), HookPos: vmath.V(5.5, -5.5), HookDir: vmath.V(0.6, -0.8),
		HookTick: 9, HookState: HookFlying, HookedPlayer: 3, Jumped: 2, Direction: -1, Angle: -402,
	}
	n := NetCore{Tick: 77}
	c.Write(&n)
	want := NetCore{Tick: 77, X: 100, Y: -21, VelX: 1, VelY: -845, Angle: -402, Direction: -1, Jumped: 2,
		HookedPlayer: 3, HookState: HookFlying, HookTick: 9, HookX: 6, HookY: -6, HookDx: 154, HookDy: -205}
	if n != want {
		t.Fatalf("Write = %+v\nwant    %+v", n, want)
	}
	var ints [NetCoreSize]int32
	n.Put(ints[:])
	if ints != [NetCoreSize]int32{77, 100, -21, 1, -845, -402, -1, 2, 3, HookFlying, 9, 6, -6, 154, -205} {
		t.Fatalf("Put order: %v", ints)
	}
	var back NetCore
	back.Get(ints[:])
	if back != n {
		t.Fatalf("Get(Put) = %+v", back)
	}
	// Quantize is Write then Read, and is idempotent.
	c.Quantize()
	var n2 NetCore
	c.Write(&n2)
	n2.Tick = n.Tick
	if n2 != n {
		t.Fatalf("after Quantize: %+v, want %+v", n2, n)
	}
	if c.Pos != vmath.V(100, -21) || c.Vel != vmath.V(1.0/256, -845.0/256) {
		t.Fatalf("quantized pos %v vel %v", c.Pos, c.Vel)
	}
}

func TestCoreGroundedAndJumps(t *testing.T) {
	col := goldenMap()
	wc := &WorldCore{Tuning: tuning.Default()}
	c := newTestCore(wc, col, 0, vmath.V(216, 785))
	if !c.Grounded() {
		t.Fatal("tee standing on the floor is not grounded")
	}
	c.Pos.Y = 700
	if c.Grounded() {
		t.Fatal("tee in the air is grounded")
	}
	c.Pos.Y = 785
	// Ground jump, air jump, and no third jump while the key stays held or is re-pressed.
	presses := []struct {
		jump      int32
		wantEvent int32
	}{{1, CoreEventGroundJump}, {0, 0}, {1, CoreEventAirJump}, {0, 0}, {1, 0}, {1, 0}}
	for i, p := range presses {
		c.Input = CoreInput{TargetX: 1, Jump: p.jump}
		step(wc)
		if c.TriggeredEvents != p.wantEvent {
			t.Fatalf("press %d: events %d, want %d", i, c.TriggeredEvents, p.wantEvent)
		}
	}
}

func TestHookFullLengthAtWallQuirk(t *testing.T) {
	// A floor at row 25 (top y=800) and a ceiling row; the tee stands at
	// y=785 and hooks straight up. Hook y per flying tick: 663, 583, 503,
	// 423, then clamped to 785-380 = 405.
	build := func(ceilingRow int) *collision.Map {
		rows := make([]string, 30)
		for y := range rows {
			switch y {
			case 25, 29, ceilingRow:
				rows[y] = "########################################"
			default:
				rows[y] = "#......................................#"
			}
		}
		return collision.FromRows(rows...)
	}
	tests := []struct {
		name       string
		ceiling    int // bottom edge at (ceiling+1)*32
		wantTick   int
		wantState  int32
		wantEvents int32
		wantHookY  float32
	}{
		// Bottom edge 448: the line 503->423 (81 steps) first rounds into the
		// ceiling at y=446.7, quantized to 447, at tick 4: grabbed.
		{"ceiling in reach", 13, 4, HookGrabbed, CoreEventHookAttachGround, 447},
		// Bottom edge 416 lies between 423 and 405: full length reached in the
		// same tick, so no attach and the hook position stays at 423.
		{"full length at wall", 12, 5, HookRetractStart, 0, 423},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wc := &WorldCore{Tuning: tuning.Default()}
			c := newTestCore(wc, build(tc.ceiling), 0, vmath.V(528, 785))
			for tick := 1; tick <= tc.wantTick; tick++ {
				c.Input = CoreInput{TargetY: -100, Hook: 1}
				c.Tick(true)
				c.Move()
				c.Quantize()
				if tick < tc.wantTick && c.HookState != HookFlying {
					t.Fatalf("tick %d: state %d, want flying", tick, c.HookState)
				}
			}
			if c.HookState != tc.wantState || c.TriggeredEvents != tc.wantEvents {
				t.Fatalf("state %d events %d, want %d %d", c.HookState, c.TriggeredEvents, tc.wantState, tc.wantEvents)
			}
			if vmath.RoundToInt(c.HookPos.Y) != vmath.RoundToInt(tc.wantHookY) {
				t.Fatalf("hook y %v, want %v", c.HookPos.Y, tc.wantHookY)
			}
		})
	}
}

// hookB sets up scenario 4 of the golden file (A hooks B on the floor) and
// returns the cores after A grabbed B.
func hookB(t *testing.T, tune func(*tuning.Params)) (*WorldCore, *CharacterCore, *CharacterCore) {
	t.Helper()
	wc := &WorldCore{Tuning: tuning.Default()}
	if tune != nil {
		tune(&wc.Tuning)
	}
	col := goldenMap()
	a := newTestCore(wc, col, 0, vmath.V(200, 785))
	b := newTestCore(wc, col, 1, vmath.V(500, 785))
	for tick := 1; tick <= 5; tick++ {
		a.Input = CoreInput{TargetX: 300, Hook: b2i(tick >= 3)}
		step(wc)
	}
	return wc, a, b
}

func TestHookPlayerTimeout(t *testing.T) {
	wc, a, _ := hookB(t, nil)
	if a.HookState != HookGrabbed || a.HookedPlayer != 1 || a.HookTick != 1 {
		t.Fatalf("not hooked: state %d player %d tick %d", a.HookState, a.HookedPlayer, a.HookTick)
	}
	for i := 0; ; i++ {
		step(wc)
		if a.HookState != HookGrabbed {
			break
		}
		if i > 100 {
			t.Fatal("player hook never released")
		}
	}
	if a.HookState != HookRetracted || a.HookedPlayer != -1 || a.HookTick != hookPlayerTicks+1 {
		t.Fatalf("after timeout: state %d player %d tick %d", a.HookState, a.HookedPlayer, a.HookTick)
	}
	// The hook was put back at the tee in Tick, before the tee moved.
	if vmath.Distance(a.HookPos, a.Pos) > vmath.Length(a.Vel)+1 {
		t.Fatalf("hook not back at the tee: %v vs %v", a.HookPos, a.Pos)
	}
	// Held key: stays retracted until released.
	step(wc)
	if a.HookState != HookRetracted {
		t.Fatalf("state %d, want retracted while the key is held", a.HookState)
	}
}

func TestHookedPlayerLeaves(t *testing.T) {
	wc, a, _ := hookB(t, nil)
	wc.Characters[1] = nil // B died
	step(wc)
	if a.HookState != HookRetracted || a.HookedPlayer != -1 {
		t.Fatalf("state %d player %d, want released", a.HookState, a.HookedPlayer)
	}
}

func TestPlayerHookingOff(t *testing.T) {
	_, a, b := hookB(t, func(tu *tuning.Params) { tu.PlayerHooking = 0 })
	if a.HookedPlayer != -1 || a.TriggeredEvents&CoreEventHookAttachPlayer != 0 {
		t.Fatalf("hooked player %d with player_hooking 0", a.HookedPlayer)
	}
	if b.Vel != (vmath.Vec2{}) {
		t.Fatalf("B was pulled: %v", b.Vel)
	}
}

func TestPlayerCollision(t *testing.T) {
	for _, on := range []bool{true, false} {
		wc := &WorldCore{Tuning: tuning.Default()}
		if !on {
			wc.Tuning.PlayerCollision = 0
		}
		col := goldenMap()
		a := newTestCore(wc, col, 0, vmath.V(200, 785))
		b := newTestCore(wc, col, 1, vmath.V(300, 785))
		minDist := float32(1e9)
		for tick := 0; tick < 40; tick++ {
			a.Input = CoreInput{TargetX: 1, Direction: 1}
			step(wc)
			minDist = min(minDist, vmath.Distance(a.Pos, b.Pos))
		}
		if on && minDist < PhysSize-1 {
			t.Errorf("collision on: cores came within %v", minDist)
		}
		if !on && a.Pos.X <= b.Pos.X {
			t.Errorf("collision off: A (%v) did not pass B (%v)", a.Pos, b.Pos)
		}
	}
}

func TestMovePlayerSweep(t *testing.T) {
	col := collision.FromRows(coreRows...)
	tests := []struct {
		name    string
		a, b    vmath.Vec2
		vel     vmath.Vec2
		wantPos vmath.Vec2
	}{
		// Already overlapping at the start (t = 0): only moves that increase the
		// distance pass. Velocities in [3,4) give 4 exact sub-steps of vel/4.
		{"closer blocked", vmath.V(180, 180), vmath.V(190, 180), vmath.V(3, 0), vmath.V(180, 180)},
		{"away allowed", vmath.V(180, 180), vmath.V(190, 180), vmath.V(-3, 0), vmath.V(177, 180)},
		{"coincident separates", vmath.V(180, 180), vmath.V(180, 180), vmath.V(3, 0), vmath.V(183, 180)},
		// Running into B: stop at the last sweep point before touching (t > 0).
		{"stop in front", vmath.V(140, 180), vmath.V(180, 180), vmath.V(15, 0), vmath.V(152, 180)},
		// Zero velocity: the sweep divides by zero distance (NaN) and nothing collides.
		{"zero velocity", vmath.V(180, 180), vmath.V(190, 180), vmath.V(0, 0), vmath.V(180, 180)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wc := &WorldCore{Tuning: tuning.Default()}
			a := newTestCore(wc, col, 0, tc.a)
			newTestCore(wc, col, 1, tc.b)
			a.Vel = tc.vel
			a.Move()
			if a.Pos != tc.wantPos {
				t.Errorf("pos %v, want %v", a.Pos, tc.wantPos)
			}
			if a.Vel != tc.vel {
				t.Errorf("vel %v changed (want %v): the sweep keeps the MoveBox velocity", a.Vel, tc.vel)
			}
		})
	}
}

func TestVelocityCap(t *testing.T) {
	wc := &WorldCore{Tuning: tuning.Default()}
	c := newTestCore(wc, goldenMap(), 0, vmath.V(600, 400))
	c.Vel = vmath.V(9000, -12000)
	c.Tick(false)
	if l := vmath.Length(c.Vel); l > 6000.001 || l < 5999.99 {
		t.Fatalf("velocity length %v after Tick, want 6000", l)
	}
}

// benchWorld places 64 cores on the golden map with a mix of inputs.
func benchWorld() (*WorldCore, []*CharacterCore) {
	col := goldenMap()
	wc := &WorldCore{Tuning: tuning.Default()}
	cores := make([]*CharacterCore, MaxClients)
	for i := range cores {
		x := float32(64 + (i%32)*36)
		y := float32(785 - (i/32)*300)
		cores[i] = newTestCore(wc, col, i, vmath.V(x, y))
		cores[i].Input = CoreInput{
			Direction: int32(i%3) - 1,
			TargetX:   int32(i*7%200 - 100),
			TargetY:   -100 + int32(i%5),
			Jump:      int32(i % 2),
			Hook:      int32(i / 2 % 2),
		}
	}
	return wc, cores
}

// tickAll runs one server-style tick: all Ticks, then all Moves+Quantizes.
func tickAll(cores []*CharacterCore, n int) {
	for _, c := range cores {
		c.Input.Jump = int32((n + int(c.Input.TargetX)) / 7 % 2 & 1)
		c.Input.Hook = int32(n / 11 % 2)
		c.Tick(true)
	}
	for _, c := range cores {
		c.Move()
		c.Quantize()
	}
}

func TestTickAllocs(t *testing.T) {
	_, cores := benchWorld()
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		tickAll(cores, n)
		n++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per tick of 64 cores, want 0", allocs)
	}
}

func BenchmarkCoreTick64(b *testing.B) {
	_, cores := benchWorld()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		tickAll(cores, n)
		n++
	}
}

// coreRows is a small closed box: free area x 32..223, y 32..223.
var coreRows = []string{
	"########",
	"#......#",
	"#......#",
	"#......#",
	"#......#",
	"#......#",
	"#......#",
	"########",
}

// TestMoveSubStepBound checks that the player sweep of Move stays out of
// solid tiles with a velocity far beyond MaxSubSteps units per tick.
func TestMoveSubStepBound(t *testing.T) {
	c := collision.FromRows(coreRows...)
	size := vmath.V(PhysSize, PhysSize)
	wc := &WorldCore{Tuning: tuning.Default()}
	a := newTestCore(wc, c, 0, vmath.V(48, 48))
	newTestCore(wc, c, 1, vmath.V(200, 200))
	a.Vel = vmath.V(1e9, 1e9) // set after Tick, so the 6000 cap does not apply
	a.Move()
	if c.TestBox(a.Pos, size) {
		t.Fatalf("Move with huge velocity ended inside solid at %v", a.Pos)
	}
}
