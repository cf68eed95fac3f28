// Package worldstate writes a World's whole simulation state to bytes and
// reads it back into a World of the same map, for a live upgrade (the old
// process writes, the new one reads; cmd/twserver). The walk of the fields
// is the world's own (world.VisitState): this package only codes the values
// it visits.
//
// # Form
//
// "TWWS", then world.StateVersion as a uvarint, then every visited value in
// the walk's order: I32, Int and Range as zigzag varints, U64 as a uvarint,
// F32 as its 4 IEEE bits little-endian, Bool as one byte 0 or 1, Str as a
// uvarint length (at most MaxString) and the bytes. Nothing follows the
// last value. A state of another version is refused (ErrVersion).
package worldstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"twserver/world"
	"twserver/world/statewalk"
)

// MaxState bounds a state's size in bytes; a larger input is refused
// before reading (a full world of 64 players, 2048 projectiles and 512
// lasers is below 200 KiB).
const MaxState = 1 << 20

// MaxString bounds one string of the state (names, clans, skin parts).
const MaxString = 256

const magic = "TWWS"

// Errors of Read. Each is wrapped with where the walk was.
var (
	// ErrVersion: the state was written by a walk of another
	// world.StateVersion (or is not a state at all).
	ErrVersion = errors.New("worldstate: not a world state of this version")
	// ErrTruncated: the state ends inside a value.
	ErrTruncated = errors.New("worldstate: truncated state")
	// ErrMalformed: a value is out of its range, a bool is not 0 or 1, a
	// string is too long, or bytes follow the last value.
	ErrMalformed = errors.New("worldstate: malformed state")
	// ErrTooLarge: the state is larger than MaxState.
	ErrTooLarge = errors.New("worldstate: state larger than MaxState")
)

// Append appends the state of w to dst and returns it. w must not run
// meanwhile (the game loop is held).
func Append(dst []byte, w *world.World) []byte {
	e := encoder{b: append(dst, magic...)}
	e.b = binary.AppendUvarint(e.b, world.StateVersion)
	w.VisitState(&e)
	return e.b
}

// Writer appends world states like Append without allocating once its
// buffer grew (the recorder's checkpoints on the game loop). The zero
// Writer is ready; it is not safe for concurrent use.
type Writer struct{ e encoder }

// Append appends the state of w to dst and returns it (see Append).
func (wr *Writer) Append(dst []byte, w *world.World) []byte {
	wr.e.b = binary.AppendUvarint(append(dst, magic...), world.StateVersion)
	w.VisitState(&wr.e)
	dst, wr.e.b = wr.e.b, nil
	return dst
}

// AppendRecorded appends the state of w as a teehistorian's checkpoint
// holds it: with the latencies as the file records them
// (world.VisitRecordedState).
func (wr *Writer) AppendRecorded(dst []byte, w *world.World) []byte {
	wr.e.b = binary.AppendUvarint(append(dst, magic...), world.StateVersion)
	w.VisitRecordedState(&wr.e)
	dst, wr.e.b = wr.e.b, nil
	return dst
}

// Read sets the state of w, a World made by world.New for the map of the
// world that wrote data, from data. On an error w is left half set and must
// be dropped.
func Read(w *world.World, data []byte) error {
	if len(data) > MaxState {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, len(data))
	}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return ErrVersion
	}
	v, n := binary.Uvarint(data[len(magic):])
	if n <= 0 || v != world.StateVersion {
		return fmt.Errorf("%w: version %d, this binary reads %d", ErrVersion, v, world.StateVersion)
	}
	d := decoder{b: data[len(magic)+n:]}
	w.VisitState(&d)
	if d.err == nil && len(d.b) != 0 {
		d.fail(ErrMalformed, "%d bytes after the last value", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("%w (value %d)", d.err, d.n)
	}
	return nil
}

// encoder is the writing world.StateVisitor.
type encoder struct {
	b []byte
	s statewalk.Scratch
}

// Scratch lends the walk its scratch (statewalk.Scratcher).
func (e *encoder) Scratch() *statewalk.Scratch { return &e.s }

func (e *encoder) I32(x *int32)             { e.b = binary.AppendVarint(e.b, int64(*x)) }
func (e *encoder) U64(x *uint64)            { e.b = binary.AppendUvarint(e.b, *x) }
func (e *encoder) F32(x *float32)           { e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(*x)) }
func (e *encoder) Int(x *int)               { e.b = binary.AppendVarint(e.b, int64(*x)) }
func (e *encoder) Range(x *int, lo, hi int) { e.b = binary.AppendVarint(e.b, int64(*x)) }
func (e *encoder) Str(x *string) {
	s := *x
	if len(s) > MaxString { // cannot be read back: cut (the world's names are far shorter)
		s = s[:MaxString]
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *encoder) Bool(x *bool) {
	var v byte
	if *x {
		v = 1
	}
	e.b = append(e.b, v)
}

// decoder is the reading world.StateVisitor: after the first error every
// value reads as zero (or the range's low end).
type decoder struct {
	b   []byte
	n   int // values read
	err error
}

func (d *decoder) fail(kind error, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
	}
	d.b = nil
}

func (d *decoder) varint() int64 {
	d.n++
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(ErrTruncated, "a varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) I32(x *int32) {
	v := d.varint()
	if v != int64(int32(v)) {
		d.fail(ErrMalformed, "%d is not an int32", v)
		v = 0
	}
	*x = int32(v)
}

func (d *decoder) Int(x *int) {
	v := d.varint()
	if v != int64(int32(v)) { // the world's ints hold int32 values
		d.fail(ErrMalformed, "%d is out of range", v)
		v = 0
	}
	*x = int(v)
}

func (d *decoder) Range(x *int, lo, hi int) {
	v := d.varint()
	if v < int64(lo) || v > int64(hi) {
		d.fail(ErrMalformed, "%d is not in %d..%d", v, lo, hi)
		v = int64(lo)
	}
	*x = int(v)
}

func (d *decoder) U64(x *uint64) {
	d.n++
	*x = 0
	if d.err != nil {
		return
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(ErrTruncated, "a uvarint")
		return
	}
	d.b, *x = d.b[n:], v
}

func (d *decoder) F32(x *float32) {
	d.n++
	*x = 0
	if d.err != nil {
		return
	}
	if len(d.b) < 4 {
		d.fail(ErrTruncated, "a float")
		return
	}
	*x = math.Float32frombits(binary.LittleEndian.Uint32(d.b))
	d.b = d.b[4:]
}

func (d *decoder) Bool(x *bool) {
	d.n++
	*x = false
	if d.err != nil {
		return
	}
	if len(d.b) < 1 {
		d.fail(ErrTruncated, "a bool")
		return
	}
	if d.b[0] > 1 {
		d.fail(ErrMalformed, "bool %d", d.b[0])
		return
	}
	*x, d.b = d.b[0] == 1, d.b[1:]
}

func (d *decoder) Str(x *string) {
	d.n++
	*x = ""
	if d.err != nil {
		return
	}
	l, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(ErrTruncated, "a string length")
		return
	}
	if l > MaxString {
		d.fail(ErrMalformed, "string of %d bytes", l)
		return
	}
	if uint64(len(d.b)-n) < l {
		d.fail(ErrTruncated, "a string")
		return
	}
	*x = string(d.b[n : n+int(l)])
	d.b = d.b[n+int(l):]
}
