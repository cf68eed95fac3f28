package session

import (
	"math/rand/v2"
	"testing"

	"twserver/world"
)

// modelFor is the lookup the reference makes: the first entry in ring
// order from index 0 that holds tick.
func modelFor(ticks []int32, ins []world.Input, tick int32) (world.Input, bool) {
	for i, t := range ticks {
		if t == tick {
			return ins[i], true
		}
	}
	return world.Input{}, false
}

// TestInputsForModel: For finds what the reference's search of the whole
// ring finds, for inputs in order, with repeats, late, far ahead, spread
// over more ticks than the buckets (so buckets hold several ticks), and
// after Reset. It checks every tick around the stored ones after every
// store.
func TestInputsForModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 33))
	for round := range 60 {
		r := NewInputs()
		ticks := make([]int32, InputRingSize)
		ins := make([]world.Input, InputRingSize)
		for i := range ticks {
			ticks[i] = -1
		}
		head := 0
		cur := int32(rng.IntN(1000))
		stores := 50 + rng.IntN(3*InputRingSize)
		for n := range stores {
			var tick int32
			switch rng.IntN(10) {
			case 0: // a repeat of a recent tick
				tick = cur + int32(rng.IntN(3))
			case 1: // far ahead, in another bucket round
				tick = cur + int32(rng.IntN(4*inputBuckets))
			case 2:
				if round%2 == 0 { // slow sender: ticks spread over many bucket rounds
					cur += int32(rng.IntN(3 * inputBuckets))
				}
				tick = cur + 1
			default:
				cur += int32(1 + rng.IntN(3))
				tick = cur + int32(rng.IntN(5))
			}
			in := world.Input{TargetX: int32(n), TargetY: tick}
			r.Store(tick, in)
			ticks[head], ins[head] = tick, in
			head = (head + 1) % InputRingSize
			for q := cur - 10; q < cur+20; q++ {
				got, ok := r.For(q)
				want, wok := modelFor(ticks, ins, q)
				if ok != wok || got != want {
					t.Fatalf("round %d, store %d: For(%d) = %+v, %v; the reference's search finds %+v, %v", round, n, q, got, ok, want, wok)
				}
			}
		}
		for _, tk := range ticks {
			got, ok := r.For(tk)
			want, wok := modelFor(ticks, ins, tk)
			if tk != -1 && (ok != wok || got != want) {
				t.Fatalf("round %d: For(%d) = %+v, %v; want %+v, %v", round, tk, got, ok, want, wok)
			}
		}
		r.Reset()
		for _, tk := range ticks {
			if _, ok := r.For(tk); ok {
				t.Fatalf("round %d: an input for %d after Reset", round, tk)
			}
		}
	}
}

// BenchmarkInputsFor: the per-tick lookup of a slot at 30 inputs a second
// (the real clients' pace in game), once the ring is full.
func BenchmarkInputsFor(b *testing.B) {
	r := NewInputs()
	tick := int32(0)
	store := func() {
		tick++
		if tick%5 != 0 { // 3 inputs in 5 ticks
			r.Store(tick+2, world.Input{TargetX: tick})
		}
	}
	for range 2 * InputRingSize {
		store()
	}
	b.ReportAllocs()
	found := 0
	for b.Loop() {
		store()
		if _, ok := r.For(tick); ok {
			found++
		}
	}
	if found == 0 {
		b.Fatal("no input found")
	}
}
