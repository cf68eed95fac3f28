package session

import (
	"testing"

	"twserver/world"
)

// TestInputsWarm: Warm reads a ring fresh and after its head wrapped,
// without changing it and without allocating.
func TestInputsWarm(t *testing.T) {
	r := NewInputs()
	check := func(state string) {
		t.Helper()
		before := *r
		if a := testing.AllocsPerRun(10, func() { r.Warm() }); a != 0 {
			t.Errorf("%s: Warm allocates %.1f times", state, a)
		}
		if *r != before {
			t.Errorf("%s: Warm changed the ring", state)
		}
	}
	check("fresh")
	for tick := range int32(InputRingSize + 5) {
		r.Accept(tick, tick-1)
		r.Store(tick, world.Input{Direction: 1})
	}
	check("wrapped")
}
