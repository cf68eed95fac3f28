package world

import (
	"strings"

	"twserver/world/vmath"
)

// TuneParam is one tuning parameter in its stored form: the value times 100,
// truncated to an int (reference CTuneParam). Physics always uses the
// read-back value Float().
type TuneParam int32

// Float returns the value physics uses: float32(stored) / 100.
func (p TuneParam) Float() float32 { return float32(p) / 100 }

// TuneValue converts a float value to its stored form, (int)(v*100) in float32.
func TuneValue(v float32) TuneParam { return TuneParam(vmath.TruncToInt(float32(v * 100))) }

// NumTuneParams is the number of tuning parameters of the 0.7 protocol, the
// number of ints in Sv_TuneParams.
const NumTuneParams = 32

// Tuning holds the tuning parameters in the order of the 0.7 Sv_TuneParams
// message (world.md 3.1). The zero value is not useful; start from
// DefaultTuning.
type Tuning struct {
	GroundControlSpeed TuneParam // ground_control_speed
	GroundControlAccel TuneParam // ground_control_accel
	GroundFriction     TuneParam // ground_friction
	GroundJumpImpulse  TuneParam // ground_jump_impulse
	AirJumpImpulse     TuneParam // air_jump_impulse
	AirControlSpeed    TuneParam // air_control_speed
	AirControlAccel    TuneParam // air_control_accel
	AirFriction        TuneParam // air_friction
	HookLength         TuneParam // hook_length
	HookFireSpeed      TuneParam // hook_fire_speed
	HookDragAccel      TuneParam // hook_drag_accel
	HookDragSpeed      TuneParam // hook_drag_speed
	Gravity            TuneParam // gravity
	VelrampStart       TuneParam // velramp_start
	VelrampRange       TuneParam // velramp_range
	VelrampCurvature   TuneParam // velramp_curvature
	GunCurvature       TuneParam // gun_curvature
	GunSpeed           TuneParam // gun_speed
	GunLifetime        TuneParam // gun_lifetime
	ShotgunCurvature   TuneParam // shotgun_curvature
	ShotgunSpeed       TuneParam // shotgun_speed
	ShotgunSpeeddiff   TuneParam // shotgun_speeddiff
	ShotgunLifetime    TuneParam // shotgun_lifetime
	GrenadeCurvature   TuneParam // grenade_curvature
	GrenadeSpeed       TuneParam // grenade_speed
	GrenadeLifetime    TuneParam // grenade_lifetime
	LaserReach         TuneParam // laser_reach
	LaserBounceDelay   TuneParam // laser_bounce_delay (ms)
	LaserBounceNum     TuneParam // laser_bounce_num
	LaserBounceCost    TuneParam // laser_bounce_cost
	PlayerCollision    TuneParam // player_collision (boolean, != 0)
	PlayerHooking      TuneParam // player_hooking (boolean, != 0)
}

// TuneNames are the script names of the tuning parameters, in message order.
var TuneNames = [NumTuneParams]string{
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

// defaultTuneInts are the stored ints of the 0.7.5 defaults (world.md 3.1).
var defaultTuneInts = [NumTuneParams]int32{
	1000, 200, 50, 1320, 1200, 500, 150, 95,
	38000, 8000, 300, 1500, 50,
	55000, 200000, 140,
	125, 220000, 200,
	125, 275000, 80, 20,
	700, 100000, 200,
	80000, 15000, 100, 0,
	100, 100,
}

// DefaultTuning returns the 0.7.5 default tuning.
func DefaultTuning() Tuning {
	var t Tuning
	t.SetInts(defaultTuneInts)
	return t
}

// ptrs returns pointers to the parameters in message order.
func (t *Tuning) ptrs() [NumTuneParams]*TuneParam {
	return [NumTuneParams]*TuneParam{
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
func (t *Tuning) Ints() [NumTuneParams]int32 {
	var out [NumTuneParams]int32
	for i, p := range t.ptrs() {
		out[i] = int32(*p)
	}
	return out
}

// AppendInts appends the stored ints in Sv_TuneParams order to dst.
func (t *Tuning) AppendInts(dst []int32) []int32 {
	for _, p := range t.ptrs() {
		dst = append(dst, int32(*p))
	}
	return dst
}

// SetInts sets every parameter from stored ints in Sv_TuneParams order.
func (t *Tuning) SetInts(v [NumTuneParams]int32) {
	for i, p := range t.ptrs() {
		*p = TuneParam(v[i])
	}
}

// TuneIndex returns the message index of the parameter with the given script
// name (case-insensitive), or -1.
func TuneIndex(name string) int {
	for i, n := range TuneNames {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// Get returns the float value of parameter i; ok is false for a bad index.
func (t *Tuning) Get(i int) (v float32, ok bool) {
	if i < 0 || i >= NumTuneParams {
		return 0, false
	}
	return t.ptrs()[i].Float(), true
}

// Set stores value v (as (int)(v*100)) into parameter i; ok is false for a
// bad index.
func (t *Tuning) Set(i int, v float32) bool {
	if i < 0 || i >= NumTuneParams {
		return false
	}
	*t.ptrs()[i] = TuneValue(v)
	return true
}

// SetByName stores v into the parameter with the given script name
// (case-insensitive); it reports whether the name exists.
func (t *Tuning) SetByName(name string, v float32) bool {
	return t.Set(TuneIndex(name), v)
}
