package snap

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// build makes a snapshot from (type, id, data...) items.
func build(t testing.TB, items ...Item) *Snapshot {
	t.Helper()
	var b Builder
	for _, it := range items {
		d, err := b.NewItem(it.Type, it.ID, len(it.Data))
		if err != nil {
			t.Fatalf("NewItem(%d,%d): %v", it.Type, it.ID, err)
		}
		copy(d, it.Data)
	}
	s := new(Snapshot)
	b.Finish(s)
	return s
}

func it(typ, id uint16, data ...int32) Item { return Item{Type: typ, ID: id, Data: data} }

func hexBytes(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	for _, f := range bytes.Fields([]byte(s)) {
		var v byte
		for _, c := range f {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | (c - '0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | (c - 'a' + 10)
			default:
				t.Fatalf("bad hex %q", f)
			}
		}
		out = append(out, v)
	}
	return out
}

// The worked example of net.md A4.5: one PlayerInfo {8,0,0}, no base, tick 100.
func TestDeltaGoldenWorkedExample(t *testing.T) {
	s := build(t, it(11, 0, 8, 0, 0))
	var empty Snapshot
	delta := AppendDelta(nil, &empty, s, Sizes7)
	if want := []int32{0, 1, 0, 11, 0, 8, 0, 0}; !slices.Equal(delta, want) {
		t.Fatalf("delta = %v, want %v", delta, want)
	}
	if got, want := AppendInts(nil, delta), hexBytes(t, "00 01 00 0b 00 08 00 00"); !bytes.Equal(got, want) {
		t.Fatalf("varints = % x, want % x", got, want)
	}
	if s.CRC() != 8 {
		t.Fatalf("CRC = %d", s.CRC())
	}
	var e Encoder
	if err := e.Encode(MsgIDs7, 100, -1, &empty, s, Sizes7); err != nil {
		t.Fatal(err)
	}
	want := hexBytes(t, "11 a4 01 a5 01 08 08 00 01 00 0b 00 08 00 00")
	if e.NumMessages() != 1 || !bytes.Equal(e.Message(0), want) {
		t.Fatalf("message = % x, want % x", e.Message(0), want)
	}

	// The receiving side turns the message back into the snapshot.
	r := NewReceiver(MsgIDs7, Sizes7)
	tick, done, err := r.Handle(8, want[1:])
	if err != nil || !done || tick != 100 {
		t.Fatalf("Handle = %d %v %v", tick, done, err)
	}
	got, ack := r.Latest()
	if ack != 100 || !got.Equal(s) {
		t.Fatalf("received %v (tick %d)", toSlow(got), ack)
	}
}

func TestDeltaSizeField(t *testing.T) {
	// Type 23 (PlayerInfoRace) is not static in 0.7: the size is sent.
	// Type 11 is static in 0.7 but in 0.6 has 5 ints (also static), and type
	// 21 is static in 0.7 (SoundWorld) but not in 0.6.
	from := build(t, it(11, 1, 1, 2, 3), it(21, 0, 5, 5, 5))
	to := build(t, it(11, 1, 1, 2, 4), it(21, 0, 5, 5, 5), it(23, 7, 42))
	for _, tc := range []struct {
		sizes *SizeTable
		want  []int32
	}{
		{Sizes7, []int32{0, 2, 0, 11, 1, 0, 0, 1, 23, 7, 1, 42}},
		{Sizes6, []int32{0, 2, 0, 11, 1, 0, 0, 1, 23, 7, 1, 42}},
	} {
		got := AppendDelta(nil, from, to, tc.sizes)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: delta = %v, want %v", tc.sizes.Name, got, tc.want)
		}
	}
	// Removal of the SoundWorld and an item appearing: type 21 carries a
	// size in 0.6 only.
	to2 := build(t, it(11, 1, 1, 2, 3), it(21, 1, 9, 9, 9))
	if got, want := AppendDelta(nil, from, to2, Sizes7), []int32{1, 1, 0, int32(Key(21, 0)), 21, 1, 9, 9, 9}; !slices.Equal(got, want) {
		t.Errorf("0.7 delta = %v, want %v", got, want)
	}
	if got, want := AppendDelta(nil, from, to2, Sizes6), []int32{1, 1, 0, int32(Key(21, 0)), 21, 1, 3, 9, 9, 9}; !slices.Equal(got, want) {
		t.Errorf("0.6 delta = %v, want %v", got, want)
	}
}

