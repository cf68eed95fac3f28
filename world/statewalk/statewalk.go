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

// Ranges visits ints of lo..hi.
func Ranges(v Visitor, lo, hi int, xs ...*int) {
	for _, x := range xs {
		v.Range(x, lo, hi)
	}
}

// R32 visits int32s of lo..hi.
func R32(v Visitor, lo, hi int, xs ...*int32) {
	for _, x := range xs {
		i := int(*x)
		v.Range(&i, lo, hi)
		*x = int32(i)
	}
}

// Opt visits a pointer that is nil or to.
func Opt[T any](v Visitor, p **T, to *T) {
	has := *p != nil
	v.Bool(&has)
	*p = nil
	if has {
		*p = to
	}
}

// Ref visits a pointer to an element of store (or nil) as its index.
func Ref[T any](v Visitor, p **T, store []T) {
	i := index(*p, store)
	v.Range(&i, -1, len(store)-1)
	*p = nil
	if i >= 0 {
		*p = &store[i]
	}
}

// RefList visits a list of pointers to elements of store as their indices
// (at most len(store) of them) and returns the list rebuilt in list's
// backing array (which must hold len(store)).
func RefList[T any](v Visitor, list []*T, store []T) []*T {
	order := make([]int, len(store))
	for i, e := range list {
		order[i] = index(e, store)
	}
	n := len(list)
	v.Range(&n, 0, len(store))
	list = list[:0]
	for i := range n {
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
