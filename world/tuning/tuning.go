// Package tuning holds the physics parameters of a world (reference
// CTuningParams): their stored form, their order in the 0.7 Sv_TuneParams
// message and script names, and the 0.7.5 defaults.
package tuning

import (
	"strings"

	"twserver/world/vmath"
)

// Param is one tuning parameter in its stored form: the value times 100,
// truncated to an int (reference CTuneParam). Physics always uses the
// read-back value Float().
type Param int32

// Float returns the value physics uses: float32(stored) / 100.
func (p Param) Float() float32 { return float32(p) / 100 }

// Value converts a float value to its stored form, (int)(v*100) in float32.
func Value(v float32) Param { return Param(vmath.TruncToInt(float32(v * 100))) }

// NumParams is the number of tuning parameters of the 0.7 protocol, the
// number of ints in Sv_TuneParams.
const NumParams = 32

// Params holds the tuning parameters in the order of the 0.7 Sv_TuneParams
// message (world.md 3.1). The zero value is not useful; start from
// Default.
type Params struct {
	GroundControlSpeed Param // ground_control_speed
	GroundControlAccel Param // ground_control_accel
	GroundFriction     Param // ground_friction
	GroundJumpImpulse  Param // ground_jump_impulse
	AirJumpImpulse     Param // air_jump_impulse
	AirControlSpeed    Param // air_control_speed
	AirControlAccel    Param // air_control_accel
	AirFriction        Param // air_friction
	HookLength         Param // hook_length
	HookFireSpeed      Param // hook_fire_speed
	HookDragAccel      Param // hook_drag_accel
	HookDragSpeed      Param // hook_drag_speed
	Gravity            Param // gravity
	VelrampStart       Param // velramp_start
	VelrampRange       Param // velramp_range
	VelrampCurvature   Param // velramp_curvature
	GunCurvature       Param // gun_curvature
	GunSpeed           Param // gun_speed
	GunLifetime        Param // gun_lifetime
	ShotgunCurvature   Param // shotgun_curvature
	ShotgunSpeed       Param // shotgun_speed
	ShotgunSpeeddiff   Param // shotgun_speeddiff
	ShotgunLifetime    Param // shotgun_lifetime
	GrenadeCurvature   Param // grenade_curvature
	GrenadeSpeed       Param // grenade_speed
	GrenadeLifetime    Param // grenade_lifetime
	LaserReach         Param // laser_reach
	LaserBounceDelay   Param // laser_bounce_delay (ms)
	LaserBounceNum     Param // laser_bounce_num
	LaserBounceCost    Param // laser_bounce_cost
	PlayerCollision    Param // player_collision (boolean, != 0)
	PlayerHooking      Param // player_hooking (boolean, != 0)
}

// Names are the script names of the tuning parameters, in message order.
var Names = [NumParams]string{
	"ground_control_speed", "ground_control_accel", "ground_friction", "ground_jump_impulse",
	"air_jump_impulse", "air_control_speed", "air_control_accel", "air_friction",
	"hook_length", "hook_fire_speed", "hook_drag_accel", "hook_drag_speed", "gravity",
	"velramp_start", "velramp_range", "velramp_curvature",
	"gun_curvature", "gun_speed", "gun_lifetime",
	"shotgun_curvature", "shotgun_speed", "shotgun_speeddiff", "shotgun_lifetime",
	"grenade_curvature", "grenade_speed", "grenade_lifetime",
	"laser_reach", "laser_bounce_delay", "laser_bounce_num", "laser_bounce_cost",
	"player_collision", "player_hooking",
}

// defaultInts are the stored ints of the 0.7.5 defaults (world.md 3.1).
var defaultInts = [NumParams]int32{
	1000, 200, 50, 1320, 1200, 500, 150, 95,
	38000, 8000, 300, 1500, 50,
	55000, 200000, 140,
	125, 220000, 200,
	125, 275000, 80, 20,
	700, 100000, 200,
	80000, 15000, 100, 0,
	100, 100,
}

// Default returns the 0.7.5 default tuning.
func Default() Params {
	var t Params
	t.SetInts(defaultInts)
	return t
}

// Ptrs returns pointers to the parameters in message order (for the
// walkers of a world's state).
func (t *Params) Ptrs() [NumParams]*Param {
	return [NumParams]*Param{
		&t.GroundControlSpeed, &t.GroundControlAccel, &t.GroundFriction, &t.GroundJumpImpulse,
		&t.AirJumpImpulse, &t.AirControlSpeed, &t.AirControlAccel, &t.AirFriction,
		&t.HookLength, &t.HookFireSpeed, &t.HookDragAccel, &t.HookDragSpeed, &t.Gravity,
		&t.VelrampStart, &t.VelrampRange, &t.VelrampCurvature,
		&t.GunCurvature, &t.GunSpeed, &t.GunLifetime,
		&t.ShotgunCurvature, &t.ShotgunSpeed, &t.ShotgunSpeeddiff, &t.ShotgunLifetime,
		&t.GrenadeCurvature, &t.GrenadeSpeed, &t.GrenadeLifetime,
		&t.LaserReach, &t.LaserBounceDelay, &t.LaserBounceNum, &t.LaserBounceCost,
		&t.PlayerCollision, &t.PlayerHooking,
	}
}

// Ints returns the stored ints in Sv_TuneParams order (what the server sends).
func (t *Params) Ints() [NumParams]int32 {
	var out [NumParams]int32
	for i, p := range t.Ptrs() {
		out[i] = int32(*p)
	}
	return out
}

// AppendInts appends the stored ints in Sv_TuneParams order to dst.
func (t *Params) AppendInts(dst []int32) []int32 {
	for _, p := range t.Ptrs() {
		dst = append(dst, int32(*p))
	}
	return dst
}

// SetInts sets every parameter from stored ints in Sv_TuneParams order.
func (t *Params) SetInts(v [NumParams]int32) {
	for i, p := range t.Ptrs() {
		*p = Param(v[i])
	}
}

// Index returns the message index of the parameter with the given script
// name (case-insensitive), or -1.
func Index(name string) int {
	for i, n := range Names {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// Get returns the float value of parameter i; ok is false for a bad index.
func (t *Params) Get(i int) (v float32, ok bool) {
	if i < 0 || i >= NumParams {
		return 0, false
	}
	return t.Ptrs()[i].Float(), true
}

// Set stores value v (as (int)(v*100)) into parameter i; ok is false for a
// bad index.
func (t *Params) Set(i int, v float32) bool {
	if i < 0 || i >= NumParams {
		return false
	}
	*t.Ptrs()[i] = Value(v)
	return true
}

// SetByName stores v into the parameter with the given script name
// (case-insensitive); it reports whether the name exists.
func (t *Params) SetByName(name string, v float32) bool {
	return t.Set(Index(name), v)
}
