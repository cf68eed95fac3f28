package vmath

import (
	"math"
	"testing"
)

func TestRoundToInt(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		in   float32
		want int32
	}{
		{0, 0}, {0.5, 1}, {-0.5, -1}, {0.49, 0}, {-0.49, 0}, {1.5, 2}, {-1.5, -2},
		{2.5, 3}, {-2.5, -3}, {799.5, 800}, {-799.4, -799},
		// 0.49999997 + 0.5 is rounded to 1 in float32 arithmetic.
		{math.Nextafter32(0.5, 0), 1},
		{2147483520, 2147483520}, // largest float32 below 2^31
		{2147483648, math.MinInt32},
		{-2147483648, math.MinInt32},
		{1e30, math.MinInt32}, {-1e30, math.MinInt32},
		{nan, math.MinInt32}, {float32(math.Inf(1)), math.MinInt32},
	}
	for _, tc := range tests {
		if got := RoundToInt(tc.in); got != tc.want {
			t.Errorf("RoundToInt(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestSaturatedAdd(t *testing.T) {
	tests := []struct {
		name               string
		min, max, cur, mod float32
		want               float32
	}{
		{"plain add", -10, 10, 1, 2, 3},
		{"clamp max", -10, 10, 9, 2, 10},
		{"clamp min", -10, 10, -9, -2, -10},
		{"above max stays", -10, 10, 12, 2, 12},
		{"below min stays", -10, 10, -12, -2, -12},
		{"above max pulled by negative", -10, 10, 12, -1, 11},
		{"below min pushed by positive", -10, 10, -12, 1, -11},
		{"zero mod above max", -10, 10, 12, 0, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SaturatedAdd(tc.min, tc.max, tc.cur, tc.mod); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVectorHelpers(t *testing.T) {
	if got := Length(V(3, 4)); got != 5 {
		t.Errorf("Length = %v", got)
	}
	if got := Distance(V(1, 1), V(4, 5)); got != 5 {
		t.Errorf("Distance = %v", got)
	}
	if got := Normalize(V(0, -100)); got != V(0, -1) {
		t.Errorf("Normalize = %v", got)
	}
	if n := Normalize(V(0, 0)); !isNaN32(n.X) || !isNaN32(n.Y) {
		t.Errorf("Normalize(0) = %v, want NaN (reference behaviour)", n)
	}
	if got := Dot(V(1, 2), V(3, 4)); got != 11 {
		t.Errorf("Dot = %v", got)
	}
	if got := MixVec(V(0, 10), V(10, 20), 0.25); got != V(2.5, 12.5) {
		t.Errorf("MixVec = %v", got)
	}
	if got := Mix(2, 4, 0.5); got != 3 {
		t.Errorf("Mix = %v", got)
	}
	if got := int32(Angle(V(0, -100)) * 256); got != -402 {
		t.Errorf("angle*256 = %d, want -402", got)
	}
	tests := []struct {
		p0, p1, q, want Vec2
	}{
		{V(0, 0), V(10, 0), V(5, 3), V(5, 0)},
		{V(0, 0), V(10, 0), V(-5, 3), V(0, 0)},   // clamped to 0
		{V(0, 0), V(10, 0), V(15, -3), V(10, 0)}, // clamped to 1
	}
	for _, tc := range tests {
		if got := ClosestPointOnLine(tc.p0, tc.p1, tc.q); got != tc.want {
			t.Errorf("ClosestPointOnLine(%v,%v,%v) = %v, want %v", tc.p0, tc.p1, tc.q, got, tc.want)
		}
	}
	// A zero-length segment gives NaN (0/0 passes the clamp), so nothing is near it.
	if got := ClosestPointOnLine(V(1, 1), V(1, 1), V(1, 1)); !isNaN32(got.X) {
		t.Errorf("degenerate ClosestPointOnLine = %v, want NaN", got)
	}
}

func TestVelocityRamp(t *testing.T) {
	// The default tuning's velramp_start, velramp_range and velramp_curvature,
	// converted as the world's TuneParam.Float does.
	start, rng, curv := float32(55000)/100, float32(200000)/100, float32(140)/100
	if got := VelocityRamp(549.9, start, rng, curv); got != 1 {
		t.Errorf("below start: %v", got)
	}
	if got := VelocityRamp(550, start, rng, curv); got != 1 {
		t.Errorf("at start: %v", got)
	}
	// One full range above start divides by the curvature.
	if got, want := VelocityRamp(2550, start, rng, curv), 1/curv; got != want {
		t.Errorf("start+range: %v, want %v", got, want)
	}
}

func TestCalcPos(t *testing.T) {
	// Straight line without curvature: pos + vel*time*speed.
	if got := CalcPos(V(10, 20), V(1, 0), 0, 100, 0.5); got != V(60, 20) {
		t.Errorf("CalcPos straight = %v", got)
	}
	// Curvature adds curvature/10000 * (time*speed)^2 to y.
	if got := CalcPos(V(0, 0), V(0, 0), 10000, 1, 2); got != V(0, 4) {
		t.Errorf("CalcPos curved = %v", got)
	}
}

func isNaN32(f float32) bool { return f != f }

// Slow reference for float32 arithmetic: each operation is done exactly in
// float64 and rounded to float32 once. For +, -, *, / and sqrt of float32
// operands this equals the correctly rounded float32 result, so the helpers
// must agree bit for bit. A compiler that fused a*b+c into one FMA (allowed
// by the Go spec unless an explicit float32 conversion intervenes, and done
// on amd64 with GOAMD64=v3) makes these comparisons fail.
func r32(f float64) float32      { return float32(f) }
func mul32(a, b float32) float32 { return r32(float64(a) * float64(b)) }
func add32(a, b float32) float32 { return r32(float64(a) + float64(b)) }
func sub32(a, b float32) float32 { return r32(float64(a) - float64(b)) }

func slowLength(v Vec2) float32 {
	return r32(math.Sqrt(float64(add32(mul32(v.X, v.X), mul32(v.Y, v.Y)))))
}

func slowNormalize(v Vec2) Vec2 {
	l := r32(1 / float64(slowLength(v)))
	return Vec2{mul32(v.X, l), mul32(v.Y, l)}
}

func slowMix(a, b, t float32) float32 { return add32(a, mul32(sub32(b, a), t)) }

func TestFloat32Differential(t *testing.T) {
	// Deterministic xorshift stream of float32 values of mixed magnitude.
	s := uint64(0x9e3779b97f4a7c15)
	next := func() float32 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		mant := float32(s>>40) / float32(1<<24) // [0,1)
		exp := float32(int64(s>>32&15) - 4)     // 2^-4 .. 2^11
		sign := float32(1 - 2*int64(s>>36&1))   // ±1
		return sign * mant * float32(math.Pow(2, float64(exp)))
	}
	for i := 0; i < 20000; i++ {
		a, b, c := V(next(), next()), V(next(), next()), next()
		if got, want := Length(a), slowLength(a); got != want {
			t.Fatalf("Length(%v) = %v, want %v", a, got, want)
		}
		if got, want := Dot(a, b), add32(mul32(a.X, b.X), mul32(a.Y, b.Y)); got != want {
			t.Fatalf("Dot(%v,%v) = %v, want %v", a, b, got, want)
		}
		if got, want := Normalize(a), slowNormalize(a); got != want {
			t.Fatalf("Normalize(%v) = %v, want %v", a, got, want)
		}
		if got, want := MixVec(a, b, c), (Vec2{slowMix(a.X, b.X, c), slowMix(a.Y, b.Y, c)}); got != want {
			t.Fatalf("MixVec(%v,%v,%v) = %v, want %v", a, b, c, got, want)
		}
		if got, want := a.Add(b.Scale(c)), (Vec2{add32(a.X, mul32(b.X, c)), add32(a.Y, mul32(b.Y, c))}); got != want {
			t.Fatalf("Add(Scale) = %v, want %v", got, want)
		}
		ty := mul32(c, 3)
		if got, want := CalcPos(a, b, 7, 3, c), (Vec2{
			add32(a.X, mul32(b.X, ty)),
			add32(add32(a.Y, mul32(b.Y, ty)), mul32(r32(7.0/10000), mul32(ty, ty))),
		}); got != want {
			t.Fatalf("CalcPos = %v, want %v", got, want)
		}
	}
}
