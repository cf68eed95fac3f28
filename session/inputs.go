package session

import "twserver/world"

// InputRingSize is the number of stored inputs per slot (the reference's 200).
const InputRingSize = 200

// Inputs is a slot's ring of its last inputs: the tick each is for and the
// input. The ticks are kept apart from the inputs, and a count of the
// stored ticks per bucket (tick mod inputBuckets) lets the per-tick lookup
// skip the search of the whole ring: a tick with no input is found absent
// in its bucket, and a tick alone in its bucket is found by walking back
// from the newest input (it is nearly always among the last few stored).
// NewInputs makes one; a nil *Inputs holds nothing.
type Inputs struct {
	ticks [InputRingSize]int32
	ins   [InputRingSize]world.Input
	count [inputBuckets]uint8 // stored ticks per bucket (at most InputRingSize)
	head  int
	last  int32 // the tick the last input was meant for (-1 for none)
}

// inputBuckets is the number of buckets of Inputs.count: more ticks than a
// full ring spans at 30 inputs a second (200 inputs, 333 ticks), so a
// bucket normally holds one tick.
const inputBuckets = 512

// bucket returns the bucket of a tick.
func bucket(tick int32) int { return int(uint32(tick) % inputBuckets) }

// NewInputs returns an empty ring.
func NewInputs() *Inputs {
	r := new(Inputs)
	r.Reset()
	return r
}

// Store overwrites the oldest stored input with in, for tick.
func (r *Inputs) Store(tick int32, in world.Input) {
	if old := r.ticks[r.head]; old != -1 {
		r.count[bucket(old)]--
	}
	r.ticks[r.head] = tick
	r.ins[r.head] = in
	if tick != -1 { // -1 marks an empty entry
		r.count[bucket(tick)]++
	}
	r.head = (r.head + 1) % InputRingSize
}

// Reset forgets every input.
func (r *Inputs) Reset() {
	for i := range r.ticks {
		r.ticks[i] = -1
	}
	r.count = [inputBuckets]uint8{}
	r.head, r.last = 0, -1
}

// Accept notes an input meant for tick intended arriving while the world
// is at tick cur. newest reports whether it is meant for a later tick than
// the input before it (the client then gets INPUTTIMING for it); at is the
// tick to store it for: intended, or cur+1 for an input that came late.
func (r *Inputs) Accept(intended, cur int32) (at int32, newest bool) {
	newest = intended > r.last
	r.last = intended
	return max(intended, cur+1), newest
}

// For returns the input stored for tick: the first in ring order from
// index 0, as the reference.
func (r *Inputs) For(tick int32) (world.Input, bool) {
	if r == nil || tick == -1 {
		return world.Input{}, false
	}
	switch r.count[bucket(tick)] {
	case 0:
		return world.Input{}, false
	case 1: // at most one entry holds tick: the first found is the first in ring order
		for n, i := 0, r.head; n < InputRingSize; n++ {
			if i == 0 {
				i = InputRingSize
			}
			i--
			if r.ticks[i] == tick {
				return r.ins[i], true
			}
		}
		return world.Input{}, false
	}
	for i, t := range &r.ticks {
		if t == tick {
			return r.ins[i], true
		}
	}
	return world.Input{}, false
}

// Warm loads the cache lines Accept and Store read first (the ring's head
// and last tick, the entry Store writes next) and returns a byte of them,
// so a caller about to handle the inputs of many clients can overlap their
// misses; the value means nothing.
func (r *Inputs) Warm() uint8 {
	h := r.head
	return uint8(r.last) + uint8(r.ticks[h]) + uint8(r.ins[h].Direction)
}