func TestDeltaWrapping(t *testing.T) {
	from := build(t, it(5, 0, math.MaxInt32, math.MinInt32, -1))
	to := build(t, it(5, 0, math.MinInt32, math.MaxInt32, math.MaxInt32))
	d := AppendDelta(nil, from, to, Sizes7)
	if want := []int32{0, 1, 0, 5, 0, 1, -1, math.MinInt32}; !slices.Equal(d, want) {
		t.Fatalf("delta = %v, want %v", d, want)
	}
	var got Snapshot
	if err := ApplyDelta(&got, from, d, Sizes7); err != nil || !got.Equal(to) || got.CRC() != to.CRC() {
		t.Fatalf("apply: %v %v", err, toSlow(&got))
	}
}

func TestDeltaUnchangedIsEmpty(t *testing.T) {
	s := build(t, it(10, 3, make([]int32, 22)...), it(6, 0, 1, 2, 3))
	d := AppendDelta(nil, s, s, Sizes7)
	if !IsEmptyDelta(d) || len(d) != 3 {
		t.Fatalf("delta = %v", d)
	}
	var e Encoder
	if err := e.Encode(MsgIDs7, 10, 8, s, s, Sizes7); err != nil {
		t.Fatal(err)
	}
	// SNAPEMPTY (id 7 → header 0x0f), tick 10, delta tick 2.
	if want := []byte{0x0f, 10, 2}; e.NumMessages() != 1 || !bytes.Equal(e.Message(0), want) {
		t.Fatalf("message = % x", e.Message(0))
	}
}

