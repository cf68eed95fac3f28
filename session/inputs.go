package session

import "twserver/world"

// InputRingSize is the number of stored inputs per slot (the reference's 200).
const InputRingSize = 200

// Inputs is a slot's ring of its last inputs: the tick each is for and the
// input. The ticks are kept apart so the per-tick search reads 800
// contiguous bytes instead of the whole ring. NewInputs makes one; a nil
// *Inputs holds nothing.
type Inputs struct {
	ticks [InputRingSize]int32
	ins   [InputRingSize]world.Input
	head  int
	last  int32 // the tick the last input was meant for (-1 for none)
}

// NewInputs returns an empty ring.
func NewInputs() *Inputs {
	r := new(Inputs)
	r.Reset()
	return r
}

// Store overwrites the oldest stored input with in, for tick.
func (r *Inputs) Store(tick int32, in world.Input) {
	r.ticks[r.head] = tick
	r.ins[r.head] = in
	r.head = (r.head + 1) % InputRingSize
}

// Reset forgets every input.
func (r *Inputs) Reset() {
	for i := range r.ticks {
		r.ticks[i] = -1
	}
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
	if r == nil {
		return world.Input{}, false
	}
	for i, t := range &r.ticks {
		if t == tick {
			return r.ins[i], true
		}
	}
	return world.Input{}, false
}
