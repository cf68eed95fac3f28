package tuning

import (
	"math"
	"testing"
)

func TestDefaultTuning(t *testing.T) {
	tu := Default()
	ints := tu.Ints()
	if ints != defaultInts {
		t.Fatalf("Ints() = %v", ints)
	}
	if got := tu.AppendInts(nil); len(got) != NumParams || got[17] != 220000 {
		t.Fatalf("AppendInts = %v", got)
	}
	// Values physics reads back, with the exact float32 bit patterns.
	bits := []struct {
		name string
		v    float32
		want uint32
	}{
		{"ground_jump_impulse", tu.GroundJumpImpulse.Float(), 0x41533333},
		{"air_friction", tu.AirFriction.Float(), 0x3f733333},
		{"velramp_curvature", tu.VelrampCurvature.Float(), 0x3fb33333},
		{"ground_control_accel", tu.GroundControlAccel.Float(), math.Float32bits(2)},
		{"gravity", tu.Gravity.Float(), math.Float32bits(0.5)},
		{"shotgun_speeddiff", tu.ShotgunSpeeddiff.Float(), math.Float32bits(0.8)},
	}
	for _, b := range bits {
		if got := math.Float32bits(b.v); got != b.want {
			t.Errorf("%s bits %#x, want %#x", b.name, got, b.want)
		}
	}
	// The defaults as the reference computes them: (int)(value*100.0f).
	defaults := []float32{10, 100.0 / 50, 0.5, 13.2, 12, 250.0 / 50, 1.5, 0.95, 380, 80, 3, 15, 0.5,
		550, 2000, 1.4, 1.25, 2200, 2, 1.25, 2750, 0.8, 0.20, 7, 1000, 2, 800, 150, 1, 0, 1, 1}
	for i, d := range defaults {
		if got := int32(Value(d)); got != defaultInts[i] {
			t.Errorf("%s: Value(%v) = %d, want %d", Names[i], d, got, defaultInts[i])
		}
	}
}

func TestTuningSet(t *testing.T) {
	tu := Default()
	if !tu.SetByName("GRAVITY", 0.25) || tu.Gravity != 25 {
		t.Errorf("SetByName gravity: %v", tu.Gravity)
	}
	if tu.SetByName("no_such_param", 1) {
		t.Error("SetByName accepted an unknown name")
	}
	if tu.Set(-1, 1) || tu.Set(NumParams, 1) {
		t.Error("Set accepted a bad index")
	}
	if v, ok := tu.Get(Index("hook_length")); !ok || v != 380 {
		t.Errorf("Get hook_length = %v %v", v, ok)
	}
	if _, ok := tu.Get(99); ok {
		t.Error("Get accepted a bad index")
	}
	var in [NumParams]int32
	for i := range in {
		in[i] = int32(i*7 - 3)
	}
	tu.SetInts(in)
	if tu.Ints() != in {
		t.Error("SetInts/Ints round trip failed")
	}
	for i, n := range Names {
		if Index(n) != i {
			t.Errorf("Index(%q) = %d", n, Index(n))
		}
	}
}
