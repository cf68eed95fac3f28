package world

import (
	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// MaxClients is the number of client slots (MAX_CLIENTS), the size of the character table.
const MaxClients = 64

// PhysSize is a tee's collision box size and proximity radius (CCharacterCore::PHYS_SIZE).
const PhysSize float32 = 28

// Hook states (HOOK_*).
const (
	HookRetracted    = -1 // HOOK_RETRACTED: released; the key must be let go to get back to idle
	HookIdle         = 0  // HOOK_IDLE
	HookRetractStart = 1  // HOOK_RETRACT_START
	HookRetractEnd   = 3  // HOOK_RETRACT_END (2 is an unnamed intermediate state)
	HookFlying       = 4  // HOOK_FLYING
	HookGrabbed      = 5  // HOOK_GRABBED
)

// Core event flags (COREEVENTFLAG_*), set in CharacterCore.TriggeredEvents.
const (
	CoreEventGroundJump       = 1  // COREEVENTFLAG_GROUND_JUMP
	CoreEventAirJump          = 2  // COREEVENTFLAG_AIR_JUMP
	CoreEventHookAttachPlayer = 4  // COREEVENTFLAG_HOOK_ATTACH_PLAYER
	CoreEventHookAttachGround = 8  // COREEVENTFLAG_HOOK_ATTACH_GROUND
	CoreEventHookHitNoHook    = 16 // COREEVENTFLAG_HOOK_HIT_NOHOOK
)

// hookPlayerTicks is how long a player stays hooked (SERVER_TICK_SPEED +
// SERVER_TICK_SPEED/5 ticks).
const hookPlayerTicks = 50 + 50/5

// velocityCap is the maximum length of a core velocity after Tick.
const velocityCap = 6000

// CoreInput is the part of the player input (NetObj PlayerInput) that the
// character core reads. Target is the aim relative to the tee.
type CoreInput struct {
	Direction int32 // -1, 0 or 1
	TargetX   int32
	TargetY   int32
	Jump      int32 // 0 or 1
	Hook      int32 // 0 or 1
}

// WorldCore is the shared state the character cores interact through: the
// tuning and the cores of all alive characters, indexed by client id (nil for
// none). The gameplay code adds a core at spawn and removes it at death.
type WorldCore struct {
	Tuning     tuning.Params
	Characters [MaxClients]*CharacterCore
}

// CharacterCore is the shared (server and client-predicted) physics state of
// one tee (world.md 3.2). Call Init once, then Reset, then set Pos.
type CharacterCore struct {
	world     *WorldCore
	collision *collision.Map

	Pos          vmath.Vec2
	Vel          vmath.Vec2
	HookPos      vmath.Vec2
	HookDir      vmath.Vec2
	HookTick     int32
	HookState    int32 // Hook* constants
	HookedPlayer int32 // client id of the hooked player, -1 for none
	Jumped       int32 // bit 0: jump key used; bit 1: air jump used
	Direction    int32
	Angle        int32 // aim angle * 256 (radians)

	Input           CoreInput
	TriggeredEvents int32 // CoreEvent* flags of the last Tick
	Death           bool  // touched a death tile during the last Move
}

// Init attaches the core to a world and a collision map. The world may be a
// private empty one (dead reckoning uses a world without other players).
func (c *CharacterCore) Init(w *WorldCore, col *collision.Map) {
	c.world = w
	c.collision = col
}

// Reset clears the physics state (position, velocity, hook, jump, events,
// death); the world, collision, direction, angle and input are kept.
func (c *CharacterCore) Reset() {
	c.Pos = vmath.Vec2{}
	c.Vel = vmath.Vec2{}
	c.HookPos = vmath.Vec2{}
	c.HookDir = vmath.Vec2{}
	c.HookTick = 0
	c.HookState = HookIdle
	c.HookedPlayer = -1
	c.Jumped = 0
	c.TriggeredEvents = 0
	c.Death = false
}

// World returns the world core the core was attached to.
func (c *CharacterCore) World() *WorldCore { return c.world }

// Collision returns the collision map the core was attached to.
func (c *CharacterCore) Collision() *collision.Map { return c.collision }

// Grounded reports whether the tee stands on a solid tile (the ground test of
// Tick: a point 5 units below either bottom corner of the box).
func (c *CharacterCore) Grounded() bool {
	const half = PhysSize / 2
	return c.collision.CheckPoint(c.Pos.X+half, c.Pos.Y+half+5) ||
		c.collision.CheckPoint(c.Pos.X-half, c.Pos.Y+half+5)
}

// Tick advances the core by one tick before movement (world.md 3.3): ground
// test, gravity, input (when useInput), horizontal control, hook state
// machine, hook drag, player collision and player hook pull. It may change the
// velocity of a hooked player's core. Move must follow.
func (c *CharacterCore) Tick(useInput bool) {
	w := c.world
	tu := &w.Tuning
	c.TriggeredEvents = 0

	grounded := c.Grounded()
	targetDir := vmath.Normalize(vmath.V(float32(c.Input.TargetX), float32(c.Input.TargetY)))

	c.Vel.Y += tu.Gravity.Float()

	var maxSpeed, accel, friction float32
	if grounded {
		maxSpeed, accel, friction = tu.GroundControlSpeed.Float(), tu.GroundControlAccel.Float(), tu.GroundFriction.Float()
	} else {
		maxSpeed, accel, friction = tu.AirControlSpeed.Float(), tu.AirControlAccel.Float(), tu.AirFriction.Float()
	}

	if useInput {
		c.Direction = c.Input.Direction
		a := vmath.Angle(vmath.V(float32(c.Input.TargetX), float32(c.Input.TargetY)))
		c.Angle = vmath.TruncToInt(float32(a * 256))

		if c.Input.Jump != 0 {
			if c.Jumped&1 == 0 {
				if grounded {
					c.TriggeredEvents |= CoreEventGroundJump
					c.Vel.Y = -tu.GroundJumpImpulse.Float()
					c.Jumped |= 1
				} else if c.Jumped&2 == 0 {
					c.TriggeredEvents |= CoreEventAirJump
					c.Vel.Y = -tu.AirJumpImpulse.Float()
					c.Jumped |= 3
				}
			}
		} else {
			c.Jumped &^= 1
		}

		if c.Input.Hook != 0 {
			if c.HookState == HookIdle {
				c.HookState = HookFlying
				c.HookPos = c.Pos.Add(targetDir.Scale(PhysSize).Scale(1.5))
				c.HookDir = targetDir
				c.HookedPlayer = -1
				c.HookTick = 0
			}
		} else {
			c.HookedPlayer = -1
			c.HookState = HookIdle
			c.HookPos = c.Pos
		}
	}

	if c.Direction < 0 {
		c.Vel.X = vmath.SaturatedAdd(-maxSpeed, maxSpeed, c.Vel.X, -accel)
	}
	if c.Direction > 0 {
		c.Vel.X = vmath.SaturatedAdd(-maxSpeed, maxSpeed, c.Vel.X, accel)
	}
	if c.Direction == 0 {
		c.Vel.X = float32(c.Vel.X * friction)
	}

	if grounded {
		c.Jumped &^= 2
	}

	switch {
	case c.HookState == HookIdle:
		c.HookedPlayer = -1
		c.HookPos = c.Pos
	case c.HookState >= HookRetractStart && c.HookState < HookRetractEnd:
		c.HookState++
	case c.HookState == HookRetractEnd:
		c.HookState = HookRetracted
	case c.HookState == HookFlying:
		c.tickHookFlying()
	}

	if c.HookState == HookGrabbed {
		c.tickHookGrabbed()
	}

	c.tickPlayers()

	if vmath.Length(c.Vel) > velocityCap {
		c.Vel = vmath.Normalize(c.Vel).Scale(velocityCap)
	}
}

// tickHookFlying advances a flying hook: length limit, ground, players.
func (c *CharacterCore) tickHookFlying() {
	w := c.world
	tu := &w.Tuning
	newPos := c.HookPos.Add(c.HookDir.Scale(tu.HookFireSpeed.Float()))
	if vmath.Distance(c.Pos, newPos) > tu.HookLength.Float() {
		c.HookState = HookRetractStart
		newPos = c.Pos.Add(vmath.Normalize(newPos.Sub(c.Pos)).Scale(tu.HookLength.Float()))
	}

	hit, at, _ := c.collision.IntersectLine(c.HookPos, newPos)
	newPos = at
	goingToHitGround, goingToRetract := false, false
	if hit != 0 {
		if hit&collision.FlagNoHook != 0 {
			goingToRetract = true
		} else {
			goingToHitGround = true
		}
	}

	if tu.PlayerHooking != 0 {
		var best float32
		for i, o := range &w.Characters {
			if o == nil || o == c {
				continue
			}
			cp := vmath.ClosestPointOnLine(c.HookPos, newPos, o.Pos)
			if vmath.Distance(o.Pos, cp) < PhysSize+2 {
				if c.HookedPlayer == -1 || vmath.Distance(c.HookPos, o.Pos) < best {
					c.TriggeredEvents |= CoreEventHookAttachPlayer
					c.HookState = HookGrabbed
					c.HookedPlayer = int32(i)
					best = vmath.Distance(c.HookPos, o.Pos)
				}
			}
		}
	}

	if c.HookState == HookFlying {
		if goingToHitGround {
			c.TriggeredEvents |= CoreEventHookAttachGround
			c.HookState = HookGrabbed
		} else if goingToRetract {
			c.TriggeredEvents |= CoreEventHookHitNoHook
			c.HookState = HookRetractStart
		}
		c.HookPos = newPos
	}
}

// release drops the hook (state RETRACTED, hook back at the tee).
func (c *CharacterCore) release() {
	c.HookedPlayer = -1
	c.HookState = HookRetracted
	c.HookPos = c.Pos
}

// hooked returns the core of the hooked player, or nil.
func (c *CharacterCore) hooked() *CharacterCore {
	if c.HookedPlayer < 0 || c.HookedPlayer >= MaxClients {
		return nil
	}
	return c.world.Characters[c.HookedPlayer]
}

// tickHookGrabbed follows a hooked player or drags the tee to a ground hook,
// and times out player hooks.
func (c *CharacterCore) tickHookGrabbed() {
	tu := &c.world.Tuning
	if c.HookedPlayer != -1 {
		if o := c.hooked(); o != nil {
			c.HookPos = o.Pos
		} else {
			c.release()
		}
	}

	if c.HookedPlayer == -1 && vmath.Distance(c.HookPos, c.Pos) > 46 {
		hv := vmath.Normalize(c.HookPos.Sub(c.Pos)).Scale(tu.HookDragAccel.Float())
		if hv.Y > 0 {
			hv.Y = float32(hv.Y * 0.3)
		}
		if (hv.X < 0 && c.Direction < 0) || (hv.X > 0 && c.Direction > 0) {
			hv.X = float32(hv.X * 0.95)
		} else {
			hv.X = float32(hv.X * 0.75)
		}
		nv := c.Vel.Add(hv)
		if vmath.Length(nv) < tu.HookDragSpeed.Float() || vmath.Length(nv) < vmath.Length(c.Vel) {
			c.Vel = nv
		}
	}

	c.HookTick++
	if c.HookedPlayer != -1 && (c.HookTick > hookPlayerTicks || c.hooked() == nil) {
		c.release()
	}
}

// tickPlayers applies player-player collision and the hook pull between
// this core and every other core, in ascending client id.
func (c *CharacterCore) tickPlayers() {
	w := c.world
	tu := &w.Tuning
	for i, o := range &w.Characters {
		// Neither branch can act on a core not hooked and 35 or more
		// away on an axis (then d >= 35 too).
		if o == nil || o == c || int32(i) != c.HookedPlayer && (vmath.Abs(c.Pos.X-o.Pos.X) >= PhysSize*1.25 || vmath.Abs(c.Pos.Y-o.Pos.Y) >= PhysSize*1.25) {
			continue
		}
		d := vmath.Distance(c.Pos, o.Pos)
		dir := vmath.Normalize(c.Pos.Sub(o.Pos))
		if tu.PlayerCollision != 0 && d < float32(PhysSize*1.25) && d > 0 {
			a := float32(PhysSize*1.45) - d
			v := float32(0.5)
			// The reference compares against a double literal.
			if float64(vmath.Length(c.Vel)) > 0.0001 {
				// float32() keeps arm64 from fusing 1 - x*0.5 (exact either
				// way, but this keeps the package free of fused operations).
				v = 1 - float32((vmath.Dot(vmath.Normalize(c.Vel), dir)+1)/2)
			}
			c.Vel = c.Vel.Add(dir.Scale(a).Scale(float32(v * 0.75)))
			c.Vel = c.Vel.Scale(0.85)
		}

		if int32(i) == c.HookedPlayer && tu.PlayerHooking != 0 && d > float32(PhysSize*1.5) {
			acc := float32(tu.HookDragAccel.Float() * (d / tu.HookLength.Float()))
			ds := tu.HookDragSpeed.Float()
			o.Vel.X = vmath.SaturatedAdd(-ds, ds, o.Vel.X, float32(float32(acc*dir.X)*1.5))
			o.Vel.Y = vmath.SaturatedAdd(-ds, ds, o.Vel.Y, float32(float32(acc*dir.Y)*1.5))
			c.Vel.X = vmath.SaturatedAdd(-ds, ds, c.Vel.X, float32(float32(-acc*dir.X)*0.25))
			c.Vel.Y = vmath.SaturatedAdd(-ds, ds, c.Vel.Y, float32(float32(-acc*dir.Y)*0.25))
		}
	}
}

// Move moves the core by its velocity through the map (world.md 3.4): the
// velocity ramp, MoveBox with a 28x28 box and no bounce, and, with player
// collision on, stopping in front of the first other core on the way. Death
// is set when a death tile was touched.
func (c *CharacterCore) Move() {
	w := c.world
	tu := &w.Tuning
	ramp := vmath.VelocityRamp(float32(vmath.Length(c.Vel)*50), tu.VelrampStart.Float(), tu.VelrampRange.Float(), tu.VelrampCurvature.Float())

	c.Vel.X = float32(c.Vel.X * ramp)
	newPos, vel, death := c.collision.MoveBox(c.Pos, c.Vel, vmath.V(PhysSize, PhysSize), 0)
	c.Vel = vel
	c.Death = death
	c.Vel.X = float32(c.Vel.X * (1 / ramp))

	// The other cores in slot order, less those the sweep cannot meet: a
	// core farther than m from the move's box on an axis is more than
	// PhysSize from every step (m covers the steps' float32 rounding).
	// A NaN leaves every core in, as before.
	m := PhysSize + 1 + max(vmath.Abs(c.Pos.X), vmath.Abs(c.Pos.Y), vmath.Abs(newPos.X), vmath.Abs(newPos.Y))/(1<<20)
	lo, hi := vmath.V(min(c.Pos.X, newPos.X)-m, min(c.Pos.Y, newPos.Y)-m), vmath.V(max(c.Pos.X, newPos.X)+m, max(c.Pos.Y, newPos.Y)+m)
	var others [MaxClients]*CharacterCore
	n := 0
	for _, o := range &w.Characters {
		if o != nil && o != c && tu.PlayerCollision != 0 && !(o.Pos.X < lo.X || o.Pos.X > hi.X || o.Pos.Y < lo.Y || o.Pos.Y > hi.Y) {
			others[n], n = o, n+1
		}
	}
	if n > 0 {
		dist := vmath.Distance(c.Pos, newPos)
		end := min(vmath.TruncToInt(dist+1), collision.MaxSubSteps)
		last := c.Pos
		for i := int32(0); i < end; i++ {
			a := float32(i) / dist
			p := vmath.MixVec(c.Pos, newPos, a)
			for _, o := range others[:n] {
				d := vmath.Distance(p, o.Pos)
				if d < PhysSize && d >= 0 {
					if a > 0 {
						c.Pos = last
					} else if vmath.Distance(newPos, o.Pos) > d {
						c.Pos = newPos
					}
					return
				}
			}
			last = p
		}
	}
	c.Pos = newPos
}

// NetCoreSize is the number of ints of the CharacterCore net object.
const NetCoreSize = 15

// NetCore is the network form of a character core (NetObj CharacterCore, 15
// ints, world.md 3.5). Positions are whole units, velocities and the hook
// direction are fixed point with 8 fractional bits.
type NetCore struct {
	Tick         int32
	X, Y         int32
	VelX, VelY   int32
	Angle        int32
	Direction    int32
	Jumped       int32
	HookedPlayer int32
	HookState    int32
	HookTick     int32
	HookX, HookY int32
	HookDx       int32
	HookDy       int32
}

// Put stores the 15 ints in net-object order into dst[:NetCoreSize]; it
// panics if dst is shorter.
func (n *NetCore) Put(dst []int32) {
	_ = dst[NetCoreSize-1]
	dst[0], dst[1], dst[2], dst[3], dst[4] = n.Tick, n.X, n.Y, n.VelX, n.VelY
	dst[5], dst[6], dst[7], dst[8], dst[9] = n.Angle, n.Direction, n.Jumped, n.HookedPlayer, n.HookState
	dst[10], dst[11], dst[12], dst[13], dst[14] = n.HookTick, n.HookX, n.HookY, n.HookDx, n.HookDy
}

// Get loads the 15 ints in net-object order from src[:NetCoreSize]; it
// panics if src is shorter.
func (n *NetCore) Get(src []int32) {
	_ = src[NetCoreSize-1]
	n.Tick, n.X, n.Y, n.VelX, n.VelY = src[0], src[1], src[2], src[3], src[4]
	n.Angle, n.Direction, n.Jumped, n.HookedPlayer, n.HookState = src[5], src[6], src[7], src[8], src[9]
	n.HookTick, n.HookX, n.HookY, n.HookDx, n.HookDy = src[10], src[11], src[12], src[13], src[14]
}

// Write stores the core in network form; out.Tick is left unchanged (the
// caller fills it).
func (c *CharacterCore) Write(out *NetCore) {
	out.X = vmath.RoundToInt(c.Pos.X)
	out.Y = vmath.RoundToInt(c.Pos.Y)
	out.VelX = vmath.RoundToInt(float32(c.Vel.X * 256))
	out.VelY = vmath.RoundToInt(float32(c.Vel.Y * 256))
	out.HookState = c.HookState
	out.HookTick = c.HookTick
	out.HookX = vmath.RoundToInt(c.HookPos.X)
	out.HookY = vmath.RoundToInt(c.HookPos.Y)
	out.HookDx = vmath.RoundToInt(float32(c.HookDir.X * 256))
	out.HookDy = vmath.RoundToInt(float32(c.HookDir.Y * 256))
	out.HookedPlayer = c.HookedPlayer
	out.Jumped = c.Jumped
	out.Direction = c.Direction
	out.Angle = c.Angle
}

// Read loads the core from network form (the inverse of Write); in.Tick is
// ignored.
func (c *CharacterCore) Read(in *NetCore) {
	c.Pos = vmath.V(float32(in.X), float32(in.Y))
	c.Vel = vmath.V(float32(in.VelX)/256, float32(in.VelY)/256)
	c.HookState = in.HookState
	c.HookTick = in.HookTick
	c.HookPos = vmath.V(float32(in.HookX), float32(in.HookY))
	c.HookDir = vmath.V(float32(in.HookDx)/256, float32(in.HookDy)/256)
	c.HookedPlayer = in.HookedPlayer
	c.Jumped = in.Jumped
	c.Direction = in.Direction
	c.Angle = in.Angle
}

// Quantize rounds the core to what the network form can carry (Write then
// Read), as the server and the client predictor do after every Move.
func (c *CharacterCore) Quantize() {
	var n NetCore
	c.Write(&n)
	c.Read(&n)
}

// Extrapolate advances the character core nc alone (no other character) from
// its tick to tick, at most maxTicks ticks, as clients do, and returns its
// position.
func (w *World) Extrapolate(nc *NetCore, tick int32, maxTicks int) (x, y int32) {
	wc := WorldCore{Tuning: w.tuning}
	var core CharacterCore
	core.Init(&wc, w.col)
	core.Reset()
	core.Read(nc)
	for t, n := nc.Tick, 0; t < tick && n < maxTicks; t, n = t+1, n+1 {
		core.Tick(false)
		core.Move()
		core.Quantize()
	}
	return int32(core.Pos.X), int32(core.Pos.Y)
}
