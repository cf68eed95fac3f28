package snap

import (
	"reflect"
	"testing"
)

// TestStorageWarm: Warm reads a Storage empty, with its ring wrapped
// around, with a delta base that is stored and one that is not, without
// changing it and without allocating.
func TestStorageWarm(t *testing.T) {
	var s Storage
	check := func(state string, base int32) {
		t.Helper()
		before := s
		if a := testing.AllocsPerRun(10, func() { s.Warm(base) }); a != 0 {
			t.Errorf("%s: Warm allocates %.1f times", state, a)
		}
		if !reflect.DeepEqual(before, s) {
			t.Errorf("%s: Warm changed the storage", state)
		}
	}
	check("empty", -1)
	check("empty, base asked", 7)
	var b Builder
	tick := int32(1)
	for range MaxStored + MaxStored/2 { // the ring wraps; purged entries wait for reuse
		b.Reset()
		d, _ := b.NewItem(1, uint16(tick%7), 40)
		d[0] = tick
		b.Finish(s.Alloc(tick, 0))
		s.Ack(tick - 2)
		tick++
	}
	if s.head == 0 || len(s.free) == 0 {
		t.Fatalf("head %d, %d free entries: the ring did not wrap", s.head, len(s.free))
	}
	check("wrapped, no base", -1)
	check("wrapped, base stored", tick-1)
	check("wrapped, base purged", tick-10)
}
