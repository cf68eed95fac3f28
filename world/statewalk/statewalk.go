// Package statewalk holds the visitor of the world's state walk
// (world.VisitState) and the helpers the walk is written with: one walk
// both writes a state and reads it back (package worldstate codes the
// values), so the helpers visit a value and then rebuild what depends on
// it (a pointer from its index) in the same place.
package statewalk

import "twserver/world/vmath"

// Visitor visits every field of a state once, in the walk's order: the same
// walk writes a state (the visitor reads each field) and reads it (it sets
// each), so no field is carried on one side only. A reading visitor records
// bad input as its error, sets a harmless value and goes on; Range's field
// must lie in lo..hi (else it is set to lo).
type Visitor interface {
	I32(x *int32)
	U64(x *uint64)
	F32(x *float32)
	Bool(x *bool)
	Int(x *int)
	Str(x *string)
	Range(x *int, lo, hi int)
}

// Scratch holds the values a walk visits that are not fields (a presence,
// an index, a count): a visitor that has one (Scratcher) lends it to the
// walk, which then visits without allocating (the recorder's checkpoints on
// the game loop); without, each helper call allocates its own.
type Scratch struct {
	B     bool
	I     int
	N     int
	order []int
}

// Scratcher is a Visitor that lends the walk its Scratch.
type Scratcher interface{ Scratch() *Scratch }

// ScratchOf returns v's Scratch, or a new one.
func ScratchOf(v Visitor) *Scratch {
	if s, ok := v.(Scratcher); ok {
		return s.Scratch()
	}
	return new(Scratch)
}

// Vis visits each of xs by its type: a pointer to one of the Visitor's
// types or to a vmath.Vec2, or a slice of int32. Any other type is a
// programming error of the walk (every test of it meets it) and panics.
func Vis(v Visitor, xs ...any) {
	for _, x := range xs {
		switch x := x.(type) {
		case *int32:
			v.I32(x)
		case *uint64:
			v.U64(x)
		case *float32:
			v.F32(x)
		case *bool:
			v.Bool(x)
		case *int:
			v.Int(x)
		case *string:
			v.Str(x)
		case *vmath.Vec2:
			v.F32(&x.X)
			v.F32(&x.Y)
		case []int32:
			for i := range x {
				v.I32(&x[i])
			}
		default:
			panic("statewalk: a value of an unknown type")
		}
	}
}

// I32s visits the int32s of xs (as Vis does a []int32, without putting the
// slice in an interface, which allocates).
func I32s(v Visitor, xs []int32) {
	for i := range xs {
		v.I32(&xs[i])
	}
}

// Ranges visits ints of lo..hi.
func Ranges(v Visitor, lo, hi int, xs ...*int) {
	for _, x := range xs {
		v.Range(x, lo, hi)
	}
}

// R32 visits int32s of lo..hi.
func R32(v Visitor, lo, hi int, xs ...*int32) {
	s := ScratchOf(v)
	for _, x := range xs {
		s.I = int(*x)
		v.Range(&s.I, lo, hi)
		*x = int32(s.I)
	}
}

// Opt visits a pointer that is nil or to.
func Opt[T any](v Visitor, p **T, to *T) {
	s := ScratchOf(v)
	s.B = *p != nil
	v.Bool(&s.B)
	*p = nil
	if s.B {
		*p = to
	}
}

// Ref visits a pointer to an element of store (or nil) as its index.
func Ref[T any](v Visitor, p **T, store []T) {
	s := ScratchOf(v)
	s.I = index(*p, store)
	v.Range(&s.I, -1, len(store)-1)
	*p = nil
	if s.I >= 0 {
		*p = &store[s.I]
	}
}

// RefList visits a list of pointers to elements of store as their indices
// (at most len(store) of them) and returns the list rebuilt in list's
// backing array (which must hold len(store)).
func RefList[T any](v Visitor, list []*T, store []T) []*T {
	s := ScratchOf(v)
	if cap(s.order) < len(store) {
		s.order = make([]int, len(store))
	}
	order := s.order[:len(store)]
	for i, e := range list {
		order[i] = index(e, store)
	}
	s.N = len(list)
	v.Range(&s.N, 0, len(store))
	list = list[:0]
	for i := range s.N {
		v.Range(&order[i], 0, len(store)-1)
		list = append(list, &store[order[i]])
	}
	return list
}

// index is the index of p in store, or -1.
func index[T any](p *T, store []T) int {
	for i := range store {
		if p == &store[i] {
			return i
		}
	}
	return -1
}
