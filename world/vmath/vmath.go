// Package vmath holds the float32 vector and scalar helpers of the shared
// physics (world.md section 0.2).
//
// Every physics value is a float32 and every operation is evaluated in the
// reference order. The Go specification allows a compiler to fuse x*y+z into
// one fused multiply-add (FMA) with a single rounding, which would change the
// last bit of results compared with the reference build. An explicit
// conversion float32(x*y) forces rounding of the product and prevents fusion,
// so every product in this package that can feed an addition or subtraction
// is written as float32(a*b).
package vmath

import "math"

// Vec2 is a 2D vector of float32 world units (tile size 32).
type Vec2 struct {
	X, Y float32
}

// V returns the vector (x, y).
func V(x, y float32) Vec2 { return Vec2{x, y} }

// Add returns a+b.
func (a Vec2) Add(b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} }

// Sub returns a-b.
func (a Vec2) Sub(b Vec2) Vec2 { return Vec2{a.X - b.X, a.Y - b.Y} }

// Scale returns a*s, each component rounded to float32.
func (a Vec2) Scale(s float32) Vec2 { return Vec2{float32(a.X * s), float32(a.Y * s)} }

// Neg returns -a.
func (a Vec2) Neg() Vec2 { return Vec2{-a.X, -a.Y} }

// Sqrt32 returns the correctly rounded float32 square root of x (C sqrtf).
func Sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// Length returns sqrtf(x*x + y*y).
func Length(v Vec2) float32 {
	return Sqrt32(float32(v.X*v.X) + float32(v.Y*v.Y))
}

// Abs returns |f| (f itself when it is not below zero, so -0 and NaN
// pass through).
func Abs(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// Clamp returns v limited to [lo, hi] (NaN passes through).
func Clamp(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Distance returns Length(a-b).
func Distance(a, b Vec2) float32 { return Length(a.Sub(b)) }

// Dot returns a.x*b.x + a.y*b.y.
func Dot(a, b Vec2) float32 { return float32(a.X*b.X) + float32(a.Y*b.Y) }

// Normalize returns v scaled to length 1. The reciprocal 1/sqrtf(x*x+y*y)
// is computed first and then multiplied, as the reference does. A zero
// vector yields NaN components (0 * +Inf); callers rely on that behaviour
// being kept.
func Normalize(v Vec2) Vec2 {
	l := 1 / Sqrt32(float32(v.X*v.X)+float32(v.Y*v.Y))
	return Vec2{float32(v.X * l), float32(v.Y * l)}
}

// Angle returns atan2f(v.y, v.x) in radians.
func Angle(v Vec2) float32 {
	return float32(math.Atan2(float64(v.Y), float64(v.X)))
}

// Direction returns the unit vector (cosf(a), sinf(a)) for an angle in radians.
func Direction(a float32) Vec2 {
	return Vec2{float32(math.Cos(float64(a))), float32(math.Sin(float64(a)))}
}

// Mix returns a + (b-a)*t for float32 scalars.
func Mix(a, b, t float32) float32 { return a + float32((b-a)*t) }

// MixVec returns a + (b-a)*t component-wise.
func MixVec(a, b Vec2, t float32) Vec2 {
	return Vec2{a.X + float32((b.X-a.X)*t), a.Y + float32((b.Y-a.Y)*t)}
}

// ClosestPointOnLine returns the point of the segment p0-p1 nearest to q,
// as the reference computes it: t = dot(normalize(p1-p0), q-p0) / |p0-p1|,
// clamped to [0, 1] with NaN passing through unchanged, then MixVec(p0, p1, t).
func ClosestPointOnLine(p0, p1, q Vec2) Vec2 {
	c := q.Sub(p0)
	v := Normalize(p1.Sub(p0))
	d := Length(p0.Sub(p1))
	t := Dot(v, c) / d
	if t < 0 {
		t = 0
	} else if t > 1 {
		t = 1
	}
	return MixVec(p0, p1, t)
}

// RoundToInt rounds half away from zero, in float32 like the reference
// round_to_int: f > 0 gives trunc(f+0.5), otherwise trunc(f-0.5). Values
// outside the int32 range and NaN give math.MinInt32, the result x86-64
// produces for such conversions, so the outcome does not depend on the
// platform.
func RoundToInt(f float32) int32 {
	if f > 0 {
		return TruncToInt(f + 0.5)
	}
	return TruncToInt(f - 0.5)
}

// TruncToInt is the C (int) conversion of a float: truncation toward zero,
// math.MinInt32 when the value does not fit or is NaN.
func TruncToInt(f float32) int32 {
	if f >= -2147483648 && f < 2147483648 {
		return int32(f)
	}
	return math.MinInt32
}

// SaturatedAdd adds mod to cur without crossing the bound in the direction of
// mod (min for negative mod, max otherwise). A value already beyond that bound
// is returned unchanged; it is never pulled back.
func SaturatedAdd(min, max, cur, mod float32) float32 {
	if mod < 0 {
		if cur < min {
			return cur
		}
		cur += mod
		if cur < min {
			cur = min
		}
		return cur
	}
	if cur > max {
		return cur
	}
	cur += mod
	if cur > max {
		cur = max
	}
	return cur
}

// VelocityRamp returns the speed damping factor: 1 below start, otherwise
// 1/powf(curvature, (value-start)/range).
func VelocityRamp(value, start, rng, curvature float32) float32 {
	if value < start {
		return 1
	}
	p := float32(math.Pow(float64(curvature), float64((value-start)/rng)))
	return 1 / p
}

// CalcPos returns the position of a projectile fired from pos with direction
// vel after time seconds (reference CalcPos):
// time *= speed; x = pos.x + vel.x*time; y = pos.y + vel.y*time + curvature/10000*(time*time).
func CalcPos(pos, vel Vec2, curvature, speed, time float32) Vec2 {
	time = float32(time * speed)
	return Vec2{
		pos.X + float32(vel.X*time),
		pos.Y + float32(vel.Y*time) + float32(curvature/10000*float32(time*time)),
	}
}