// One malformed case per error of ApplyDelta.
func TestApplyDeltaErrors(t *testing.T) {
	base := build(t, it(11, 0, 1, 2, 3), it(11, 1, 4, 5, 6), it(30, 2, 7))
	k0, k1 := int32(Key(11, 0)), int32(Key(11, 1))
	big := append([]int32{0, 1, 0, 40, 0, MaxWords + 1}, make([]int32, MaxWords+1)...)
	many := []int32{0, MaxItems - 2, 0}
	for i := range MaxItems - 2 {
		many = append(many, 40, int32(i), 0)
	}
	for _, tc := range []struct {
		name  string
		delta []int32
		want  error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", []int32{0, 0}, ErrTruncated},
		{"negative removed", []int32{-1, 0, 0}, ErrNegativeCount},
		{"negative updated", []int32{0, -1, 0}, ErrNegativeCount},
		{"removed past end", []int32{2, 0, 0, k0}, ErrTruncated},
		{"more removed than items", []int32{4, 0, 0, k0, k0, k0, k0}, ErrUnknownKey},
		{"removed key unknown", []int32{1, 0, 0, int32(Key(11, 9))}, ErrUnknownKey},
		{"removed twice", []int32{2, 0, 0, k0, k0}, ErrDuplicateKey},
		{"too many updates", []int32{0, MaxItems + 1, 0}, ErrTooManyItems},
		{"update header past end", []int32{0, 1, 0, 11}, ErrTruncated},
		{"negative type", []int32{0, 1, 0, -1, 0}, ErrBadKey},
		{"type too big", []int32{0, 1, 0, MaxType + 1, 0, 0}, ErrBadKey},
		{"id too big", []int32{0, 1, 0, 11, MaxID + 1}, ErrBadKey},
		{"negative id", []int32{0, 1, 0, 11, -5}, ErrBadKey},
		{"size field missing", []int32{0, 1, 0, 40, 0}, ErrTruncated},
		{"negative size", []int32{0, 1, 0, 40, 0, -3}, ErrNegativeSize},
		{"data past end", []int32{0, 1, 0, 40, 0, 5, 1, 2}, ErrTruncated},
		{"static data past end", []int32{0, 1, 0, 11, 5, 1, 2}, ErrTruncated},
		{"trailing data", []int32{0, 0, 0, 7}, ErrTrailingData},
		{"updated twice", []int32{0, 2, 0, 11, 5, 1, 1, 1, 11, 5, 1, 1, 1}, ErrDuplicateKey},
		{"removed and updated", []int32{1, 1, 0, k1, 11, 1, 0, 0, 1}, ErrDuplicateKey},
		{"size mismatch", []int32{0, 1, 0, 30, 2, 2, 1, 1}, ErrSizeMismatch},
		{"snapshot too large", big, ErrSnapTooLarge},
		{"too many items", many, ErrTooManyItems},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dst Snapshot
			dst.CopyFrom(base) // must be cleared on error
			err := ApplyDelta(&dst, base, tc.delta, Sizes7)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if dst.NumItems() != 0 || dst.DataWords() != 0 {
				t.Fatalf("dst not empty after error")
			}
			if _, slowErr := slowApply(toSlow(base), tc.delta, Sizes7); slowErr == nil {
				t.Fatalf("slow model accepts it")
			}
		})
	}
	t.Run("aliased", func(t *testing.T) {
		s := build(t, it(11, 0, 1, 2, 3))
		if err := ApplyDelta(s, s, []int32{0, 0, 0}, Sizes7); !errors.Is(err, ErrAliased) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("limits ok", func(t *testing.T) {
		// The largest legal snapshots decode.
		ok := append([]int32{0, 1, 0, 40, 0, MaxWords}, make([]int32, MaxWords)...)
		var dst Snapshot
		var empty Snapshot
		if err := ApplyDelta(&dst, &empty, ok, Sizes7); err != nil {
			t.Fatalf("max words: %v", err)
		}
		full := []int32{0, MaxItems, 0}
		for i := range MaxItems {
			full = append(full, 40, int32(i), 0)
		}
		if err := ApplyDelta(&dst, &empty, full, Sizes7); err != nil || dst.NumItems() != MaxItems {
			t.Fatalf("max items: %v", err)
		}
	})
}

// randSnap makes a random model snapshot with realistic and odd items.
func randSnap(r *rand.Rand, sizes *SizeTable, n int) slowSnap {
	m := slowSnap{}
	for len(m) < n {
		typ := int32(r.IntN(26))
		if r.IntN(10) == 0 {
			typ = int32(r.IntN(MaxType + 1))
		}
		id := int32(r.IntN(8))
		if r.IntN(4) == 0 {
			id = int32(r.IntN(MaxID + 1))
		}
		size, static := slowSizeField(sizes, typ)
		if !static {
			size = int(typ % 9) // sizes are fixed per type, as in every protocol
		}
		d := make([]int32, size)
		for i := range d {
			d[i] = randVal(r)
		}
		m[uint32(typ)<<16|uint32(id)] = d
	}
	return m
}

func randVal(r *rand.Rand) int32 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return int32(r.IntN(200)) - 100
	case 2:
		return []int32{math.MaxInt32, math.MinInt32, -1, 1}[r.IntN(4)]
	}
	return int32(r.Uint32())
}

// mutate derives a successor: items removed, added and changed.
func mutate(r *rand.Rand, m slowSnap, sizes *SizeTable) slowSnap {
	out := slowSnap{}
	for k, d := range m {
		switch r.IntN(6) {
		case 0: // removed
		case 1, 2: // changed
			nd := slices.Clone(d)
			if len(nd) > 0 {
				nd[r.IntN(len(nd))] += randVal(r)
			}
			out[k] = nd
		default:
			out[k] = slices.Clone(d)
		}
	}
	for k, d := range randSnap(r, sizes, r.IntN(6)) {
		if _, ok := m[k]; !ok {
			out[k] = d
		}
	}
	return out
}

func TestDeltaDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var fromS, toS, got Snapshot
	var delta []int32
	for _, sizes := range []*SizeTable{Sizes7, Sizes6} {
		for iter := range 2000 {
			from := randSnap(r, sizes, r.IntN(40))
			to := mutate(r, from, sizes)
			if iter%50 == 0 {
				to = slowSnap{} // everything removed
			}
			from.buildInto(t, &fromS)
			to.buildInto(t, &toS)
			if toS.CRC() != to.crc() {
				t.Fatalf("CRC %d, model %d", toS.CRC(), to.crc())
			}
			delta = AppendDelta(delta[:0], &fromS, &toS, sizes)
			want := slowCreate(from, to, sizes)
			if !slices.Equal(delta, want) {
				t.Fatalf("%s iter %d: delta\n got %v\nwant %v", sizes.Name, iter, delta, want)
			}
			if err := ApplyDelta(&got, &fromS, delta, sizes); err != nil {
				t.Fatalf("apply: %v", err)
			}
			if !slowEqual(toSlow(&got), to) || !got.Equal(&toS) || got.CRC() != toS.CRC() {
				t.Fatalf("apply mismatch")
			}
			// Corrupt the delta: fast and slow must agree on acceptance and result.
			bad := slices.Clone(delta)
			for range 1 + r.IntN(3) {
				switch i := r.IntN(len(bad) + 1); {
				case i == len(bad):
					bad = bad[:r.IntN(len(bad))]
				default:
					bad[i] = randVal(r)
				}
				if len(bad) == 0 {
					break
				}
			}
			errFast := ApplyDelta(&got, &fromS, bad, sizes)
			slowOut, errSlow := slowApply(from, bad, sizes)
			if (errFast == nil) != (errSlow == nil) {
				t.Fatalf("corrupt delta %v: fast %v, slow %v", bad, errFast, errSlow)
			}
			if errFast == nil && !slowEqual(toSlow(&got), slowOut) {
				t.Fatalf("corrupt delta %v: results differ", bad)
			}
		}
	}
}

// TestDeltaDifferentialRuns is TestDeltaDifferential with the layout of a
// game's snapshots: long runs of items of a few types (AppendDelta compares
// a run of one type with the same keys and sizes at once), of which a tick
// changes none, one or a few, removes or adds some, or resizes one.
func TestDeltaDifferentialRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var fromS, toS, got Snapshot
	var delta []int32
	for iter := range 3000 {
		from := slowSnap{}
		for range r.IntN(120) {
			typ := uint32([...]int{4, 10, 11, 30, 31}[r.IntN(5)]) // with and without a static size
			from[typ<<16|uint32(r.IntN(64))] = nil
		}
		for k := range from {
			size, static := slowSizeField(Sizes7, int32(k>>16))
			if !static {
				size = 1 + int(k>>16)%5
			}
			d := make([]int32, size)
			for i := range d {
				d[i] = int32(r.IntN(5))
			}
			from[k] = d
		}
		to := slowSnap{}
		for k, d := range from {
			nd := slices.Clone(d)
			switch r.IntN(40) {
			case 0:
				continue // removed
			case 1, 2:
				nd[r.IntN(len(nd))]++
			case 3:
				to[k^1] = slices.Clone(d) // added (or kept) beside it
			case 4:
				if _, static := slowSizeField(Sizes7, int32(k>>16)); !static {
					nd = append(nd, 1) // resized: a changed item of its own
				}
			}
			to[k] = nd
		}
		resized := false
		for k, d := range to {
			if od, ok := from[k]; ok && len(od) != len(d) {
				resized = true
			}
		}
		from.buildInto(t, &fromS)
		to.buildInto(t, &toS)
		delta = AppendDelta(delta[:0], &fromS, &toS, Sizes7)
		if want := slowCreate(from, to, Sizes7); !slices.Equal(delta, want) {
			t.Fatalf("iter %d: delta\n got %v\nwant %v", iter, delta, want)
		}
		err := ApplyDelta(&got, &fromS, delta, Sizes7)
		if resized { // as documented: a receiver refuses a resized item
			if !errors.Is(err, ErrSizeMismatch) {
				t.Fatalf("iter %d: apply of a resized item: %v, want ErrSizeMismatch", iter, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("iter %d: apply: %v", iter, err)
		}
		if !got.Equal(&toS) {
			t.Fatalf("iter %d: apply mismatch", iter)
		}
	}
}

// buildInto builds m into dst, failing t when the builder refuses it.
func (m slowSnap) buildInto(t *testing.T, dst *Snapshot) {
	t.Helper()
	s, err := m.build()
	if err != nil {
		t.Fatal(err)
	}
	dst.CopyFrom(s)
}
